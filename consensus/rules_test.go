package consensus_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/consensus/sim"
)

// Every safety rule of the core is needed: with the rule switched off the
// simulator, running the real codec and signatures, finds the violation
// the rule exists to prevent, under fewer than 1/3 Byzantine power; with
// every rule on, the same seed is clean. A rule whose "off" run stays
// clean fails the test, so the test proves it can fail. TestRuleScenarios
// shows the same for the paper's rules with crafted, step-by-step runs.
func TestRulesNeeded(t *testing.T) {
	equal := func(n int) []int64 {
		s := make([]int64, n)
		for i := range s {
			s[i] = 1
		}
		return s
	}
	lossy := func(c sim.Config, drop float64, maxDelay time.Duration, partitions bool) sim.Config {
		c.Drop, c.MaxDelay, c.GST, c.Partitions = drop, maxDelay, 8*time.Second, partitions
		return c
	}
	for _, c := range []struct {
		name   string
		rule   consensus.Rule
		cfg    sim.Config
		want   string // the violation the rule prevents
		from   uint64 // first seed to try: rare interleavings were found by a wider search
		budget uint64 // seeds to try
		check  func(t *testing.T, on sim.Result)
	}{
		{name: "vote deduplication", rule: consensus.RuleDedup, want: "agreement", budget: 20,
			cfg: sim.Config{Stakes: equal(7), Byzantine: 2, Behaviour: sim.Equivocate, Heights: 10}},
		{name: "validator membership", rule: consensus.RuleMembership, want: "agreement", budget: 20,
			cfg: sim.Config{Stakes: equal(7), Byzantine: 2, Behaviour: sim.Sybil, Heights: 10}},
		{name: "signature (forged)", rule: consensus.RuleSignature, want: "agreement", budget: 20,
			cfg:   sim.Config{Stakes: equal(4), Byzantine: 1, Behaviour: sim.Forge, Heights: 10},
			check: rejectedSome},
		{name: "signature (replayed from another chain, height or round)", rule: consensus.RuleSignature, want: "agreement", budget: 20,
			cfg:   sim.Config{Stakes: equal(4), Byzantine: 1, Behaviour: sim.Replay, Heights: 10},
			check: rejectedSome},
		{name: "proposer check", rule: consensus.RuleProposer, want: "liveness", budget: 10,
			cfg: sim.Config{Stakes: equal(4), Byzantine: 1, Behaviour: sim.Hijack, Heights: 5, MaxTime: time.Minute}},
		{name: "persist before sign", rule: consensus.RulePersistFirst, want: "double-signed", budget: 100,
			cfg: sim.Config{Stakes: equal(4), Heights: 10, GST: 8 * time.Second, TornCrashes: 6}},
		{name: "valid round (L15, L16)", rule: consensus.RuleValidRound, want: "liveness", budget: 40,
			cfg: lossy(sim.Config{Stakes: equal(4), Byzantine: 1, Behaviour: sim.Selective, Heights: 15, MaxTime: 40 * time.Second}, 0.3, 150*time.Millisecond, false)},
		{name: "quorum > 2/3", rule: consensus.RuleQuorum, want: "agreement", budget: 50,
			cfg: lossy(sim.Config{Stakes: equal(7), Byzantine: 2, Behaviour: sim.Equivocate, Heights: 15}, 0.3, 150*time.Millisecond, true)},
		{name: "locking (L23, L29)", rule: consensus.RuleLocking, want: "agreement", from: 110, budget: 30,
			cfg: lossy(sim.Config{Stakes: equal(7), Byzantine: 2, Behaviour: sim.Equivocate, Heights: 15}, 0.3, 150*time.Millisecond, true)},
		{name: "polka of the valid round (L28)", rule: consensus.RulePolka, want: "agreement", from: 775, budget: 30,
			cfg: lossy(sim.Config{Stakes: equal(7), Byzantine: 2, Behaviour: sim.Equivocate, Heights: 15}, 0.5, 300*time.Millisecond, false)},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for seed := c.from; seed < c.from+c.budget; seed++ {
				cfg := c.cfg
				cfg.Seed = seed
				cfg.CoreConfig = func(cc *consensus.Config) { consensus.SwitchOff(cc, c.rule) }
				off := sim.Run(cfg)
				if !hasViolation(off, c.want) {
					continue
				}
				cfg.CoreConfig = nil
				on := sim.Run(cfg)
				if !on.OK() {
					t.Fatalf("seed %d fails even with every rule on: %v", seed, on.Violations)
				}
				if c.check != nil {
					c.check(t, on)
				}
				t.Logf("off: %s at seed %d (%s); on: clean", c.want, seed, first(off, c.want))
				return
			}
			t.Fatalf("switched off, no %s violation in seeds %d..%d", c.want, c.from, c.from+c.budget-1)
		})
	}
}

func rejectedSome(t *testing.T, on sim.Result) {
	if on.Rejected == 0 {
		t.Error("the attack sent nothing the cores had to reject")
	}
}

func hasViolation(r sim.Result, want string) bool { return first(r, want) != "" }

func first(r sim.Result, want string) string {
	for _, v := range r.Violations {
		if strings.Contains(v, want) {
			return v
		}
	}
	return ""
}

// Only test files switch rules off: no production file of the package
// assigns Config.off or builds a Config with it.
func TestRulesOffOnlyInTests(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, lhs := range n.Lhs {
					if sel, ok := lhs.(*ast.SelectorExpr); ok && sel.Sel.Name == "off" {
						t.Errorf("%s: assigns .off", fset.Position(n.Pos()))
					}
				}
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok && id.Name == "off" {
					t.Errorf("%s: sets off in a literal", fset.Position(n.Pos()))
				}
			}
			return true
		})
	}
}
