package bft

import (
	"context"
	"strings"
	"testing"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/consensus/cycle"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
)

const appChainID = 8118

// appRig is a validator set of four and one chain application per
// validator, each on its own chain from one genesis.
type appRig struct {
	t       *testing.T
	signers []*consensus.Signer
	sched   *cycle.Schedule
	apps    []*ChainApp
	chains  []*chain.Chain
	pools   []*txpool.Pool
	sender  *devload.Signer
}

// poolHead describes the next block of c to a pool (as the node does).
func poolHead(t *testing.T, c *chain.Chain) txpool.Head {
	h := c.Head().HeaderRef()
	st, err := c.StateAt(h.Root)
	if err != nil {
		t.Fatal(err)
	}
	return txpool.Head{Signer: c.Config.Signer(h.Number+1, h.Time+1), Fork: c.Config.Fork(h.Number+1, h.Time+1),
		GasLimit: h.GasLimit, BaseFee: c.Config.CalcBaseFee(h), State: st}
}

// newAppRig builds n validators' applications (keys derived from seed);
// blocks hold gasLimit gas.
func newAppRig(t *testing.T, seed byte, n int, gasLimit uint64, onlyWithTxs bool) *appRig {
	return newAppRigEngine(t, seed, n, gasLimit, onlyWithTxs, nil)
}

// newAppRigEngine is newAppRig with each chain's engine made by engine
// from the rig's validator schedule (nil: Ethereum's rules).
func newAppRigEngine(t *testing.T, seed byte, n int, gasLimit uint64, onlyWithTxs bool, engine func(consensus.ValidatorSource) chain.Engine) *appRig {
	r := &appRig{t: t, sender: devload.NewSigner(appChainID)}
	var members []consensus.Validator
	for i := range n {
		key := make([]byte, 32)
		key[0], key[1], key[31] = 9, seed, byte(i+1)
		s, err := consensus.NewSigner(appChainID, key)
		if err != nil {
			t.Fatal(err)
		}
		r.signers = append(r.signers, s)
		members = append(members, consensus.Validator{Address: s.Address(), Power: 1})
	}
	set, err := consensus.NewValidatorSet(members)
	if err != nil {
		t.Fatal(err)
	}
	r.sched = cycle.NewSchedule(set)
	keys := devload.Keys("bft-app", 2)
	g := chain.DevGenesis(appChainID, []types.Address{devload.Address(keys[0]), devload.Address(keys[1])}, 1_700_000_000)
	g.GasLimit = chain.Uint64(gasLimit)
	for i := range n {
		var e chain.Engine
		if engine != nil {
			e = engine(r.sched)
		}
		c, err := chain.Open(g, store.NewMem(), e)
		if err != nil {
			t.Fatal(err)
		}
		p := txpool.New(txpool.DefaultConfig, poolHead(t, c))
		app := NewChainApp(ChainAppConfig{Chain: c, Pool: p, Validators: r.sched, Coinbase: r.signers[i].Address(),
			OnlyWithTransactions: onlyWithTxs, Committed: func(*types.Block) { p.Reset(poolHead(t, c)) }})
		t.Cleanup(app.Close)
		r.chains, r.pools, r.apps = append(r.chains, c), append(r.pools, p), append(r.apps, app)
	}
	return r
}

// transfers signs count transfers of the rig's first funded key.
func (r *appRig) transfers(nonce uint64, count int) []*types.Transaction {
	txs, err := r.sender.Workload(devload.KindTransfer, devload.Keys("bft-app", 2)[0], nonce, count, types.Address{})
	if err != nil {
		r.t.Fatal(err)
	}
	return txs
}

// certify makes the certificate of a decided value from the precommits of
// the given validators.
func (r *appRig) certify(height uint64, id types.Hash, who ...int) *consensus.Certificate {
	set, err := r.sched.ValidatorSet(height)
	if err != nil {
		r.t.Fatal(err)
	}
	var pcs []consensus.Vote
	for _, i := range who {
		v := consensus.Vote{Type: consensus.Precommit, Height: height, ID: id, Validator: r.signers[i].Address()}
		r.signers[i].SignVote(&v)
		pcs = append(pcs, v)
	}
	c, err := consensus.NewCertificate(set, height, 0, id, pcs)
	if err != nil {
		r.t.Fatal(err)
	}
	return c
}

