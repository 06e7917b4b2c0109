package node

import (
	"testing"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// stakeTx sends a call to a system contract from key on the devnet and
// waits for its receipt; fee is what the sender paid for gas.
func stakeTx(t *testing.T, dn *Devnet, key *secp256k1.PrivateKey, to types.Address, value *uint256.Int, data []byte) *types.Receipt {
	rc, _ := stakeTxFee(t, dn, key, to, value, data)
	return rc
}

func stakeTxFee(t *testing.T, dn *Devnet, key *secp256k1.PrivateKey, to types.Address, value *uint256.Int, data []byte) (*types.Receipt, *uint256.Int) {
	t.Helper()
	return sendStakeTx(t, dn, key, to, value, data).await(t, dn)
}

// sentTx is a transaction in the first node's pool whose receipt is
// awaited.
type sentTx struct {
	tx    *types.Transaction
	inner *types.DynamicFeeTx
	from  types.Address
	start uint64 // the head when it was sent: no earlier block holds it
}

// sendStakeTx adds a call to a system contract from key to the first
// node's pool, at the sender's next nonce counting what it has pending.
func sendStakeTx(t *testing.T, dn *Devnet, key *secp256k1.PrivateKey, to types.Address, value *uint256.Int, data []byte) sentTx {
	t.Helper()
	n := dn.Nodes[0]
	from := types.Address(crypto.PrivkeyToAddress(key))
	inner := &types.DynamicFeeTx{Nonce: poolNonce(t, n, from), Gas: 500_000, To: &to, Data: data}
	inner.ChainID.SetUint64(n.Chain.Config.ChainID)
	inner.GasFeeCap.SetUint64(100e9)
	inner.GasTipCap.SetUint64(1e9)
	if value != nil {
		inner.Value.Set(value)
	}
	tx, err := types.SignTx(types.NewTx(inner), types.LatestSigner(n.Chain.Config.ChainID), key)
	if err != nil {
		t.Fatal(err)
	}
	start := n.Chain.Head().Number()
	if err := n.Pool.Add(tx); err != nil {
		t.Fatal(err)
	}
	return sentTx{tx: tx, inner: inner, from: from, start: start}
}

// await waits for s's block and returns its receipt, which must be a
// success, and the fee its sender paid.
func (s sentTx) await(t *testing.T, dn *Devnet) (*types.Receipt, *uint256.Int) {
	t.Helper()
	n := dn.Nodes[0]
	waitNonce(t, n, s.from, s.inner.Nonce+1)
	for num := s.start; num <= n.Chain.Head().Number(); num++ {
		b, err := n.Chain.BlockByNumber(num)
		if err != nil {
			t.Fatal(err)
		}
		for i, btx := range b.Transactions() {
			if btx.Hash() == s.tx.Hash() {
				rs, err := n.Chain.DB().Receipts(b.Hash())
				if err != nil {
					t.Fatal(err)
				}
				if rs[i].Status != types.ReceiptStatusSuccessful {
					t.Fatalf("transaction to %s failed (block %d)", s.inner.To, num)
				}
				used := rs[i].CumulativeGasUsed
				if i > 0 {
					used -= rs[i-1].CumulativeGasUsed
				}
				price := new(uint256.Int).Add(b.BaseFee(), &s.inner.GasTipCap)
				if price.Gt(&s.inner.GasFeeCap) {
					price.Set(&s.inner.GasFeeCap)
				}
				return rs[i], price.Mul(price, uint256.NewInt(used))
			}
		}
	}
	t.Fatal("receipt not found")
	return nil, nil
}

// fundValidators sends each of the devnet's validators 1 CHAIN from key,
// for the gas of their votes, and waits until they have it: before a
// proposal opens its voting period, so the votes need not wait for it.
func fundValidators(t *testing.T, dn *Devnet, key *secp256k1.PrivateKey) {
	t.Helper()
	var sent []sentTx
	for _, a := range dn.addrs {
		sent = append(sent, sendStakeTx(t, dn, key, a, ethers(1), nil))
	}
	for _, s := range sent {
		s.await(t, dn)
	}
}

// voteYes has every validator of the devnet vote yes on each proposal,
// all the votes sent before any is awaited: they land a block or two
// after the proposals opened, whatever the load, and not one wait per
// vote later (a voting period of seconds then ran out under load and the
// last votes reverted).
func voteYes(t *testing.T, dn *Devnet, ids ...uint64) {
	t.Helper()
	var sent []sentTx
	for i := range dn.addrs {
		vk, err := DevValidatorKey(i)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			sent = append(sent, sendStakeTx(t, dn, vk, staking.GovernanceAddress, nil, call(t, "Governance", "vote", id, uint64(staking.OptionYes))))
		}
	}
	for _, s := range sent {
		s.await(t, dn)
	}
}

