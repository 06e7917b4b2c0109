// Command record asks a running Cosmos SDK v0.50 node (simd, started by
// ../record.sh) every query of the services chaind serves, over gRPC
// (the protobuf bytes and the status) and over REST (the gateway's JSON
// and HTTP status), plus the bad requests clients make (an unknown
// account, validator, proposal or transaction, a bad address, both a
// pagination key and an offset, a height above the head, an unknown
// method and route), one golden file per case in -out. lcd's and
// grpcsrv's TestSDKGoldens compare chaind's answers with them field by
// field.
//
// The methods, their request messages and REST routes come from the SDK's
// own definitions (../protos.json, read from the v0.50 .proto files by
// internal/tools/sdkprotos), so methods chaind does not serve yet are
// recorded too. A request is described by field name ("pagination.limit")
// and value; a value starting with "@" is a role ("@acc": an account with
// a delegation, a vote and a deposit) that the tests replace with the
// fixture chain's own account, validator, height... The roles' values on
// the recorded chain are flags. It speaks gRPC as a plain HTTP/2 client
// and uses the standard library only.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

var (
	grpcAddr = flag.String("grpc", "", "the node's gRPC host:port")
	restURL  = flag.String("rest", "", "the node's REST base URL")
	protos   = flag.String("protos", "../protos.json", "the SDK's definitions")
	out      = flag.String("out", "../golden", "where the golden files go")
	meta     = flag.String("versions", "../VERSIONS.json", "where the versions and roles are written")
	simdVer  = flag.String("simd-version", "", "simd version --long, for VERSIONS.json")
)

// roles are the recorded chain's values of the roles the requests name;
// each is a flag (-acc cosmos1...).
var roles = map[string]*string{
	"@acc":      flag.String("acc", "", "an account that delegated, unbonded, submitted and deposited on proposal 1, voted on it, and sent"),
	"@nobody":   flag.String("nobody", "", "an address with no account"),
	"@val":      flag.String("val", "", "the validator's operator address"),
	"@noval":    flag.String("noval", "", "an operator address of no validator"),
	"@cons":     flag.String("cons", "", "the validator's consensus address"),
	"@proposal": flag.String("proposal", "1", "a proposal with a deposit and a vote"),
	"@height":   flag.String("height", "", "a height whose block holds a transaction"),
	"@tx":       flag.String("tx", "", "that transaction's hash (hex)"),
	"@txbytes":  flag.String("txbytes", "", "that transaction's bytes (base64)"),
	"@txquery":  flag.String("txquery", "", "an event query matching that transaction (tx.height=N)"),
	"@denom":    flag.String("denom", "stake", "the staking denomination"),
	"@plan":     flag.String("plan", "", "an upgrade plan name"),
}

// services are the services chaind serves (internal/query's table); the
// tests report a served method that has no golden.
var services = []string{
	"cosmos.auth.v1beta1.Query", "cosmos.bank.v1beta1.Query", "cosmos.base.tendermint.v1beta1.Service",
	"cosmos.base.node.v1beta1.Service", "cosmos.distribution.v1beta1.Query", "cosmos.gov.v1beta1.Query",
	"cosmos.gov.v1.Query", "cosmos.mint.v1beta1.Query", "cosmos.slashing.v1beta1.Query",
	"cosmos.staking.v1beta1.Query", "cosmos.tx.v1beta1.Service", "cosmos.upgrade.v1beta1.Query",
}

// pathRoles are the values of REST path parameters, by name.
var pathRoles = map[string]string{
	"address": "@acc", "delegator_address": "@acc", "delegator_addr": "@acc", "voter": "@acc", "depositor": "@acc",
	"address_string": "@acc", "validator_address": "@val", "validator_addr": "@val", "cons_address": "@cons",
	"proposal_id": "@proposal", "height": "@height", "last_height": "@height", "params_type": "voting",
	"denom": "@denom", "hash": "@tx", "name": "@plan", "id": "1",
}