// decide commits v with a certificate on every application.
func (r *appRig) decide(height uint64, v consensus.Value) *consensus.Certificate {
	who := []int{0}
	if len(r.signers) > 1 {
		who = []int{0, 1, 2}
	}
	cert := r.certify(height, v.ID, who...)
	for i, a := range r.apps {
		if err := a.Commit(v, cert); err != nil {
			r.t.Fatalf("commit of %d on app %d: %v", height, i, err)
		}
	}
	return cert
}

// A proposal is valid only if the chain's own validation accepts the block
// and it carries a certificate of its parent that verifies against the
// parent height's validator set and that the block commits to. Each case
// breaks one of these.
//
// The rules are the same whether the chain runs Ethereum's engine (the
// driver checks the certificate) or the proof-of-stake engine (its
// VerifyHeader does, with the consensus data).
func TestChainAppValidate(t *testing.T) {
	for name, engine := range map[string]func(consensus.ValidatorSource) chain.Engine{
		"ethereum": nil,
		"pos":      func(vals consensus.ValidatorSource) chain.Engine { return pos.NewWithValidators(vals) },
	} {
		t.Run(name, func(t *testing.T) { testChainAppValidate(t, engine) })
	}
}

func testChainAppValidate(t *testing.T, engine func(consensus.ValidatorSource) chain.Engine) {
	r := newAppRigEngine(t, 1, 4, 30_000_000, false, engine)
	ctx := context.Background()
	v1, err := r.apps[0].Propose(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.apps[1].Validate(ctx, 1, v1); err != nil {
		t.Fatalf("block 1: %v", err)
	}
	cert1 := r.decide(1, v1)
	for _, tx := range r.transfers(0, 3) {
		if err := r.pools[0].Add(tx); err != nil {
			t.Fatal(err)
		}
	}
	a, b := r.apps[0], r.apps[1]
	head := r.chains[0].Head()
	// Each block built is another (its time moves on): a block validated
	// once is not checked again.
	built := uint64(0)
	build := func(beaconRoot types.Hash) *types.Block {
		built++
		built, err := r.chains[0].BuildBlock(chain.BuildParams{Coinbase: r.signers[0].Address(), Time: head.Time() + built,
			ParentBeaconRoot: beaconRoot}, r.transfers(0, 3))
		if err != nil {
			t.Fatal(err)
		}
		return built.Block
	}
	good := build(pos.CertRoot(cert1.Encode()))
	badRoot := func() *types.Block {
		h := good.Header()
		h.Root = types.Hash{0xba, 0xd}
		return types.NewBlock(h, good.Body())
	}()
	otherCert := r.certify(1, types.Hash{0x01}, 0, 1, 2).Encode()
	weakCert := func() []byte { // cert1 less its first signer: half the power
		c := *r.certify(1, v1.ID, 0, 1, 2)
		c.Signers = append([]byte(nil), c.Signers...)
		for i := range 8 * len(c.Signers) {
			if c.Signers[i/8]&(1<<(i%8)) != 0 {
				c.Signers[i/8] &^= 1 << (i % 8)
				break
			}
		}
		c.Signatures = c.Signatures[1:]
		return c.Encode()
	}()
	altCert := r.certify(1, v1.ID, 0, 1, 3).Encode() // a quorum too, but not the one the block commits to
	outsiders := newAppRig(t, 2, 4, 30_000_000, false)
	alienCert := outsiders.certify(1, v1.ID, 0, 1, 2, 3).Encode()

	for _, tc := range []struct {
		name   string
		height uint64
		value  consensus.Value
		err    string // "" for valid
	}{
		{"valid", 2, EncodeValue(good, cert1.Encode()), ""},
		{"built by the validator itself", 2, func() consensus.Value {
			v, err := a.Propose(ctx, 2)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}(), ""},
		{"wrong height", 3, EncodeValue(good, cert1.Encode()), "proposed at height"},
		{"id is not the block hash", 2, consensus.Value{ID: types.Hash{1}, Data: EncodeValue(good, cert1.Encode()).Data}, "not the block hash"},
		{"no parent certificate", 2, EncodeValue(build(types.Hash{}), nil), "parent certificate"},
		{"certificate of another block", 2, EncodeValue(build(pos.CertRoot(otherCert)), otherCert), "parent certificate"},
		{"certificate without a quorum", 2, EncodeValue(build(pos.CertRoot(weakCert)), weakCert), "parent certificate"},
		{"certificate of outsiders", 2, EncodeValue(build(pos.CertRoot(alienCert)), alienCert), "parent certificate"},
		{"block commits to another certificate", 2, EncodeValue(build(pos.CertRoot(cert1.Encode())), altCert), "does not commit"},
		{"state root the execution does not give", 2, EncodeValue(badRoot, cert1.Encode()), "root"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := b.Validate(ctx, tc.height, tc.value)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case tc.err != "" && err == nil:
				t.Fatal("accepted")
			case tc.err != "" && !strings.Contains(err.Error(), tc.err):
				t.Fatalf("rejected for another reason: %v (want %q)", err, tc.err)
			}
		})
	}

	// The decided block is stored with its certificate, which verifies
	// against the validator set of its height.
	v2 := EncodeValue(good, cert1.Encode())
	r.decide(2, v2)
	for i, c := range r.chains {
		if c.Head().Hash() != good.Hash() {
			t.Fatalf("chain %d: head %d %s", i, c.Head().Number(), c.Head().Hash())
		}
		raw, err := c.Certificate(2)
		if err != nil {
			t.Fatal(err)
		}
		cert, err := consensus.DecodeCertificate(raw)
		if err != nil {
			t.Fatal(err)
		}
		set, _ := r.sched.ValidatorSet(2)
		if err := consensus.VerifyCertificate(appChainID, set, 2, good.Hash(), cert); err != nil {
			t.Fatalf("chain %d: stored certificate: %v", i, err)
		}
	}
}

