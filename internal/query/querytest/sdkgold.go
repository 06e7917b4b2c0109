package querytest

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
)

// The goldens of testdata/sdk050/golden are a real Cosmos SDK v0.50
// node's answers (simd; recorded by testdata/sdk050/record.sh) to every
// query of the services chaind serves, over gRPC and REST. lcd's and
// grpcsrv's TestSDKGoldens ask chaind the same questions on a fixture
// chain with the same kind of history and compare the answers field by
// field with what is here: the same keys at every level, the same JSON
// types, the same kind of string (an integer, an 18-decimal Dec, bech32
// of the same role, an RFC 3339 time, base64, upper-case hex, an enum
// name, a type URL), the same status codes. Values differ (another
// chain); every other difference chaind keeps is listed in SDKDiffers
// with the reason.

// SDKGolden is one recorded question (testdata/sdk050/record/main.go's
// Golden).
type SDKGolden struct {
	Name   string            `json:"name"`
	Note   string            `json:"note"`
	Method string            `json:"method"`
	Params map[string]string `json:"params"`
	Height string            `json:"height"`
	GRPC   struct {
		Request  []byte `json:"request"`
		Code     int    `json:"code"`
		Message  string `json:"message"`
		Response []byte `json:"response"`
	} `json:"grpc"`
	REST *struct {
		Path   string          `json:"path"`
		Status int             `json:"status"`
		Body   json.RawMessage `json:"body"`
	} `json:"rest"`
}

// LoadSDKGoldens reads every golden, by name; root is the module root
// relative to the test's package ("..").
func LoadSDKGoldens(root string) (map[string]SDKGolden, error) {
	dir := filepath.Join(SDKGoldens(root), "golden")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	out := map[string]SDKGolden{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var g SDKGolden
		if err := json.Unmarshal(b, &g); err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		out[g.Name] = g
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no goldens in %s (testdata/sdk050/record.sh records them)", dir)
	}
	return out, nil
}

// SDKFixture is a TxChain of three validators given the history the
// recorded chain has: the account of the "@acc" role (Addr(1)) delegated,
// unbonded, voted on proposal 1 and deposited on it, and block 3 holds a
// transfer (the "@tx" of "@height"). Every validator signs every commit,
// as the recording's one validator did, so the commits' signature
// entries compare field by field.
func SDKFixture() *TxChain {
	c := NewTxChain(3)
	c.AllSign = true
	c.PropDeps[1] = append(c.PropDeps[1], backend.ProposalDeposit{Depositor: Addr(1), Amount: Ether(5)})
	c.AddTxBlock(-1, SignedTx(1, 0, Addr(2), 1000))
	return c
}

// SDKRoles are the fixture's values of the roles the goldens' requests
// name (testdata/sdk050/record/main.go's roles).
func SDKRoles(c *TxChain) map[string]string {
	b, _ := c.BlockByNumber(3)
	raw, err := query.CosmosTx(b.Transactions()[0], Sender(1))
	if err != nil {
		panic(err)
	}
	h := query.CometHash(raw)
	return map[string]string{
		"@acc":      query.Bech32(query.AccountPrefix, Addr(1)),
		"@nobody":   query.Bech32(query.AccountPrefix, Addr(0x999)),
		"@val":      query.Bech32(query.ValidatorPrefix, Addr(0x100)),
		"@noval":    query.Bech32(query.ValidatorPrefix, Addr(0x999)),
		"@cons":     query.Bech32(query.ConsensusPrefix, Addr(0x100)),
		"@proposal": "1",
		"@height":   "3",
		"@tx":       strings.ToUpper(hex.EncodeToString(h[:])),
		"@txbytes":  base64.StdEncoding.EncodeToString(raw),
		"@txquery":  "tx.height=3",
		"@denom":    query.Denom,
		"@plan":     "1.2.0",
	}
}

// ExpandRoles replaces the roles in s, longest first ("@txbytes" before
// "@tx").
func ExpandRoles(s string, roles map[string]string) string {
	rs := make([]string, 0, len(roles))
	for r := range roles {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return len(rs[i]) > len(rs[j]) })
	for _, r := range rs {
		s = strings.ReplaceAll(s, r, roles[r])
	}
	return s
}

// SDKRequest is m's request with a golden's fields, roles replaced.
func SDKRequest(m *query.Method, g SDKGolden, roles map[string]string) (protobuf.Message, error) {
	req := m.NewRequest()
	for _, k := range slices.Sorted(mapKeys(g.Params)) {
		if err := protobuf.SetField(req, k, ExpandRoles(g.Params[k], roles)); err != nil {
			return nil, fmt.Errorf("%s: %v", k, err)
		}
	}
	return req, nil
}

