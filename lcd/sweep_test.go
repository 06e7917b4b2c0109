package lcd

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
)

// The sweeps below apply the rules the single golden cases pin to every
// REST route the query layer declares, so a route added later is covered
// without anyone remembering to: every address in a path refused in both
// bad forms, every id and validator that does not exist answered 404,
// every list walked page by page with next_key and a count total. Each
// sweep's answers are pinned in one golden file.

// pathParam matches a {name} of a route template.
var pathParam = regexp.MustCompile(`\{([a-z_]+)\}`)

// sweepValue is the value that exists for a path parameter, and whether the
// parameter is an address (and of which prefix).
func sweepValue(param string) (value, prefix string) {
	switch param {
	case "address", "delegator_address", "delegator_addr", "voter", "depositor":
		return acc1, query.AccountPrefix
	case "validator_address", "validator_addr":
		return val0, query.ValidatorPrefix
	case "cons_address":
		return cons0, query.ConsensusPrefix
	case "proposal_id", "height", "last_height":
		return "1", ""
	case "params_type":
		return "voting", ""
	case "name":
		return "1.2.0", ""
	case "denom":
		return query.Denom, ""
	case "hash":
		return strings.Repeat("ab", 32), ""
	case "address_bytes": // padded base64, as the SDK's gateway takes it
		a := querytest.Addr(1)
		return base64.StdEncoding.EncodeToString(a[:]), ""
	case "address_string": // the path is AddressBytesToString's, as in the SDK's gateway
		return acc1, ""
	case "id": // the SDK's deprecated account id, which it refuses
		return "1", ""
	}
	return "", ""
}

// sweepRoute is one REST route with every parameter filled.
type sweepRoute struct {
	name, template string
	params         []string
	paged          bool // its request has a pagination field
}

func (r sweepRoute) fill(override map[string]string) string {
	return pathParam.ReplaceAllStringFunc(r.template, func(m string) string {
		p := m[1 : len(m)-1]
		if v, ok := override[p]; ok {
			return v
		}
		v, _ := sweepValue(p)
		return v
	})
}

func sweepRoutes(t *testing.T) []sweepRoute {
	var out []sweepRoute
	for _, s := range query.New(querytest.New(7).Backend()).Services() {
		for _, m := range s.Methods {
			if m.Get == "" {
				continue
			}
			r := sweepRoute{name: s.Name + "/" + m.Name, template: m.Get}
			for _, p := range pathParam.FindAllStringSubmatch(m.Get, -1) {
				if v, _ := sweepValue(p[1]); v == "" {
					t.Fatalf("%s: no value for path parameter %q; teach sweepValue", r.name, p[1])
				}
				r.params = append(r.params, p[1])
			}
			_, r.paged = reflect.TypeOf(m.In).FieldByName("Pagination")
			// GetTxsEvent pages by page and limit; its pagination field is
			// deprecated in the SDK and unread.
			r.paged = r.paged && m.Name != "GetTxsEvent"
			// A list of one denomination's entries that takes it from the
			// query string (DenomOwnersByQuery) is swept for the coin.
			if _, ok := reflect.TypeOf(m.In).FieldByName("Denom"); ok && r.paged && !strings.Contains(m.Get, "{denom}") {
				r.template += "?denom=" + query.Denom
			}
			out = append(out, r)
		}
	}
	if len(out) < 30 {
		t.Fatalf("only %d routes", len(out))
	}
	return out
}

// sweepGet answers path and renders the answer as the golden files hold it.
func sweepGet(t *testing.T, h http.Handler, path string) (int, []byte, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, rec.Body.Bytes(), "", "  "); err != nil {
		t.Fatalf("%s: invalid JSON %q: %v", path, rec.Body, err)
	}
	return rec.Code, rec.Body.Bytes(), fmt.Sprintf("GET %s\nHTTP %d\n%s\n", path, rec.Code, pretty.String())
}

func checkSweepGolden(t *testing.T, name string, got string) {
	t.Helper()
	file := filepath.Join("testdata", "golden", name+".txt")
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs; got:\n%s", file, got)
	}
}

// TestSweepBadAddresses: every address in every path, and the address
// filters of the proposals list, refused with 400 when the hex is short
// and when the bech32 checksum is wrong.
func TestSweepBadAddresses(t *testing.T) {
	h := newServer()
	var out strings.Builder
	check := func(path string) {
		code, _, text := sweepGet(t, h, path)
		if code != http.StatusBadRequest {
			t.Errorf("%s: HTTP %d, want 400", path, code)
		}
		out.WriteString(text)
	}
	n := 0
	for _, r := range sweepRoutes(t) {
		for _, p := range r.params {
			good, prefix := sweepValue(p)
			if prefix == "" {
				continue
			}
			n++
			check(r.fill(map[string]string{p: "0x12345"}))
			check(r.fill(map[string]string{p: good[:len(good)-1] + flip(good[len(good)-1])}))
		}
	}
	if n < 15 {
		t.Fatalf("only %d address parameters swept", n)
	}
	for _, f := range []string{"voter", "depositor"} {
		check("/cosmos/gov/v1beta1/proposals?" + f + "=0x12345")
		check("/cosmos/gov/v1beta1/proposals?" + f + "=" + badCheck)
	}
	checkSweepGolden(t, "sweep_bad_addresses", out.String())
}

// unknownIsEmpty are the routes that answer an unknown validator with an
// empty list, as the SDK does, and why.
var unknownIsEmpty = map[string]string{
	"/cosmos/distribution/v1beta1/validators/{validator_address}/slashes": "the SDK reads slash events by the validator's key prefix and never the validator itself: one that does not exist has none",
	"/cosmos/bank/v1beta1/denom_owners/{denom}":                           "the SDK pages its denomination-to-holder index under the denomination's prefix: a coin nobody holds has no entries",
}