// extra are the request fields a method is asked with beyond its path's.
var extra = map[string]map[string]string{
	"cosmos.bank.v1beta1.Query/Balance":                          {"denom": "@denom"},
	"cosmos.bank.v1beta1.Query/SupplyOf":                         {"denom": "@denom"},
	"cosmos.bank.v1beta1.Query/SpendableBalanceByDenom":          {"denom": "@denom"},
	"cosmos.bank.v1beta1.Query/DenomOwnersByQuery":               {"denom": "@denom"},
	"cosmos.bank.v1beta1.Query/DenomMetadataByQueryString":       {"denom": "@denom"},
	"cosmos.base.tendermint.v1beta1.Service/ABCIQuery":           {"path": "/cosmos.auth.v1beta1.Query/Params"},
	"cosmos.tx.v1beta1.Service/GetTxsEvent":                      {"query": "@txquery"},
	"cosmos.tx.v1beta1.Service/TxDecode":                         {"tx_bytes": "@txbytes"},
	"cosmos.tx.v1beta1.Service/Simulate":                         {"tx_bytes": "@txbytes"},
	"cosmos.tx.v1beta1.Service/BroadcastTx":                      {"tx_bytes": "@txbytes", "mode": "2"},
	"cosmos.auth.v1beta1.Query/ModuleAccountByName":              {"name": "gov"},
	"cosmos.auth.v1beta1.Query/AccountAddressByID":               {"id": "1"},
	"cosmos.auth.v1beta1.Query/AddressBytesToString":             {"address_bytes": "qgAAAAAAAAAAAAAAAAAAAAAAAAE"},
	"cosmos.staking.v1beta1.Query/ValidatorUnbondingDelegations": {},
}

// A case beyond each method's plain question.
type special struct {
	name, note, method string
	params             map[string]string
	header             string // x-cosmos-block-height
	restPath           string // a route of no method
}