// SDKRESTPath is the golden's REST path with the fixture's roles, its
// query values escaped.
func SDKRESTPath(p string, roles map[string]string) string {
	path, q, _ := strings.Cut(ExpandRoles(p, roles), "?")
	if q == "" {
		return path
	}
	var parts []string
	for _, kv := range strings.Split(q, "&") {
		k, v, _ := strings.Cut(kv, "=")
		parts = append(parts, k+"="+queryEscape(v))
	}
	return path + "?" + strings.Join(parts, "&")
}

func queryEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// sdkShape compares with the SDK's answers: a string must be of the
// same kind (StringKind) as the SDK's, and a type URL the same URL.
var sdkShape = Shape{Them: "the SDK", String: func(_, w, g string) string {
	if what := SameKind("the SDK", w, g); what != "" {
		return what
	}
	if StringKind(w) == "type URL" && w != g {
		return fmt.Sprintf("the SDK answers %q, chaind %q", w, g)
	}
	return ""
}}

// SameKind says how chaind's string g differs in kind (StringKind) from
// the recording's w, made by them; "" when it does not: text, and an
// empty string on either side, match anything, and hex that happens to
// hold only digits (a hash of zeros) is hex.
func SameKind(them, w, g string) string {
	wk, gk := StringKind(w), StringKind(g)
	if wk == "text" || wk == "empty" || gk == "empty" || wk == gk {
		return ""
	}
	if wk == "upper-case hex" && len(g)%2 == 0 && upperHex.MatchString(g) {
		return ""
	}
	return fmt.Sprintf("%s answers %s (%.60q), chaind %s (%.60q)", them, wk, w, gk, g)
}

// DiffSDK walks want (the SDK's answer) and got (chaind's), both decoded
// with DecodeJSON, side by side.
func DiffSDK(path string, want, got any) []Difference { return sdkShape.Diff(path, want, got) }

var (
	intText   = regexp.MustCompile(`^-?[0-9]+$`)
	decText   = regexp.MustCompile(`^-?[0-9]+\.[0-9]{18}$`)
	upperHex  = regexp.MustCompile(`^[0-9A-F]+$`)
	enumText  = regexp.MustCompile(`^([A-Z][A-Z0-9]*)(_[A-Z0-9]+)+$`)
	bech32Re  = regexp.MustCompile(`^([a-z]+)1[02-9ac-hj-np-z]{38,}$`)
	typeURLRe = regexp.MustCompile(`^/[a-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+$`)
)

// bech32Roles are the roles of the SDK's bech32 prefixes and chaind's.
var bech32Roles = map[string]string{
	"cosmos": "account", "cosmosvaloper": "validator operator", "cosmosvalcons": "consensus",
	query.AccountPrefix: "account", query.ValidatorPrefix: "validator operator", query.ConsensusPrefix: "consensus",
}

// StringKind names what a JSON string holds: what a client parses it as.
func StringKind(s string) string {
	switch {
	case s == "":
		return "empty"
	case decText.MatchString(s):
		return "an 18-decimal Dec"
	case intText.MatchString(s):
		return "an integer"
	case typeURLRe.MatchString(s):
		return "type URL"
	}
	if m := enumText.FindStringSubmatch(s); m != nil {
		return "an enum name (" + m[1] + "_...)"
	}
	if m := bech32Re.FindStringSubmatch(s); m != nil {
		if role, ok := bech32Roles[m[1]]; ok {
			return "bech32 of a " + role + " address"
		}
		return "bech32 (" + m[1] + ")"
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil && t.Location() == time.UTC {
		return "an RFC 3339 UTC time"
	}
	if len(s) >= 8 && len(s)%2 == 0 && upperHex.MatchString(s) {
		return "upper-case hex"
	}
	// Base64 of bytes mixes cases (or pads); a word of lower-case letters
	// of the right length is text.
	if len(s) >= 4 && len(s)%4 == 0 && (strings.ContainsAny(s, "+/=") ||
		strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz") && strings.ContainsAny(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")) {
		if _, err := base64.StdEncoding.DecodeString(s); err == nil {
			return "base64"
		}
	}
	return "text"
}

// MatchSDKDiffer finds the SDKDiffers entry for a difference at path of
// case name over transport ("rest", "grpc"): an entry is "transport case
// path", where case may be "*" (every case) and path may start with "..."
// (any path ending so).
func MatchSDKDiffer(transport, name, path string) (string, bool) {
	return MatchKept(SDKDiffers, transport+" ", name, path)
}
