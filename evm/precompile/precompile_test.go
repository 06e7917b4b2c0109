package precompile

import (
	"bufio"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/types"
)

var setsByName = map[string]**Set{
	"Homestead": &Homestead, "Byzantium": &Byzantium, "Istanbul": &Istanbul,
	"Berlin": &Berlin, "Cancun": &Cancun, "Prague": &Prague, "Osaka": &Osaka,
}

type kat struct {
	file, name string
	set        *Set
	addr       types.Address
	input, out []byte
	gas        uint64
	wantErr    bool
}

func decodeHexField(t *testing.T, s string) []byte {
	t.Helper()
	s = strings.TrimSpace(s)
	if s == "-" {
		return nil
	}
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// loadKATs reads every testdata/*.txt file (format described in their
// headers).
func loadKATs(t *testing.T) []kat {
	t.Helper()
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	var out []kat
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		line := 0
		for sc.Scan() {
			line++
			l := strings.TrimSpace(sc.Text())
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			parts := strings.Split(l, "|")
			if len(parts) != 5 {
				t.Fatalf("%s:%d: want 5 fields, got %d", f, line, len(parts))
			}
			head := strings.Fields(parts[0])
			if len(head) != 3 {
				t.Fatalf("%s:%d: bad head %q", f, line, parts[0])
			}
			a, err := strconv.ParseUint(strings.TrimPrefix(head[0], "0x"), 16, 16)
			if err != nil {
				t.Fatalf("%s:%d: %v", f, line, err)
			}
			sp, ok := setsByName[head[1]]
			if !ok {
				t.Fatalf("%s:%d: unknown fork %q", f, line, head[1])
			}
			gas, err := strconv.ParseUint(strings.TrimSpace(parts[3]), 10, 64)
			if err != nil {
				t.Fatalf("%s:%d: %v", f, line, err)
			}
			k := kat{
				file: filepath.Base(f), name: head[2], set: *sp,
				input: decodeHexField(t, parts[1]), out: decodeHexField(t, parts[2]),
				gas: gas, wantErr: strings.TrimSpace(parts[4]) == "err",
			}
			k.addr[18], k.addr[19] = byte(a>>8), byte(a)
			out = append(out, k)
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestKnownAnswers(t *testing.T) {
	for _, k := range loadKATs(t) {
		t.Run(k.file+"/"+k.name, func(t *testing.T) {
			if k.gas > 1e8 && os.Getenv("CHAIND_SLOW_KAT") == "" {
				t.Skip("slow case (gas > 1e8); set CHAIND_SLOW_KAT=1 to run it")
			}
			c, ok := k.set.Get(k.addr)
			if !ok {
				t.Fatalf("no precompile at %x", k.addr)
			}
			if g := c.RequiredGas(k.input); g != k.gas {
				t.Errorf("gas = %d, want %d", g, k.gas)
			}
			out, err := c.Run(k.input)
			if errors.Is(err, ErrNotImplemented) {
				t.Skip(err)
			}
			if k.wantErr {
				if err == nil {
					t.Fatalf("want error, got output %x", out)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if hex.EncodeToString(out) != hex.EncodeToString(k.out) {
				t.Fatalf("output\n got %x\nwant %x", out, k.out)
			}
		})
	}
}

func TestSetAddresses(t *testing.T) {
	want := map[string]int{"Homestead": 4, "Byzantium": 8, "Istanbul": 9, "Berlin": 9, "Cancun": 10, "Prague": 17, "Osaka": 18}
	for name, sp := range setsByName {
		s := *sp
		addrs := s.Addresses()
		if len(addrs) != want[name] {
			t.Errorf("%s: %d addresses, want %d", name, len(addrs), want[name])
		}
		for i, a := range addrs {
			if i > 0 && string(addrs[i-1][:]) >= string(a[:]) {
				t.Errorf("%s: addresses not sorted at %d", name, i)
			}
			if _, ok := s.Get(a); !ok {
				t.Errorf("%s: Get(%x) missing", name, a)
			}
		}
	}
	var a types.Address
	a[0], a[19] = 1, 1
	if _, ok := Osaka.Get(a); ok {
		t.Error("address with high byte set treated as precompile")
	}
	a = types.Address{}
	if _, ok := Osaka.Get(a); ok {
		t.Error("zero address treated as precompile")
	}
	a[19] = 0x12
	if _, ok := Osaka.Get(a); ok {
		t.Error("0x12 treated as precompile")
	}
	if Frontier != Homestead {
		t.Error("Frontier and Homestead differ")
	}
}