func call(t *testing.T, contract, method string, args ...any) []byte {
	t.Helper()
	data, err := staking.EncodeCall(contract, method, args...)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// waitCycles waits until the head has crossed k more cycle boundaries.
func waitCycles(t *testing.T, n *Node, k uint64) {
	t.Helper()
	waitHead(t, n, types.DefaultCycles.First(types.DefaultCycles.Of(n.Chain.Head().Number())+k))
}

func ethers(n uint64) *uint256.Int {
	return new(uint256.Int).Mul(uint256.NewInt(n), uint256.NewInt(1e18))
}

// A devnet, driven by ordinary transactions to the system contracts: a
// new validator joins, becomes active at a cycle boundary and its node
// signs blocks, a delegator earns rewards and withdraws them to the wei,
// undelegating waits the cooldown, and a governance proposal changes
// maintenanceFee, which the network account then shows.
func TestStakingThroughTransactions(t *testing.T) {
	// Block time is real time, so the cooldown and the voting period are
	// cut to seconds.
	params := pos.DevParams()
	params.RestakeCooldown, params.VotingPeriod = 3_000, 3_000
	dn, err := StartDevnet(DevnetConfig{Validators: 4, BlockTime: 20 * time.Millisecond, HTTPPort: -1, ChainID: 8118, Params: &params})
	if err != nil {
		t.Fatal(err)
	}
	defer dn.Close()
	n := dn.Nodes[0]
	op, delegator := dn.Keys[0], dn.Keys[1]
	opAddr, delAddr := types.Address(crypto.PrivkeyToAddress(op)), types.Address(crypto.PrivkeyToAddress(delegator))
	consKey, _ := DevValidatorKey(50)
	// The newcomer's node follows the chain from genesis (it is no
	// validator yet) and signs once its stake makes it one.
	newcomer, err := New(Config{Genesis: n.cfg.Genesis, HTTPPort: -1, WSPort: -1, Validator: consKey,
		BlockTime: 20 * time.Millisecond, Transport: dn.net.Join(types.Address(crypto.PrivkeyToAddress(consKey)))})
	if err != nil {
		t.Fatal(err)
	}
	defer newcomer.Close()
	if err := newcomer.Start(); err != nil {
		t.Fatal(err)
	}
	nw := n.stake.Network()
	events, stop := nw.SubscribeNetwork(1024)
	defer stop()

	rc := stakeTx(t, dn, op, staking.StakingAddress, ethers(20), call(t, "Staking", "createValidator",
		"newcomer", "", "", "", "", ethers(1).Div(ethers(1), uint256.NewInt(20)), ethers(1).Div(ethers(1), uint256.NewInt(5)),
		ethers(1).Div(ethers(1), uint256.NewInt(100)), ethers(1), consKey.PubKey().SerializeCompressed(), "127.0.0.1:36656"))
	if len(rc.Logs) != 1 || rc.Logs[0].Address != staking.StakingAddress {
		t.Fatalf("createValidator logs %+v", rc.Logs)
	}
	stakeTx(t, dn, delegator, staking.StakingAddress, ethers(5), call(t, "Staking", "delegate", opAddr))
	waitCycles(t, n, 2)

	active := 0
	for _, nd := range nw.Nodes() {
		if nd.Status == "active" {
			active++
		}
	}
	if active != 5 {
		t.Fatalf("%d active nodes, want 5", active)
	}
	if ci, err := nw.CycleInfo(nil); err != nil || ci.Nodes.Active != 5 {
		t.Fatalf("cycle info %+v %v", ci, err)
	}
	// It signs: a certificate of a block whose set holds it carries its
	// precommit. A certificate keeps only the precommits that made its
	// quorum (4 of 5 here), so any one block may lack it: look over the
	// recent blocks of its membership, for a few more blocks if need be.
	signedAt := uint64(0)
	for tries := 0; signedAt == 0 && tries < 10; tries++ {
		waitHead(t, n, n.Chain.Head().Number()+2)
		head := n.Chain.Head().Number()
		for num := head - 1; num > 0 && num+30 > head && signedAt == 0; num-- {
			raw, err := n.Chain.Certificate(num)
			if err != nil {
				t.Fatal(err)
			}
			cert, _ := consensus.DecodeCertificate(raw)
			set, _ := n.Validators().ValidatorSet(num)
			if i, ok := set.Index(types.Address(crypto.PrivkeyToAddress(consKey))); ok && cert.Signers[i/8]&(1<<(i%8)) != 0 {
				signedAt = num
			}
		}
	}
	if signedAt == 0 {
		t.Fatal("the new validator signed no certificate")
	}
	if newcomer.Chain.Head().Number()+3 < n.Chain.Head().Number() {
		t.Fatalf("the newcomer's node is at %d, the network at %d", newcomer.Chain.Head().Number(), n.Chain.Head().Number())
	}
	// The subscription saw cycles close and the newcomer become active.
	var cycles int
	var joined bool
	for len(events) > 0 {
		e := <-events
		if e.Cycle != nil {
			cycles++
		}
		if e.Node != nil && types.Address(e.Node.Node.Operator) == opAddr && e.Node.To == "active" {
			joined = true
		}
	}
	if cycles == 0 || !joined {
		t.Fatalf("network events: %d cycles, newcomer active %v", cycles, joined)
	}

	// Rewards accrue (paid at cycle ends for the whole seconds since the
	// last payment) and are withdrawn to the wei.
	waitTime(t, n, n.Chain.Head().Time()+2)
	waitCycles(t, n, 1)
	st, _ := n.Chain.StateAt(n.Chain.Head().Root())
	before := st.GetBalance(delAddr).Clone()
	st.Release()
	rc, fee := stakeTxFee(t, dn, delegator, staking.DistributionAddress, nil, call(t, "Distribution", "withdrawDelegatorRewards", opAddr))
	got := new(uint256.Int).SetBytes(rc.Logs[0].Data)
	if got.IsZero() {
		t.Fatal("no rewards after a cycle as an active validator's delegator")
	}
	st, _ = n.Chain.StateAt(n.Chain.Head().Root())
	after := st.GetBalance(delAddr).Clone()
	st.Release()
	if want := new(uint256.Int).Sub(new(uint256.Int).Add(before, got), fee); !after.Eq(want) {
		t.Fatalf("balance %v, want %v (before %v + rewards %v - fee %v)", after, want, before, got, fee)
	}

	// Undelegating waits the cooldown, then pays the amount to the wei.
	rc = stakeTx(t, dn, delegator, staking.StakingAddress, nil, call(t, "Staking", "undelegate", opAddr, ethers(2)))
	done := new(uint256.Int).SetBytes(rc.Logs[0].Data[32:64]).Uint64()
	st, _ = n.Chain.StateAt(n.Chain.Head().Root())
	balance := st.GetBalance(delAddr).Clone()
	if es := staking.ReadUnbonding(st, &delAddr); len(es) != 1 || !es[0].Amount.Eq(ethers(2)) || es[0].Completion != done {
		t.Fatalf("unbonding %+v", es)
	}
	st.Release()
	if head := n.Chain.Head(); done < head.Time()+params.RestakeCooldown/1000-1 {
		t.Fatalf("completes at %d, block time %d: shorter than the cooldown", done, head.Time())
	}
	waitTime(t, n, done)
	st, _ = n.Chain.StateAt(n.Chain.Head().Root())
	if got, want := st.GetBalance(delAddr), new(uint256.Int).Add(balance, ethers(2)); !got.Eq(want) {
		t.Fatalf("after the cooldown: %v, want %v", got, want)
	}
	st.Release()

	// Governance: a proposal to change maintenanceFee, voted by the
	// genesis validators (funded for gas first), passes and shows in the
	// network account.
	fundValidators(t, dn, dn.Keys[3])
	proposer := dn.Keys[2]
	p, _ := n.Staking().StakingParams(nil)
	first := sendStakeTx(t, dn, proposer, staking.GovernanceAddress, p.MinDeposit, call(t, "Governance", "submitProposal",
		uint64(staking.ParamChangeProposal), "cheaper upkeep", "", "maintenanceFee", "7"))
	second := sendStakeTx(t, dn, proposer, staking.GovernanceAddress, p.MinDeposit, call(t, "Governance", "submitProposal",
		uint64(staking.ParamChangeProposal), "shorter cycles", "", "cycleLength", "7"))
	first.await(t, dn)
	second.await(t, dn)
	voteYes(t, dn, 1, 2)
	deadline := time.Now().Add(60 * time.Second)
	for id := uint64(1); id <= 2; {
		pr, err := n.Governance().Proposal(nil, id)
		if err != nil {
			t.Fatal(err)
		}
		if pr.Status == "passed" {
			id++
			continue
		}
		if pr.Status != "voting_period" || time.Now().After(deadline) {
			t.Fatalf("proposal %+v", pr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if acc, err := nw.NetworkAccount(); err != nil || acc.MaintenanceFee.Uint64() != 7 {
		t.Fatalf("network account %+v %v", acc, err)
	}
	checkCycleLengthChange(t, n, nw)
	checkSupply(t, n)
}

// checkCycleLengthChange follows a cycleLength change from 10 to 7 that
// has just passed: the cycle it passed in keeps its 10 blocks, the next
// one has 7, the chain goes on deciding under the new cycles (their
// validator sets found where the schedule puts them), and every cycle
// before the change is reported as it was.
func checkCycleLengthChange(t *testing.T, n *Node, nw interface {
	backend.Validators
	backend.NetworkEvents
}) {
	t.Helper()
	events, stop := nw.SubscribeNetwork(1024)
	defer stop()
	// The first block whose state holds the new length: the change passed
	// in its cycle.
	var passed uint64
	for num := n.Chain.Head().Number(); ; num-- {
		b, err := n.Chain.BlockByNumber(num)
		if err != nil {
			t.Fatal(err)
		}
		st, err := n.Chain.StateAt(b.Root())
		if err != nil {
			t.Fatal(err)
		}
		length := staking.ReadParams(st).CycleLength
		st.Release()
		if length != 7 {
			passed = num + 1
			break
		}
	}
	c := passed / 10 // still under the genesis rule
	before := map[uint64]backend.CycleInfo{}
	for cy := uint64(0); cy < c; cy++ {
		ci, err := nw.CycleInfo(&cy)
		if err != nil {
			t.Fatal(err)
		}
		before[cy] = *ci
	}
	switchAt := 10 * (c + 1)
	waitHead(t, n, switchAt+3*7+1)
	cycles, err := nw.Cycles()
	if err != nil {
		t.Fatal(err)
	}
	want := []types.Era{{Start: 0, Cycle: 0, CycleRule: types.DefaultCycleRule},
		{Start: switchAt, Cycle: c + 1, CycleRule: types.CycleRule{Length: 7, Selection: 5}}}
	if eras := cycles.Eras(); len(eras) != 2 || eras[0] != want[0] || eras[1] != want[1] {
		t.Fatalf("passed at block %d: eras %+v, want %+v", passed, eras, want)
	}
	t.Logf("cycleLength 7 passed at block %d (cycle %d): eras %+v", passed, c, cycles.Eras())
	for cy, was := range before {
		if ci, err := nw.CycleInfo(&cy); err != nil || *ci != was {
			t.Fatalf("cycle %d reported %+v %v, before the change %+v", cy, ci, err, was)
		}
	}
	// Block times are whole seconds; a cycle record keeps milliseconds.
	// The cycle feed closes each cycle at its last block under its era's
	// rule (it runs from before the switch, so it sees cycle c+2 close).
	closed := map[uint64]bool{}
	for len(events) > 0 {
		ev := <-events
		if ev.Cycle == nil {
			continue
		}
		cy := ev.Cycle.Counter
		last, _ := n.Chain.BlockByNumber(cycles.Last(cy))
		if cy > c && cycles.Last(cy) != switchAt+7*(cy-c)-1 || ev.Cycle.End.Unix() != int64(last.Time()) {
			t.Fatalf("cycle %d closed by the feed at %v, its last block %d has time %d", cy, ev.Cycle.End, cycles.Last(cy), last.Time())
		}
		closed[cy] = true
	}
	if !closed[c+2] {
		t.Fatalf("the feed did not close cycle %d (closed %v)", c+2, closed)
	}
	// Each cycle's record spans its blocks: opened at its first block,
	// closed at its last, under the rule of its era.
	for cy, span := range map[uint64][2]uint64{c: {10 * c, switchAt - 1}, c + 1: {switchAt, switchAt + 6}, c + 2: {switchAt + 7, switchAt + 13}} {
		ci, err := nw.CycleInfo(&cy)
		if err != nil {
			t.Fatal(err)
		}
		first, _ := n.Chain.BlockByNumber(span[0])
		last, _ := n.Chain.BlockByNumber(span[1])
		from, to := pos.TimeMs(first.HeaderRef()), pos.TimeMs(last.HeaderRef()) // to the millisecond
		if ci.Start.UnixMilli() != int64(from) || ci.End.UnixMilli() != int64(to) {
			t.Fatalf("cycle %d: %v..%v, want the times of blocks %d..%d (%d..%d ms)", cy, ci.Start, ci.End, span[0], span[1], from, to)
		}
	}
}

// waitTime waits until the head block's time reaches ts.
func waitTime(t *testing.T, n *Node, ts uint64) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for n.Chain.Head().Time() < ts {
		if time.Now().After(deadline) {
			t.Fatalf("head time stuck at %d, want %d", n.Chain.Head().Time(), ts)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stakingDevnet starts a 2-validator proof-of-stake devnet (stopped with
// the test) and returns it with its validators as the staking contracts
// list them.
func stakingDevnet(t *testing.T) (*Devnet, []backend.StakingValidator) {
	t.Helper()
	dn, err := StartDevnet(DevnetConfig{Validators: 2, BlockTime: 20 * time.Millisecond, HTTPPort: -1, ChainID: 8118})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dn.Close)
	vals, err := dn.Nodes[0].Staking().StakingValidators(nil)
	if err != nil || len(vals) != 2 {
		t.Fatalf("native validators %v %v", vals, err)
	}
	return dn, vals
}
