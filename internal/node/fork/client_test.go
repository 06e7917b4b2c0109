package fork

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// fakeUpstream answers the calls a fork makes from a state held in memory,
// at block 7; lie changes the balance it states (not the one it proves).
type fakeUpstream struct {
	db    *trie.MemoryDB
	root  types.Hash
	lie   bool
	fail  bool
	calls []string
}

var (
	who  = types.Address{0x11}
	slot = types.Hash{31: 1}
)

func newFake(t *testing.T) *fakeUpstream {
	t.Helper()
	db := trie.NewMemoryDB()
	st, err := state.New(state.EmptyRoot, db)
	if err != nil {
		t.Fatal(err)
	}
	for i := byte(1); i < 40; i++ {
		st.SetBalance(types.Address{i}, uint256.NewInt(uint64(i)*1000))
	}
	st.SetCode(who, []byte{0x60, 0x00})
	st.SetState(who, slot, types.Hash{31: 9})
	root, err := st.Commit(true)
	if err != nil {
		t.Fatal(err)
	}
	return &fakeUpstream{db: db, root: root}
}

func (f *fakeUpstream) answer(method string, params []json.RawMessage) (any, error) {
	f.calls = append(f.calls, method)
	switch method {
	case "eth_chainId":
		return "0x309", nil
	case "eth_blockNumber":
		return "0x7", nil
	case "eth_getBlockByNumber":
		var tag string
		json.Unmarshal(params[0], &tag)
		n := uint64(0)
		for _, c := range strings.TrimPrefix(tag, "0x") {
			n = n*16 + uint64(strings.IndexRune("0123456789abcdef", c))
		}
		if n > 7 {
			return nil, nil
		}
		h := types.Hash{byte(n + 1)}
		parent := types.Hash{byte(n)}
		return map[string]any{"number": tag, "hash": h, "parentHash": parent, "stateRoot": f.root,
			"timestamp": "0x10", "gasLimit": "0x1c9c380", "baseFeePerGas": "0x7"}, nil
	case "eth_getProof":
		var addr types.Address
		var keys []types.Hash
		json.Unmarshal(params[0], &addr)
		json.Unmarshal(params[1], &keys)
		st, _ := state.New(f.root, f.db)
		at, _ := trie.NewSecure(f.root, f.db)
		ap, err := at.Prove(addr[:])
		if err != nil {
			return nil, err
		}
		bal := new(uint256.Int).Set(st.GetBalance(addr))
		if f.lie {
			bal.AddUint64(bal, 1)
		}
		res := map[string]any{"accountProof": hexes(ap), "balance": (*types.HexU256)(bal), "nonce": types.HexUint64(st.GetNonce(addr)),
			"codeHash": st.GetCodeHash(addr), "storageHash": st.GetStorageRoot(addr)}
		var sps []any
		for _, k := range keys {
			stt, _ := trie.NewSecure(st.GetStorageRoot(addr), f.db)
			sp, err := stt.Prove(k[:])
			if err != nil {
				return nil, err
			}
			v := st.GetState(addr, k)
			sps = append(sps, map[string]any{"key": k, "value": (*types.HexU256)(new(uint256.Int).SetBytes(v[:])), "proof": hexes(sp)})
		}
		res["storageProof"] = sps
		return res, nil
	case "eth_getCode":
		return types.HexBytes{0x60, 0x00}, nil
	}
	return nil, errors.New("no such method")
}

func hexes(l [][]byte) []types.HexBytes {
	out := make([]types.HexBytes, len(l))
	for i, b := range l {
		out[i] = b
	}
	return out
}

