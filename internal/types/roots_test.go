package types_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
	"github.com/chaind/chaind/trie"
)

// TestDerivedRoots plugs the trie's stack trie into DeriveRoot and checks
// the transactions and withdrawals roots of every block of the
// execution-apis chains, and the receipts roots of the blocks whose raw
// receipts were recorded. (An external test package, so that types itself
// never imports trie.)
func TestDerivedRoots(t *testing.T) {
	vec := conformance.VectorsDir("../..")
	if vec == "" {
		t.Skip("shared vectors absent (../shared/vectors); skipping derived-root checks")
	}
	for _, name := range []string{"execution-apis", "execution-apis-latest"} {
		dir := filepath.Join(vec, name, "tests")
		data, err := os.ReadFile(filepath.Join(dir, "chain.rlp"))
		if err != nil {
			t.Fatal(err)
		}
		var blocks []*types.Block
		for len(data) > 0 {
			_, _, rest, err := rlp.Split(data)
			if err != nil {
				t.Fatal(err)
			}
			b, err := types.DecodeBlock(data[:len(data)-len(rest)])
			if err != nil {
				t.Fatal(err)
			}
			blocks = append(blocks, b)
			data = rest
		}
		h := trie.NewStackTrie()
		for _, b := range blocks {
			hdr := b.HeaderRef()
			if got := types.DeriveTxRoot(b.Transactions(), h); got != hdr.TxHash {
				t.Errorf("%s block %d: tx root %s, want %s", name, b.Number(), got, hdr.TxHash)
			}
			if hdr.WithdrawalsHash != nil {
				if got := types.DeriveWithdrawalsRoot(b.Withdrawals(), h); got != *hdr.WithdrawalsHash {
					t.Errorf("%s block %d: withdrawals root %s, want %s", name, b.Number(), got, hdr.WithdrawalsHash)
				}
			}
		}
		// Raw receipts of single blocks: debug_getRawReceipts.
		files, _ := filepath.Glob(filepath.Join(dir, "debug_getRawReceipts", "*.io"))
		checked := 0
		for _, f := range files {
			blockNum, receipts := readRawReceipts(t, f)
			if receipts == nil || blockNum == 0 || blockNum > uint64(len(blocks)) {
				continue
			}
			if got := types.DeriveReceiptRoot(receipts, h); got != blocks[blockNum-1].HeaderRef().ReceiptHash {
				t.Errorf("%s block %d: receipts root %s, want %s", name, blockNum, got, blocks[blockNum-1].HeaderRef().ReceiptHash)
			}
			checked++
		}
		if checked == 0 {
			t.Errorf("%s: no receipt roots checked", name)
		}
		t.Logf("%s: %d blocks' tx and withdrawal roots, %d receipt roots", name, len(blocks), checked)
	}
}

func readRawReceipts(t *testing.T, file string) (uint64, []*types.Receipt) {
	fh, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 16<<20)
	var num uint64
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, ">> ") {
			var req struct{ Params []string }
			if json.Unmarshal([]byte(line[3:]), &req) != nil || len(req.Params) == 0 {
				return 0, nil
			}
			p := req.Params[0]
			if !strings.HasPrefix(p, "0x") {
				p = "0x" + p
			}
			num, _ = types.ParseUint64(p)
		}
		if strings.HasPrefix(line, "<< ") {
			var resp struct{ Result []string }
			if json.Unmarshal([]byte(line[3:]), &resp) != nil || resp.Result == nil {
				return 0, nil
			}
			var out []*types.Receipt
			for _, s := range resp.Result {
				raw, err := types.ParseBytes(s)
				if err != nil {
					t.Fatal(err)
				}
				r := new(types.Receipt)
				if err := r.UnmarshalBinary(raw); err != nil {
					t.Fatal(err)
				}
				out = append(out, r)
			}
			return num, out
		}
	}
	return 0, nil
}