var specials = []special{
	{"bank.v1beta1.Balance_bad_address", "an address that is not bech32", "cosmos.bank.v1beta1.Query/Balance", map[string]string{"address": "notanaddress", "denom": "@denom"}, "", ""},
	{"bank.v1beta1.AllBalances_paged", "one balance a page, with the total", "cosmos.bank.v1beta1.Query/AllBalances", map[string]string{"address": "@acc", "pagination.limit": "1", "pagination.count_total": "true"}, "", ""},
	{"bank.v1beta1.Balance_above_head", "x-cosmos-block-height above the head", "cosmos.bank.v1beta1.Query/Balance", map[string]string{"address": "@acc", "denom": "@denom"}, "100000", ""},
	{"bank.v1beta1.Balance_past", "x-cosmos-block-height of the block with the send", "cosmos.bank.v1beta1.Query/Balance", map[string]string{"address": "@acc", "denom": "@denom"}, "@height", ""},
	{"bank.v1beta1.NoSuchMethod", "a method and a route that do not exist", "cosmos.bank.v1beta1.Query/NoSuchMethod", map[string]string{}, "", "/cosmos/bank/v1beta1/no_such_route"},
	{"auth.v1beta1.Account_not_found", "an address with no account", "cosmos.auth.v1beta1.Query/Account", map[string]string{"address": "@nobody"}, "", ""},
	{"auth.v1beta1.Account_bad_address", "an address that is not bech32", "cosmos.auth.v1beta1.Query/Account", map[string]string{"address": "notanaddress"}, "", ""},
	{"staking.v1beta1.Validator_not_found", "an operator address of no validator", "cosmos.staking.v1beta1.Query/Validator", map[string]string{"validator_addr": "@noval"}, "", ""},
	{"staking.v1beta1.Validator_bad_address", "an operator address that is not bech32", "cosmos.staking.v1beta1.Query/Validator", map[string]string{"validator_addr": "notanaddress"}, "", ""},
	{"staking.v1beta1.Delegation_not_found", "a delegator with no delegation", "cosmos.staking.v1beta1.Query/Delegation", map[string]string{"validator_addr": "@val", "delegator_addr": "@nobody"}, "", ""},
	{"staking.v1beta1.Validators_paged", "one validator a page, with the total", "cosmos.staking.v1beta1.Query/Validators", map[string]string{"pagination.limit": "1", "pagination.count_total": "true"}, "", ""},
	{"staking.v1beta1.Validators_bad_pagination", "both a pagination key and an offset", "cosmos.staking.v1beta1.Query/Validators", map[string]string{"pagination.key": "AAAA", "pagination.offset": "1"}, "", ""},
	{"staking.v1beta1.Validators_bonded", "validators by status", "cosmos.staking.v1beta1.Query/Validators", map[string]string{"status": "BOND_STATUS_BONDED"}, "", ""},
	{"staking.v1beta1.HistoricalInfo_above_head", "a height above the head", "cosmos.staking.v1beta1.Query/HistoricalInfo", map[string]string{"height": "100000"}, "", ""},
	{"gov.v1beta1.Proposal_not_found", "a proposal that does not exist", "cosmos.gov.v1beta1.Query/Proposal", map[string]string{"proposal_id": "999"}, "", ""},
	{"gov.v1.Proposal_not_found", "a proposal that does not exist", "cosmos.gov.v1.Query/Proposal", map[string]string{"proposal_id": "999"}, "", ""},
	{"gov.v1beta1.Vote_not_found", "a voter who did not vote", "cosmos.gov.v1beta1.Query/Vote", map[string]string{"proposal_id": "@proposal", "voter": "@nobody"}, "", ""},
	{"gov.v1.Vote_not_found", "a voter who did not vote", "cosmos.gov.v1.Query/Vote", map[string]string{"proposal_id": "@proposal", "voter": "@nobody"}, "", ""},
	{"gov.v1beta1.Params_deposit", "the deposit params", "cosmos.gov.v1beta1.Query/Params", map[string]string{"params_type": "deposit"}, "", ""},
	{"gov.v1beta1.Params_tallying", "the tallying params", "cosmos.gov.v1beta1.Query/Params", map[string]string{"params_type": "tallying"}, "", ""},
	{"gov.v1beta1.Params_bad_type", "a params type that does not exist", "cosmos.gov.v1beta1.Query/Params", map[string]string{"params_type": "nonsense"}, "", ""},
	{"gov.v1.Params_tallying", "the tallying params", "cosmos.gov.v1.Query/Params", map[string]string{"params_type": "tallying"}, "", ""},
	{"gov.v1beta1.Proposals_voting", "proposals by status", "cosmos.gov.v1beta1.Query/Proposals", map[string]string{"proposal_status": "2"}, "", ""},
	{"base.tendermint.v1beta1.GetBlockByHeight_above_head", "a height above the head", "cosmos.base.tendermint.v1beta1.Service/GetBlockByHeight", map[string]string{"height": "100000"}, "", ""},
	{"base.tendermint.v1beta1.GetValidatorSetByHeight_above_head", "a height above the head", "cosmos.base.tendermint.v1beta1.Service/GetValidatorSetByHeight", map[string]string{"height": "100000"}, "", ""},
	{"tx.v1beta1.GetTx_unknown", "a hash of no transaction", "cosmos.tx.v1beta1.Service/GetTx", map[string]string{"hash": strings.Repeat("AB", 32)}, "", ""},
	{"tx.v1beta1.GetTxsEvent_none", "a query matching nothing", "cosmos.tx.v1beta1.Service/GetTxsEvent", map[string]string{"query": "tx.height=1"}, "", ""},
	{"tx.v1beta1.GetTxsEvent_bad_query", "a query that does not parse", "cosmos.tx.v1beta1.Service/GetTxsEvent", map[string]string{"query": "tx.height=="}, "", ""},
	{"tx.v1beta1.GetBlockWithTxs_above_head", "a height above the head", "cosmos.tx.v1beta1.Service/GetBlockWithTxs", map[string]string{"height": "100000"}, "", ""},
	{"distribution.v1beta1.DelegationRewards_not_found", "a delegator with no delegation", "cosmos.distribution.v1beta1.Query/DelegationRewards", map[string]string{"delegator_address": "@nobody", "validator_address": "@val"}, "", ""},
	{"slashing.v1beta1.SigningInfo_bad_address", "a consensus address that is not bech32", "cosmos.slashing.v1beta1.Query/SigningInfo", map[string]string{"cons_address": "notanaddress"}, "", ""},
	{"upgrade.v1beta1.AppliedPlan_unknown", "a plan never applied", "cosmos.upgrade.v1beta1.Query/AppliedPlan", map[string]string{"name": "no-such-plan"}, "", ""},
}