func (f *fakeUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.fail {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		return
	}
	body, _ := io.ReadAll(r.Body)
	type req struct {
		ID     int               `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	one := func(q req) map[string]any {
		res, err := f.answer(q.Method, q.Params)
		if err != nil {
			return map[string]any{"jsonrpc": "2.0", "id": q.ID, "error": map[string]any{"code": -32000, "message": err.Error()}}
		}
		return map[string]any{"jsonrpc": "2.0", "id": q.ID, "result": res}
	}
	if body[0] == '[' {
		var qs []req
		json.Unmarshal(body, &qs)
		var out []any
		for i := len(qs) - 1; i >= 0; i-- { // answers in any order
			out = append(out, one(qs[i]))
		}
		json.NewEncoder(w).Encode(out)
		return
	}
	var q req
	json.Unmarshal(body, &q)
	json.NewEncoder(w).Encode(one(q))
}

func TestClientProvesAndChecks(t *testing.T) {
	f := newFake(t)
	srv := httptest.NewServer(f)
	defer srv.Close()
	ctx := context.Background()
	five := uint64(5)
	c, err := Dial(ctx, srv.URL, &five)
	if err != nil {
		t.Fatal(err)
	}
	if c.ChainID != 0x309 || c.Block.Number != 5 || c.Block.StateRoot != f.root || c.Block.BaseFee.Uint64() != 7 {
		t.Fatalf("dialled %+v chain %d", c.Block, c.ChainID)
	}
	if c.RoundTrips() != 2 {
		t.Fatalf("Dial took %d round trips, want 2", c.RoundTrips())
	}
	hs, err := c.Hashes(ctx, 256)
	if err != nil || len(hs) != 6 || hs[0] != c.Block.Hash || c.RoundTrips() != 3 {
		t.Fatalf("hashes %v, %v after %d trips", hs, err, c.RoundTrips())
	}
	nodes, err := c.Prove(who, []types.Hash{slot})
	if err != nil || len(nodes) == 0 {
		t.Fatalf("prove: %d nodes, %v", len(nodes), err)
	}
	// The nodes let a partial state read the account and the slot.
	db := trie.NewMemoryDB()
	set := trie.NewNodeSet()
	for _, n := range nodes {
		set.Add(crypto.Keccak256(n), n)
	}
	db.Update(set)
	st, err := state.New(f.root, db)
	if err != nil {
		t.Fatal(err)
	}
	if st.GetState(who, slot) != (types.Hash{31: 9}) || st.Error() != nil {
		t.Fatalf("slot from proof nodes: %v", st.Error())
	}
	// An absent account proves absent.
	if _, err := c.Prove(types.Address{0xfe, 0xed}, nil); err != nil {
		t.Fatalf("absent account: %v", err)
	}
	f.lie = true
	if _, err := c.Prove(who, nil); err == nil || !strings.Contains(err.Error(), "does not hold") {
		t.Fatalf("a stated balance the proof does not hold: %v", err)
	}
	f.lie, f.fail = false, true
	if _, err := c.Code(who, types.Hash{}); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("failing upstream: %v", err)
	}
	f.fail = false
	eight := uint64(8)
	if _, err := Dial(ctx, srv.URL, &eight); !errors.Is(err, ErrBeyondHead) {
		t.Fatalf("block beyond the head: %v", err)
	}
	var rpcErr *RPCError
	if _, err := c.Forward(ctx, "eth_nothing", json.RawMessage(`[]`)); !errors.As(err, &rpcErr) || rpcErr.Message != "no such method" {
		t.Fatalf("JSON-RPC error answer: %v", err)
	}
}

func FuzzDecodeAnswer(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":"0x1"}`), false)
	f.Add([]byte(`[{"id":2,"result":"0x2"},{"id":1,"error":{"code":-1,"message":"x"}}]`), true)
	f.Add([]byte(`[{"id":1,"result":null}]`), true)
	f.Fuzz(func(t *testing.T, data []byte, batch bool) {
		var a, b types.HexUint64
		calls := []call{{method: "a", out: &a}}
		if batch {
			calls = append(calls, call{method: "b", out: &b})
		}
		decodeAnswer("fuzz", data, calls)
	})
}

func FuzzCheckProof(f *testing.F) {
	f.Add([]byte(`{"accountProof":["0xc0"],"balance":"0x0","storageProof":[]}`), 0)
	f.Add([]byte(`{"accountProof":[],"storageProof":[{"key":"0x1","value":"0x1","proof":["0x80"]}]}`), 1)
	f.Fuzz(func(t *testing.T, data []byte, slots int) {
		var p proofResult
		if json.Unmarshal(data, &p) != nil {
			return
		}
		ks := make([]types.Hash, max(0, min(slots, 4)))
		checkProof("fuzz", types.Hash(trie.EmptyRoot), who, ks, &p)
	})
}