// waitProbe reports when Propose starts waiting (it asks for Done only
// then), so the test knows Propose saw the pool as it was.
type waitProbe struct {
	context.Context
	waiting chan struct{}
}

func (p waitProbe) Done() <-chan struct{} {
	select {
	case p.waiting <- struct{}{}:
	default:
	}
	return p.Context.Done()
}

func proposeAsync(a *ChainApp, ctx context.Context, h uint64) <-chan consensus.Value {
	out := make(chan consensus.Value, 1)
	go func() {
		v, _ := a.Propose(ctx, h)
		out <- v
	}()
	return out
}

func txCount(t *testing.T, v consensus.Value) int {
	t.Helper()
	b, _, err := DecodeValue(v)
	if err != nil {
		t.Fatal(err)
	}
	return len(b.Transactions())
}

// A validator that proposes only blocks with transactions seals nothing
// for a queued (nonce-gapped) transaction, seals as soon as one becomes
// pending, and with more pending than a block takes proposes the next
// block at once.
func TestChainAppOnlyWithTransactions(t *testing.T) {
	r := newAppRig(t, 1, 1, 2*21_000, true) // two transfers per block
	a := r.apps[0]
	txs := r.transfers(0, 6)
	if err := r.pools[0].Add(txs[1]); err != nil { // nonce 1: queued behind the gap
		t.Fatal(err)
	}
	probe := waitProbe{Context: context.Background(), waiting: make(chan struct{}, 1)}
	got := proposeAsync(a, probe, 1)
	select {
	case v := <-got:
		t.Fatalf("proposed a block of %d transactions with only a queued one", txCount(t, v))
	case <-probe.waiting:
	}
	for _, tx := range append([]*types.Transaction{txs[0]}, txs[2:]...) {
		if err := r.pools[0].Add(tx); err != nil {
			t.Fatal(err)
		}
	}
	v := within(t, got, "proposal once transactions are pending", nil)
	if n := txCount(t, v); n != 2 {
		t.Fatalf("block 1 has %d transactions, want 2", n)
	}
	for h := uint64(2); h <= 3; h++ {
		r.decide(h-1, v)
		probe := waitProbe{Context: context.Background(), waiting: make(chan struct{}, 1)}
		v = within(t, proposeAsync(a, probe, h), "back-to-back proposal", nil)
		if len(probe.waiting) > 0 {
			t.Fatalf("block %d: waited with transactions pending", h)
		}
		if n := txCount(t, v); n != 2 {
			t.Fatalf("block %d has %d transactions, want 2", h, n)
		}
	}
}
