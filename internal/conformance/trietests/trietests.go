// Package trietests runs ethereum/tests TrieTests against package trie:
// root hashes of plain and secure tries built in order (with deletions) or
// in any order, and key-order neighbours found with the trie iterator.
package trietests

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/trie"
)

// Run runs every TrieTests file below dir.
func Run(dir string, args []string, r *conformance.Report) error {
	fs := flag.NewFlagSet("conformance trie", flag.ContinueOnError)
	if err := conformance.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	files, err := conformance.JSONFiles(dir)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := RunFile(f, r); err != nil {
			return err
		}
	}
	return nil
}

// RunFile runs the tests of one file; its format follows from its name.
func RunFile(file string, r *conformance.Report) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	base := filepath.Base(file)
	if strings.Contains(base, "nextprev") {
		return runNextPrev(base, data, r)
	}
	var tests map[string]json.RawMessage
	if err := json.Unmarshal(data, &tests); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	secure := strings.Contains(strings.ToLower(base), "securetrie")
	for _, name := range sortedKeys(tests) {
		caseName := base + "/" + name
		if err := runRootTest(tests[name], secure); err != nil {
			r.Fail(caseName, "%v", err)
		} else {
			r.Pass(caseName)
		}
	}
	return nil
}

type rootTest struct {
	In         json.RawMessage `json:"in"`
	Root       string          `json:"root"`
	HexEncoded bool            `json:"hexEncoded"`
}

type op struct {
	key, val []byte // val nil: delete
}

// parse decodes a key or value string: 0x-prefixed hex, or the raw bytes
// of the string.
func parse(s string, hexOnly bool) ([]byte, error) {
	if strings.HasPrefix(s, "0x") {
		return hex.DecodeString(s[2:])
	}
	if hexOnly {
		return hex.DecodeString(s)
	}
	return []byte(s), nil
}

func runRootTest(raw json.RawMessage, secure bool) error {
	var tc rootTest
	if err := json.Unmarshal(raw, &tc); err != nil {
		return err
	}
	want, err := parse(tc.Root, true)
	if err != nil || len(want) != 32 {
		return fmt.Errorf("bad root %q", tc.Root)
	}
	ops, anyOrder, err := parseIn(tc.In, tc.HexEncoded)
	if err != nil {
		return err
	}
	if secure {
		// Through SecureTrie, which hashes the keys itself.
		st, err := trie.NewSecure(trie.EmptyRoot, nil)
		if err != nil {
			return err
		}
		for _, o := range ops {
			if err := st.Update(o.key, o.val); err != nil {
				return err
			}
		}
		if got := st.Hash(); !bytes.Equal(got[:], want) {
			return fmt.Errorf("secure trie root %x, want %x", got, want)
		}
		for i := range ops {
			h := crypto.Keccak256(ops[i].key)
			ops[i].key = h[:]
		}
	}
	got, final, err := build(ops)
	if err != nil {
		return err
	}
	if !bytes.Equal(got[:], want) {
		return fmt.Errorf("root %x, want %x", got, want)
	}
	if anyOrder {
		// Any insertion order must give the same root.
		rng := rand.New(rand.NewSource(int64(len(ops))))
		for k := 0; k < 4; k++ {
			shuffled := append([]op(nil), ops...)
			rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			if got, _, err := build(shuffled); err != nil || got != [32]byte(want) {
				return fmt.Errorf("shuffled insertion: root %x (%v), want %x", got, err, want)
			}
		}
	}
	return checkFinal(final, [32]byte(want))
}

// parseIn reads "in": a list of [key, value|null] pairs applied in order,
// or an object whose pairs may be applied in any order.
func parseIn(in json.RawMessage, hexOnly bool) ([]op, bool, error) {
	var list [][2]*string
	if err := json.Unmarshal(in, &list); err == nil {
		ops := make([]op, 0, len(list))
		for _, p := range list {
			if p[0] == nil {
				return nil, false, fmt.Errorf("null key")
			}
			k, err := parse(*p[0], hexOnly)
			if err != nil {
				return nil, false, err
			}
			o := op{key: k}
			if p[1] != nil {
				if o.val, err = parse(*p[1], hexOnly); err != nil {
					return nil, false, err
				}
			}
			ops = append(ops, o)
		}
		return ops, false, nil
	}
	var obj map[string]*string
	if err := json.Unmarshal(in, &obj); err != nil {
		return nil, false, fmt.Errorf("in: %w", err)
	}
	ops := make([]op, 0, len(obj))
	for _, ks := range sortedKeys(obj) {
		k, err := parse(ks, hexOnly)
		if err != nil {
			return nil, false, err
		}
		o := op{key: k}
		if v := obj[ks]; v != nil {
			if o.val, err = parse(*v, hexOnly); err != nil {
				return nil, false, err
			}
		}
		ops = append(ops, o)
	}
	return ops, true, nil
}

