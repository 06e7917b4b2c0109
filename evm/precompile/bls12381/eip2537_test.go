package bls12381

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

type kat struct {
	Name     string `json:"name"`
	Input    string `json:"input"`
	Expected string `json:"expected"`
	Gas      uint64 `json:"gas"`
	Error    string `json:"error"`
}

type op struct {
	run func([]byte) ([]byte, error)
	gas func([]byte) uint64
}

func constGas(g uint64) func([]byte) uint64 { return func([]byte) uint64 { return g } }

// katOps maps a testdata file stem to the precompile it exercises. The
// g1mul/g2mul vectors were written for the single-multiplication
// precompiles of earlier drafts; they are one-pair MSMs now.
var katOps = map[string]op{
	"g1add":         {G1Add, constGas(G1AddGas)},
	"g2add":         {G2Add, constGas(G2AddGas)},
	"g1mul":         {G1MSM, G1MSMGas},
	"g2mul":         {G2MSM, G2MSMGas},
	"g1msm":         {G1MSM, G1MSMGas},
	"g2msm":         {G2MSM, G2MSMGas},
	"pairing":       {Pairing, PairingGas},
	"map_fp_to_g1":  {MapFpToG1, constGas(MapFpToG1Gas)},
	"map_fp2_to_g2": {MapFp2ToG2, constGas(MapFp2ToG2Gas)},
}

func loadKATs(t testing.TB, file string) []kat {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var ks []kat
	if err := json.Unmarshal(data, &ks); err != nil {
		t.Fatal(err)
	}
	return ks
}

func TestEIP2537Vectors(t *testing.T) {
	for stem, o := range katOps {
		t.Run(stem, func(t *testing.T) {
			ks := loadKATs(t, stem+".json")
			if len(ks) == 0 {
				t.Fatal("no vectors")
			}
			for _, k := range ks {
				in, err := hex.DecodeString(k.Input)
				if err != nil {
					t.Fatal(err)
				}
				out, err := o.run(in)
				if err != nil {
					t.Errorf("%s: %v", k.Name, err)
					continue
				}
				if got := hex.EncodeToString(out); got != k.Expected {
					t.Errorf("%s:\n got  %s\n want %s", k.Name, got, k.Expected)
				}
				if g := o.gas(in); g != k.Gas {
					t.Errorf("%s: gas %d, want %d", k.Name, g, k.Gas)
				}
			}
		})
		t.Run(stem+"_fail", func(t *testing.T) {
			for _, k := range loadKATs(t, stem+"_fail.json") {
				in, _ := hex.DecodeString(k.Input)
				if out, err := o.run(in); err == nil {
					t.Errorf("%s: accepted (%x), want error %q", k.Name, out, k.Error)
				}
			}
		})
	}
}