// Golden is one recorded question with the gRPC and REST answers: the
// format the tests read (internal/query/querytest.SDKGolden).
type Golden struct {
	Name   string            `json:"name"`
	Note   string            `json:"note"`
	Method string            `json:"method"`           // "/cosmos.bank.v1beta1.Query/Balance"
	Params map[string]string `json:"params"`           // request fields by name; "@..." values are roles
	Header string            `json:"height,omitempty"` // x-cosmos-block-height sent (gRPC metadata and REST header)
	GRPC   GRPCAnswer        `json:"grpc"`
	REST   *RESTAnswer       `json:"rest,omitempty"`
}

// GRPCAnswer is a unary call's status and answer.
type GRPCAnswer struct {
	Request  []byte `json:"request"` // the protobuf request sent
	Code     int    `json:"code"`
	Message  string `json:"message,omitempty"`
	Response []byte `json:"response,omitempty"` // the protobuf answer
}

// RESTAnswer is the gateway's answer to the GET of Path (roles in it
// unreplaced).
type RESTAnswer struct {
	Path   string          `json:"path"`
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body"`
}

// defs are ../protos.json's.
type defs struct {
	Methods  map[string]struct{ In, Out, Get string } `json:"methods"`
	Messages map[string][]field                       `json:"messages"`
}

type field struct {
	Name     string `json:"name"`
	Number   int    `json:"number"`
	Type     string `json:"type"`
	TypeName string `json:"type_name"`
	Repeated bool   `json:"repeated"`
}