// build applies ops to a fresh trie and returns its root and final contents.
func build(ops []op) ([32]byte, map[string][]byte, error) {
	t := trie.NewEmpty()
	final := map[string][]byte{}
	for _, o := range ops {
		if err := t.Update(o.key, o.val); err != nil {
			return [32]byte{}, nil, err
		}
		if len(o.val) == 0 {
			delete(final, string(o.key))
		} else {
			final[string(o.key)] = o.val
		}
	}
	return t.Hash(), final, nil
}

// checkFinal cross-checks the other ways to reach the same root: a trie
// built from the final contents only, the stack trie over sorted keys, a
// commit and reopen, and proofs of every key.
func checkFinal(final map[string][]byte, want [32]byte) error {
	keys := sortedKeys(final)
	st := trie.NewStackTrie()
	fresh := trie.NewEmpty()
	for _, k := range keys {
		if err := st.Update([]byte(k), final[k]); err != nil {
			return fmt.Errorf("stack trie: %w", err)
		}
		fresh.Update([]byte(k), final[k])
	}
	if got := st.Hash(); got != want {
		return fmt.Errorf("stack trie root %x, want %x", got, want)
	}
	db := trie.NewMemoryDB()
	root, set := fresh.Commit()
	if root != want {
		return fmt.Errorf("final contents give root %x, want %x", root, want)
	}
	if err := db.Update(set); err != nil {
		return err
	}
	reopened, err := trie.New(root, db)
	if err != nil {
		return fmt.Errorf("reopen: %w", err)
	}
	for _, k := range keys {
		v, err := reopened.Get([]byte(k))
		if err != nil || !bytes.Equal(v, final[k]) {
			return fmt.Errorf("reopened Get(%x) = %x, %v; want %x", k, v, err, final[k])
		}
		proof, err := reopened.Prove([]byte(k))
		if err != nil {
			return fmt.Errorf("prove %x: %w", k, err)
		}
		v, err = trie.VerifyProof(root, []byte(k), proof)
		if err != nil || !bytes.Equal(v, final[k]) {
			return fmt.Errorf("proof of %x gives %x, %v; want %x", k, v, err, final[k])
		}
	}
	return nil
}

type nextPrevTest struct {
	In    []string    `json:"in"`
	Tests [][3]string `json:"tests"`
}

// runNextPrev checks that the iterator finds each probe's neighbours: the
// greatest key below it and the smallest key above it.
func runNextPrev(base string, data []byte, r *conformance.Report) error {
	var tests map[string]nextPrevTest
	if err := json.Unmarshal(data, &tests); err != nil {
		return fmt.Errorf("%s: %w", base, err)
	}
	for _, name := range sortedKeys(tests) {
		tc := tests[name]
		t := trie.NewEmpty()
		for _, k := range tc.In {
			t.Update([]byte(k), []byte(k))
		}
		for i, row := range tc.Tests {
			caseName := fmt.Sprintf("%s/%s/%d(%q)", base, name, i, row[0])
			prev, next, err := neighbours(t, []byte(row[0]))
			switch {
			case err != nil:
				r.Fail(caseName, "%v", err)
			case string(prev) != row[1] || string(next) != row[2]:
				r.Fail(caseName, "prev %q next %q, want %q %q", prev, next, row[1], row[2])
			default:
				r.Pass(caseName)
			}
		}
	}
	return nil
}

func neighbours(t *trie.Trie, probe []byte) (prev, next []byte, err error) {
	it := t.NewIterator(probe)
	for it.Next() {
		if !bytes.Equal(it.Key(), probe) {
			next = it.Key()
			break
		}
	}
	if it.Err() != nil {
		return nil, nil, it.Err()
	}
	it = t.NewIterator(nil)
	for it.Next() && bytes.Compare(it.Key(), probe) < 0 {
		prev = it.Key()
	}
	return prev, next, it.Err()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