// unknownIsMissing are the routes that answer a height past the head 404,
// as the SDK does, and why.
var unknownIsMissing = map[string]string{
	"/cosmos/staking/v1beta1/historical_info/{height}": "the SDK's keeper looks the height up in its historical entries and finds none (golden HistoricalInfo_above_head, simd v0.50)",
}

// TestSweepUnknown: every path naming a proposal or a validator that does
// not exist answers 404; a height past the head 400, as the Cosmos SDK
// answers it (the height is an invalid argument, not a missing record),
// but for the routes in unknownIsMissing.
func TestSweepUnknown(t *testing.T) {
	h := newServer()
	var out strings.Builder
	type want struct {
		value string
		code  int
	}
	unknown := map[string]want{"proposal_id": {"42", 404}, "validator_address": {valNone, 404}, "validator_addr": {valNone, 404},
		"cons_address": {query.Bech32(query.ConsensusPrefix, querytest.Addr(0x999)), 404}, "height": {"99", 400},
		"denom": {"uatom", 404}}
	n := 0
	for _, r := range sweepRoutes(t) {
		for _, p := range r.params {
			w, ok := unknown[p]
			if !ok {
				continue
			}
			n++
			path := r.fill(map[string]string{p: w.value})
			code, _, text := sweepGet(t, h, path)
			if _, empty := unknownIsEmpty[r.template]; empty {
				w.code = http.StatusOK
			}
			if _, missing := unknownIsMissing[r.template]; missing && p == "height" {
				w.code = http.StatusNotFound
			}
			if code != w.code {
				t.Errorf("%s: HTTP %d, want %d", path, code, w.code)
			}
			out.WriteString(text)
		}
	}
	if n < 12 {
		t.Fatalf("only %d parameters swept", n)
	}
	for _, path := range []string{"/cosmos/nothing", "/cosmos/staking/v1beta1/validators/" + val0 + "/nothing"} {
		code, _, text := sweepGet(t, h, path)
		if code != http.StatusNotImplemented {
			t.Errorf("%s: HTTP %d, want 501", path, code)
		}
		out.WriteString(text)
	}
	checkSweepGolden(t, "sweep_unknown", out.String())
}

// TestSweepPages walks every list one item a page by next_key, with the
// count total asked on the first page, and checks the pages together hold
// what one unpaged answer holds, each item once, and that the total
// counts them. Lists keyed by an address are also asked for one that
// has nothing: an empty list and a total of 0.
func TestSweepPages(t *testing.T) {
	h := newServer()
	var out strings.Builder
	n := 0
	for _, r := range sweepRoutes(t) {
		if !r.paged {
			continue
		}
		n++
		base := r.fill(nil)
		_, full, _ := sweepGet(t, h, base)
		listField, all := onlyList(t, base, full)
		var walked []json.RawMessage
		key := ""
		for page := 0; ; page++ {
			if page > len(all)+1 {
				t.Fatalf("%s: paging did not end", base)
			}
			q := url.Values{"pagination.limit": {"1"}}
			if page == 0 {
				q.Set("pagination.count_total", "true")
			} else {
				q.Set("pagination.key", key)
			}
			path := base + sep(base) + q.Encode()
			code, body, text := sweepGet(t, h, path)
			out.WriteString(text)
			if code != http.StatusOK {
				t.Fatalf("%s: HTTP %d", path, code)
			}
			var resp map[string]json.RawMessage
			json.Unmarshal(body, &resp)
			var items []json.RawMessage
			json.Unmarshal(resp[listField], &items)
			walked = append(walked, items...)
			var pg struct {
				NextKey *string `json:"next_key"`
				Total   string  `json:"total"`
			}
			json.Unmarshal(resp["pagination"], &pg)
			if page == 0 && pg.Total != fmt.Sprint(len(all)) {
				t.Errorf("%s: total %q, want %d", path, pg.Total, len(all))
			}
			if pg.NextKey == nil {
				break
			}
			key = *pg.NextKey
		}
		if len(walked) != len(all) {
			t.Fatalf("%s: pages hold %d items, the whole list %d", base, len(walked), len(all))
		}
		for i := range all {
			if !bytes.Equal(walked[i], all[i]) {
				t.Errorf("%s: item %d differs by page:\n%s\n%s", base, i, walked[i], all[i])
			}
		}
		for _, p := range r.params {
			if _, prefix := sweepValue(p); prefix == query.AccountPrefix {
				path := r.fill(map[string]string{p: acc5}) + sep(base) + "pagination.count_total=true"
				code, body, text := sweepGet(t, h, path)
				out.WriteString(text)
				if _, items := onlyList(t, path, body); code != http.StatusOK || len(items) != 0 {
					t.Errorf("%s: HTTP %d, %d items, want an empty list", path, code, len(items))
				}
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d lists swept", n)
	}
	checkSweepGolden(t, "sweep_pages", out.String())
}

func sep(path string) string {
	if strings.Contains(path, "?") {
		return "&"
	}
	return "?"
}

// onlyList returns the one list field of an answer (besides pagination)
// and its items.
func onlyList(t *testing.T, path string, body []byte) (string, []json.RawMessage) {
	t.Helper()
	var resp map[string]json.RawMessage
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	name := ""
	var items []json.RawMessage
	for k, v := range resp {
		var list []json.RawMessage
		if k == "pagination" || json.Unmarshal(v, &list) != nil {
			continue
		}
		if name != "" {
			t.Fatalf("%s: two lists, %s and %s", path, name, k)
		}
		name, items = k, list
	}
	if name == "" {
		t.Fatalf("%s: no list in %s", path, body)
	}
	return name, items
}