func main() {
	flag.Parse()
	log.SetFlags(0)
	if *grpcAddr == "" || *restURL == "" {
		log.Fatal("record: -grpc and -rest are needed")
	}
	for r, v := range roles {
		if *v == "" {
			log.Fatalf("record: the role %s has no value (-%s)", r, r[1:])
		}
	}
	b, err := os.ReadFile(*protos)
	if err != nil {
		log.Fatal(err)
	}
	var d defs
	if err := json.Unmarshal(b, &d); err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	old, _ := filepath.Glob(filepath.Join(*out, "*.json"))
	for _, f := range old {
		os.Remove(f)
	}
	var cases []special
	for _, full := range slices.Sorted(mapKeys(d.Methods)) {
		svc := full[:strings.Index(full, "/")]
		if !slices.Contains(services, svc) {
			continue
		}
		params, ok := methodParams(full, d.Methods[full].Get)
		if !ok {
			log.Printf("record: %s: a path parameter has no value; not recorded", full)
			continue
		}
		cases = append(cases, special{name: caseName(full), note: "the method asked of the recorded chain", method: full, params: params})
	}
	cases = append(cases, specials...)
	names := map[string]bool{}
	for _, c := range cases {
		if names[c.name] {
			log.Fatalf("record: two cases named %s", c.name)
		}
		names[c.name] = true
		g, err := record(d, c)
		if err != nil {
			log.Fatalf("record: %s: %v", c.name, err)
		}
		save(filepath.Join(*out, c.name+".json"), g)
	}
	rv := map[string]string{}
	for r, v := range roles {
		rv[r] = *v
	}
	save(*meta, map[string]any{
		"simd":        strings.TrimSpace(*simdVer),
		"recorded":    time.Now().UTC().Format(time.RFC3339),
		"recorder_go": runtime.Version(),
		"cases":       len(cases),
		"roles":       rv,
	})
	log.Printf("record: %d cases recorded in %s", len(cases), *out)
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// caseName is "bank.v1beta1.Balance" for "cosmos.bank.v1beta1.Query/Balance".
func caseName(full string) string {
	svc, m, _ := strings.Cut(full, "/")
	svc = strings.TrimPrefix(svc, "cosmos.")
	svc = svc[:strings.LastIndexByte(svc, '.')]
	return svc + "." + m
}

var pathParam = regexp.MustCompile(`\{([a-z_]+)\}`)

// methodParams are a method's request fields: its path's and extra's.
func methodParams(full, get string) (map[string]string, bool) {
	params := map[string]string{}
	for _, m := range pathParam.FindAllStringSubmatch(get, -1) {
		v, ok := pathRoles[m[1]]
		if x, ok2 := extra[full][m[1]]; ok2 {
			v, ok = x, true
		}
		if !ok {
			return nil, false
		}
		params[m[1]] = v
	}
	for k, v := range extra[full] {
		params[k] = v
	}
	return params, true
}

// expand replaces the roles in s by the recorded chain's values, longest
// role first ("@txbytes" before "@tx").
func expand(s string) string {
	rs := slices.Collect(mapKeys(roles))
	sort.Slice(rs, func(i, j int) bool { return len(rs[i]) > len(rs[j]) })
	for _, r := range rs {
		s = strings.ReplaceAll(s, r, *roles[r])
	}
	return s
}

// restPath is the GET path of a method's route with params: path
// parameters in the path, the others in the query string (roles kept).
func restPath(get string, params map[string]string) string {
	used := map[string]bool{}
	p := pathParam.ReplaceAllStringFunc(get, func(s string) string {
		name := s[1 : len(s)-1]
		used[name] = true
		return params[name]
	})
	var qs []string
	for _, k := range slices.Sorted(mapKeys(params)) {
		if !used[k] {
			qs = append(qs, k+"="+params[k])
		}
	}
	if len(qs) > 0 {
		p += "?" + strings.Join(qs, "&")
	}
	return p
}

// restURLOf escapes a path made by restPath, after the roles are
// replaced.
func restURLOf(p string) string {
	path, query, _ := strings.Cut(expand(p), "?")
	if query == "" {
		return path
	}
	v := url.Values{}
	for _, kv := range strings.Split(query, "&") {
		k, val, _ := strings.Cut(kv, "=")
		v.Add(k, val)
	}
	return path + "?" + v.Encode()
}

func record(d defs, c special) (*Golden, error) {
	g := &Golden{Name: c.name, Note: c.note, Method: "/" + c.method, Params: c.params, Header: c.header}
	m, known := d.Methods[c.method]
	if known {
		req, err := encode(d, m.In, c.params)
		if err != nil {
			return nil, err
		}
		g.GRPC.Request = req
	} else if len(c.params) > 0 {
		return nil, fmt.Errorf("no definition of %s", c.method)
	}
	var err error
	g.GRPC.Code, g.GRPC.Message, g.GRPC.Response, err = grpcCall(g.Method, g.GRPC.Request, expand(c.header))
	if err != nil {
		return nil, err
	}
	p := c.restPath
	if p == "" && m.Get != "" {
		p = restPath(m.Get, c.params)
	}
	if p != "" {
		req, _ := http.NewRequest("GET", *restURL+restURLOf(p), nil)
		if c.header != "" {
			req.Header.Set("x-cosmos-block-height", expand(c.header))
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if !json.Valid(body) {
			body, _ = json.Marshal(string(body))
		}
		g.REST = &RESTAnswer{Path: p, Status: resp.StatusCode, Body: body}
	}
	return g, nil
}

// encode writes message msg with the fields params names ("pagination.limit"
// sets limit in the pagination message), in field-number order.
func encode(d defs, msg string, params map[string]string) ([]byte, error) {
	fields, ok := d.Messages[msg]
	if !ok {
		return nil, fmt.Errorf("no definition of %s", msg)
	}
	byName := map[string]field{}
	for _, f := range fields {
		byName[f.Name] = f
	}
	nested := map[string]map[string]string{}
	for k := range params {
		head, rest, dotted := strings.Cut(k, ".")
		if _, ok := byName[head]; !ok {
			return nil, fmt.Errorf("%s has no field %s", msg, head)
		}
		if dotted {
			if nested[head] == nil {
				nested[head] = map[string]string{}
			}
			nested[head][rest] = params[k]
		}
	}
	var b []byte
	sorted := slices.Clone(fields)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Number < sorted[j].Number })
	for _, f := range sorted {
		if sub, ok := nested[f.Name]; ok {
			inner, err := encode(d, f.TypeName, sub)
			if err != nil {
				return nil, err
			}
			b = appendTag(b, f.Number, 2)
			b = binary.AppendUvarint(b, uint64(len(inner)))
			b = append(b, inner...)
			continue
		}
		text, ok := params[f.Name]
		if !ok {
			continue
		}
		text = expand(text)
		switch f.Type {
		case "string":
			b = appendTag(b, f.Number, 2)
			b = binary.AppendUvarint(b, uint64(len(text)))
			b = append(b, text...)
		case "bytes":
			raw, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(text, "="))
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %v", msg, f.Name, err)
			}
			b = appendTag(b, f.Number, 2)
			b = binary.AppendUvarint(b, uint64(len(raw)))
			b = append(b, raw...)
		case "uint64", "uint32", "int64", "int32", "enum":
			n, err := strconv.ParseInt(text, 10, 64)
			if err != nil {
				u, err2 := strconv.ParseUint(text, 10, 64)
				if err2 != nil {
					return nil, fmt.Errorf("%s.%s: %v", msg, f.Name, err)
				}
				n = int64(u)
			}
			b = appendTag(b, f.Number, 0)
			b = binary.AppendUvarint(b, uint64(n))
		case "bool":
			v, err := strconv.ParseBool(text)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %v", msg, f.Name, err)
			}
			b = appendTag(b, f.Number, 0)
			if v {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		default:
			return nil, fmt.Errorf("%s.%s: cannot set a %s from text", msg, f.Name, f.Type)
		}
	}
	return b, nil
}

func appendTag(b []byte, num, wire int) []byte {
	return binary.AppendUvarint(b, uint64(num)<<3|uint64(wire))
}

var h2c = func() *http.Client {
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: &http.Transport{Protocols: p}, Timeout: 30 * time.Second}
}()

// grpcCall makes one unary call and returns its status, message and
// answer.
func grpcCall(method string, msg []byte, height string) (int, string, []byte, error) {
	frame := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg)))
	req, _ := http.NewRequest("POST", "http://"+*grpcAddr+method, bytes.NewReader(append(frame, msg...)))
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("Te", "trailers")
	if height != "" {
		req.Header.Set("x-cosmos-block-height", height)
	}
	resp, err := h2c.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", nil, err
	}
	st, text := resp.Trailer.Get("Grpc-Status"), resp.Trailer.Get("Grpc-Message")
	if st == "" {
		st, text = resp.Header.Get("Grpc-Status"), resp.Header.Get("Grpc-Message")
	}
	code, err := strconv.Atoi(st)
	if err != nil {
		return 0, "", nil, fmt.Errorf("no grpc-status (HTTP %d)", resp.StatusCode)
	}
	if t, err := url.PathUnescape(text); err == nil {
		text = t // grpc-message is percent-encoded
	}
	if len(body) >= 5 {
		body = body[5:]
	} else {
		body = nil
	}
	return code, text, body, nil
}

func save(path string, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
