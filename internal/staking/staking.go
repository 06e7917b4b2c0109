package staking

import (
	"net"
	"strconv"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
)

// Gas costs of the staking methods, on top of the transaction's intrinsic
// gas. Each approximates the storage the method writes (about 5,000 gas a
// word) and reads, so the system contracts are priced like the Solidity
// they replace: a delegate writes about five words.
const (
	gasCreateValidator = 150_000
	gasEditValidator   = 40_000
	gasDelegate        = 30_000
	gasUndelegate      = 45_000
	gasRedelegate      = 55_000
	gasUnjail          = 20_000
	gasView            = 5_000
)

// doNotModify in an editValidator string argument keeps the old value.
const doNotModify = "[do-not-modify]"

// Limits on a validator's description, as the Cosmos SDK sets them.
const (
	maxMoniker  = 70
	maxIdentity = 3000
	maxWebsite  = 140
	maxSecurity = 140
	maxDetails  = 280
	maxNetAddr  = 256
)

// commissionChangeInterval is how often (seconds) a validator may change
// its commission rate.
const commissionChangeInterval = 86_400

// Events of the staking contract.
var (
	evCreateValidator = newEvent("CreateValidator", "address indexed validator", "uint256 amount")
	evEditValidator   = newEvent("EditValidator", "address indexed validator", "uint256 commissionRate", "uint256 minSelfDelegation")
	evDelegate        = newEvent("Delegate", "address indexed delegator", "address indexed validator", "uint256 amount", "uint256 shares")
	evUnbond          = newEvent("Unbond", "address indexed delegator", "address indexed validator", "uint256 amount", "uint256 completionTime")
	evRedelegate      = newEvent("Redelegate", "address indexed delegator", "address indexed srcValidator", "address indexed dstValidator", "uint256 amount")
	evUnjail          = newEvent("Unjail", "address indexed validator")
	evLeftEarly       = newEvent("LeftNetworkEarly", "address indexed validator", "uint256 penalty")
)

var stakingEvents = []*event{evCreateValidator, evEditValidator, evDelegate, evUnbond, evRedelegate, evUnjail, evLeftEarly}

var descriptionIn = []string{"string moniker", "string identity", "string website", "string securityContact", "string details"}

func concat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var stakingMethods = []*method{
	{name: "createValidator", payable: true, write: true, gas: gasCreateValidator, run: createValidator,
		in:  concat(descriptionIn, []string{"uint256 commissionRate", "uint256 maxRate", "uint256 maxChangeRate", "uint256 minSelfDelegation", "bytes pubkey", "string netAddress"}),
		out: []string{"bool success"}},
	{name: "editValidator", write: true, gas: gasEditValidator, run: editValidator,
		in:  concat(descriptionIn, []string{"string netAddress", "int256 commissionRate", "int256 minSelfDelegation"}),
		out: []string{"bool success"}},
	{name: "delegate", payable: true, write: true, gas: gasDelegate, run: delegate, in: []string{"address validator"}, out: []string{"bool success"}},
	{name: "undelegate", write: true, gas: gasUndelegate, run: undelegate, in: []string{"address validator", "uint256 amount"}, out: []string{"uint256 completionTime"}},
	{name: "redelegate", write: true, gas: gasRedelegate, run: redelegate, in: []string{"address srcValidator", "address dstValidator", "uint256 amount"}, out: []string{"bool success"}},
	{name: "unjail", write: true, gas: gasUnjail, run: unjail, out: []string{"bool success"}},
	{name: "getValidator", gas: gasView, run: getValidator, in: []string{"address validator"},
		out: concat(descriptionIn, []string{"uint256 commissionRate", "uint256 maxRate", "uint256 maxChangeRate", "uint256 minSelfDelegation",
			"bytes pubkey", "string netAddress", "uint256 tokens", "uint256 shares", "uint8 status", "bool jailed", "uint256 jailedUntil"})},
	{name: "getValidators", gas: gasView, run: getValidators, out: []string{"address[] validators"}},
	{name: "getDelegation", gas: gasView, run: getDelegation, in: []string{"address delegator", "address validator"}, out: []string{"uint256 shares", "uint256 amount"}},
	{name: "getDelegations", gas: gasView, run: getDelegations, in: []string{"address delegator"}, out: []string{"address[] validators", "uint256[] amounts"}},
	{name: "getUnbondingDelegations", gas: gasView, run: getUnbondingDelegations, in: []string{"address delegator"},
		out: []string{"address[] validators", "uint256[] amounts", "uint256[] completionTimes"}},
}

// Description is a validator's public profile.
type Description struct {
	Moniker, Identity, Website, SecurityContact, Details string
}

func (d *Description) check() error {
	switch {
	case d.Moniker == "":
		return revert("moniker is required")
	case len(d.Moniker) > maxMoniker:
		return revert("moniker longer than 70 bytes")
	case len(d.Identity) > maxIdentity:
		return revert("identity longer than 3000 bytes")
	case len(d.Website) > maxWebsite:
		return revert("website longer than 140 bytes")
	case len(d.SecurityContact) > maxSecurity:
		return revert("security contact longer than 140 bytes")
	case len(d.Details) > maxDetails:
		return revert("details longer than 280 bytes")
	}
	return nil
}

// checkNetAddress accepts host:port with a port in 1..65535.
func checkNetAddress(s string) error {
	if len(s) > maxNetAddr {
		return revert("network address longer than 256 bytes")
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil || host == "" {
		return revert("network address must be host:port")
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return revert("network address port must be 1..65535")
	}
	return nil
}

// ConsensusAddress is the address of a compressed secp256k1 consensus
// public key: the key's Ethereum address, which signs its votes.
func ConsensusAddress(pub []byte) (types.Address, error) {
	if len(pub) != 33 {
		return types.Address{}, revert("consensus public key must be 33 bytes (compressed secp256k1)")
	}
	k, err := secp256k1.ParsePubKey(pub)
	if err != nil {
		return types.Address{}, revert("consensus public key is not a secp256k1 point")
	}
	return types.Address(crypto.PubkeyToAddress(k)), nil
}

// NewValidator is what createValidator registers.
type NewValidator struct {
	Operator          types.Address
	Description       Description
	Rate, MaxRate     *uint256.Int
	MaxChangeRate     *uint256.Int
	MinSelfDelegation *uint256.Int
	Pubkey            []byte
	NetAddress        string
	Stake             *uint256.Int // self-delegation, already in the staking contract's balance
}

// createValidator registers a validator and bonds its self-delegation.
func (l *ledger) createValidator(p *Params, nv *NewValidator) error {
	if l.exists(nv.Operator) {
		return revert("validator already exists")
	}
	if err := nv.Description.check(); err != nil {
		return err
	}
	switch {
	case nv.MaxRate.Gt(rateOne):
		return revert("max commission rate above 100%")
	case nv.Rate.Gt(nv.MaxRate):
		return revert("commission rate above max rate")
	case nv.MaxChangeRate.Gt(nv.MaxRate):
		return revert("max change rate above max rate")
	case nv.MinSelfDelegation.IsZero():
		return revert("min self delegation must be positive")
	case nv.Stake.Lt(nv.MinSelfDelegation):
		return revert("self delegation below min self delegation")
	case nv.Stake.Lt(p.RequiredStake):
		return revert("insufficient stake: required " + p.RequiredStake.Dec() + " wei")
	}
	cons, err := ConsensusAddress(nv.Pubkey)
	if err != nil {
		return err
	}
	if l.s.addr(consRec(cons)) != (types.Address{}) {
		return revert("consensus key already in use")
	}
	if err := checkNetAddress(nv.NetAddress); err != nil {
		return err
	}
	vr := valRec(nv.Operator)
	l.s.setBool(vr.field(vExists), true)
	l.certRenewNow(nv.Operator)
	l.s.setU256(vr.field(vRate), nv.Rate)
	l.s.setU256(vr.field(vMaxRate), nv.MaxRate)
	l.s.setU256(vr.field(vMaxChange), nv.MaxChangeRate)
	l.s.setU64(vr.field(vRateTime), l.now)
	l.s.setU256(vr.field(vMinSelf), nv.MinSelfDelegation)
	l.s.setBytes(vr.field(vPubkey), nv.Pubkey)
	l.s.setBytes(vr.field(vNetAddr), []byte(nv.NetAddress))
	l.setDescription(nv.Operator, &nv.Description)
	l.s.setU64(vr.field(vCreated), l.now)
	l.s.setAddr(vr.field(vConsAddr), cons)
	l.s.setAddr(consRec(cons), nv.Operator)
	validatorList.add(l.s, nv.Operator)
	_, err = l.bond(nv.Operator, nv.Operator, nv.Stake)
	return err
}

func (l *ledger) setDescription(v types.Address, d *Description) {
	vr := valRec(v)
	l.s.setBytes(vr.field(vMoniker), []byte(d.Moniker))
	l.s.setBytes(vr.field(vIdentity), []byte(d.Identity))
	l.s.setBytes(vr.field(vWebsite), []byte(d.Website))
	l.s.setBytes(vr.field(vSecurity), []byte(d.SecurityContact))
	l.s.setBytes(vr.field(vDetails), []byte(d.Details))
}

func (l *ledger) description(v types.Address) Description {
	vr := valRec(v)
	return Description{
		Moniker: l.s.str(vr.field(vMoniker)), Identity: l.s.str(vr.field(vIdentity)), Website: l.s.str(vr.field(vWebsite)),
		SecurityContact: l.s.str(vr.field(vSecurity)), Details: l.s.str(vr.field(vDetails)),
	}
}

func createValidator(c *call, a *args) ([]byte, error) {
	nv := &NewValidator{
		Operator: c.Caller,
		Description: Description{Moniker: a.string(0), Identity: a.string(1), Website: a.string(2),
			SecurityContact: a.string(3), Details: a.string(4)},
		Rate: a.uint(5), MaxRate: a.uint(6), MaxChangeRate: a.uint(7), MinSelfDelegation: a.uint(8),
		Pubkey: a.bytes(9), NetAddress: a.string(10), Stake: c.Value,
	}
	if err := a.done(); err != nil {
		return nil, err
	}
	p := ReadParams(c.EVM.StateDB)
	if err := c.l.createValidator(&p, nv); err != nil {
		return nil, err
	}
	c.emit([]types.Hash{evCreateValidator.topic, addrTopic(c.Caller)}, new(encoder).uint(c.Value).encode())
	return new(encoder).bool(true).encode(), nil
}

// Edit is an editValidator request: nil fields keep their value.
type Edit struct {
	Description       Description // doNotModify keeps a field
	NetAddress        string
	Rate              *uint256.Int
	MinSelfDelegation *uint256.Int
}

func (l *ledger) editValidator(v types.Address, e *Edit) error {
	if !l.exists(v) {
		return revert("not a validator")
	}
	l.certRenewNow(v)
	d := l.description(v)
	for _, f := range []struct {
		dst *string
		src string
	}{
		{&d.Moniker, e.Description.Moniker}, {&d.Identity, e.Description.Identity}, {&d.Website, e.Description.Website},
		{&d.SecurityContact, e.Description.SecurityContact}, {&d.Details, e.Description.Details},
	} {
		if f.src != doNotModify {
			*f.dst = f.src
		}
	}
	if err := d.check(); err != nil {
		return err
	}
	vr := valRec(v)
	if e.NetAddress != doNotModify {
		if err := checkNetAddress(e.NetAddress); err != nil {
			return err
		}
	}
	if e.Rate != nil {
		old := l.s.u256(vr.field(vRate))
		diff := new(uint256.Int)
		if e.Rate.Gt(old) {
			diff.Sub(e.Rate, old)
		} else {
			diff.Sub(old, e.Rate)
		}
		switch {
		case e.Rate.Gt(l.s.u256(vr.field(vMaxRate))):
			return revert("commission rate above max rate")
		case diff.Gt(l.s.u256(vr.field(vMaxChange))):
			return revert("commission change above max change rate")
		case !diff.IsZero() && l.now < l.s.u64(vr.field(vRateTime))+commissionChangeInterval:
			return revert("commission can change once per 24 hours")
		}
	}
	if e.MinSelfDelegation != nil {
		switch {
		case e.MinSelfDelegation.Lt(l.s.u256(vr.field(vMinSelf))):
			return revert("min self delegation can only increase")
		case e.MinSelfDelegation.Gt(l.selfValue(v)):
			return revert("min self delegation above the self delegation")
		}
	}
	l.setDescription(v, &d)
	if e.NetAddress != doNotModify {
		l.s.setBytes(vr.field(vNetAddr), []byte(e.NetAddress))
	}
	if e.Rate != nil && !e.Rate.Eq(l.s.u256(vr.field(vRate))) {
		l.s.setU256(vr.field(vRate), e.Rate)
		l.s.setU64(vr.field(vRateTime), l.now)
	}
	if e.MinSelfDelegation != nil {
		l.s.setU256(vr.field(vMinSelf), e.MinSelfDelegation)
	}
	return nil
}

func editValidator(c *call, a *args) ([]byte, error) {
	e := &Edit{
		Description: Description{Moniker: a.string(0), Identity: a.string(1), Website: a.string(2),
			SecurityContact: a.string(3), Details: a.string(4)},
		NetAddress: a.string(5), Rate: a.int(6), MinSelfDelegation: a.int(7),
	}
	if err := a.done(); err != nil {
		return nil, err
	}
	if err := c.l.editValidator(c.Caller, e); err != nil {
		return nil, err
	}
	vr := valRec(c.Caller)
	c.emit([]types.Hash{evEditValidator.topic, addrTopic(c.Caller)},
		new(encoder).uint(c.l.s.u256(vr.field(vRate))).uint(c.l.s.u256(vr.field(vMinSelf))).encode())
	return new(encoder).bool(true).encode(), nil
}

func delegate(c *call, a *args) ([]byte, error) {
	v := a.address(0)
	if err := a.done(); err != nil {
		return nil, err
	}
	if !c.l.exists(v) {
		return nil, revert("no such validator")
	}
	if c.Value.IsZero() {
		return nil, revert("delegation amount must be positive")
	}
	sh, err := c.l.bond(c.Caller, v, c.Value)
	if err != nil {
		return nil, err
	}
	c.emit([]types.Hash{evDelegate.topic, addrTopic(c.Caller), addrTopic(v)}, new(encoder).uint(c.Value).uint(sh).encode())
	return new(encoder).bool(true).encode(), nil
}

// Unbonding queue: entries are appended in block-time order and paid from
// the head once their completion time has come.
const (
	qHead = iota
	qTail
)

const (
	uDelegator = iota
	uValidator
	uAmount
	uCompletion // s
	uHeight
	uDst    // a redelegation's destination; zero for an unbonding
	uShares // a redelegation's shares minted at its destination
)

func queueRec() slot { return rec(StakingAddress, "unbonding") }

func entryRec(i uint64) slot {
	var k [8]byte
	for j := range 8 {
		k[7-j] = byte(i >> (8 * j))
	}
	return rec(StakingAddress, "unbonding", k[:])
}

// startUnbonding queues amount for d, paid once the cooldown is over.
func (l *ledger) startUnbonding(p *Params, d, v types.Address, amount *uint256.Int) uint64 {
	done := l.now + secondsOf(p.RestakeCooldown)
	q := queueRec()
	tail := l.s.u64(q.field(qTail))
	e := entryRec(tail)
	l.s.setAddr(e.field(uDelegator), d)
	l.s.setAddr(e.field(uValidator), v)
	l.s.setU256(e.field(uAmount), amount)
	l.s.setU64(e.field(uCompletion), done)
	l.s.setU64(e.field(uHeight), l.height)
	l.s.setU64(q.field(qTail), tail+1)
	return done
}

// undelegate unbonds amount of (d, v). A validator whose own stake drops
// below the required stake before restakeCooldown has passed since it
// joined pays the left-network-early penalty on what it takes out, and one
// whose self-delegation drops below its minimum is jailed.
func (l *ledger) undelegate(p *Params, d, v types.Address, amount *uint256.Int) (out, penalty *uint256.Int, done uint64, err error) {
	if !l.exists(v) {
		return nil, nil, 0, revert("no such validator")
	}
	if _, err := l.unbond(d, v, amount); err != nil {
		return nil, nil, 0, err
	}
	out, penalty = new(uint256.Int).Set(amount), new(uint256.Int)
	if d == v {
		vr := valRec(v)
		self := l.selfValue(v)
		if self.Lt(p.RequiredStake) && l.now < l.s.u64(vr.field(vCreated))+secondsOf(p.RestakeCooldown) {
			penalty.MulDivOverflow(amount, uint256.NewInt(p.LeftNetworkEarlyPenalty), uint256.NewInt(PPM))
			out.Sub(out, penalty)
			l.s.st.SubBalance(StakingAddress, penalty)
			l.burn(penalty)
			l.logSlash(v, SlashLeftEarly, p.LeftNetworkEarlyPenalty, l.height, penalty)
		}
		if self.Lt(l.s.u256(vr.field(vMinSelf))) && !l.s.bool(vr.field(vJailed)) {
			l.jail(v, l.now)
		}
	}
	if out.IsZero() {
		return out, penalty, l.now, nil
	}
	return out, penalty, l.startUnbonding(p, d, v, out), nil
}

func undelegate(c *call, a *args) ([]byte, error) {
	v, amount := a.address(0), a.uint(1)
	if err := a.done(); err != nil {
		return nil, err
	}
	p := ReadParams(c.EVM.StateDB)
	out, penalty, done, err := c.l.undelegate(&p, c.Caller, v, amount)
	if err != nil {
		return nil, err
	}
	if !penalty.IsZero() {
		c.emit([]types.Hash{evLeftEarly.topic, addrTopic(v)}, new(encoder).uint(penalty).encode())
	}
	c.emit([]types.Hash{evUnbond.topic, addrTopic(c.Caller), addrTopic(v)}, new(encoder).uint(out).u64(done).encode())
	return new(encoder).u64(done).encode(), nil
}

// redelegate moves amount of d's delegation from src to dst at once; for
// restakeCooldown a slash of src for an infraction before the move still
// reaches it at dst.
func (l *ledger) redelegate(p *Params, d, src, dst types.Address, amount *uint256.Int) error {
	switch {
	case src == dst:
		return revert("source and destination are the same validator")
	case !l.exists(src) || !l.exists(dst):
		return revert("no such validator")
	case d == src:
		return revert("a validator cannot redelegate its self delegation")
	}
	if err := l.checkRedelegateFrom(d, src); err != nil {
		return err
	}
	if _, err := l.unbond(d, src, amount); err != nil {
		return err
	}
	sh, err := l.bond(d, dst, amount)
	if err != nil {
		return err
	}
	l.startRedelegation(p, d, src, dst, amount, sh)
	return nil
}

func redelegate(c *call, a *args) ([]byte, error) {
	src, dst, amount := a.address(0), a.address(1), a.uint(2)
	if err := a.done(); err != nil {
		return nil, err
	}
	p := ReadParams(c.EVM.StateDB)
	if err := c.l.redelegate(&p, c.Caller, src, dst, amount); err != nil {
		return nil, err
	}
	c.emit([]types.Hash{evRedelegate.topic, addrTopic(c.Caller), addrTopic(src), addrTopic(dst)}, new(encoder).uint(amount).encode())
	return new(encoder).bool(true).encode(), nil
}

func (l *ledger) unjail(v types.Address) error {
	vr := valRec(v)
	switch {
	case !l.exists(v):
		return revert("not a validator")
	case !l.s.bool(vr.field(vJailed)):
		return revert("validator is not jailed")
	case l.now < l.s.u64(vr.field(vJailedUntil)):
		return revert("validator is jailed until " + strconv.FormatUint(l.s.u64(vr.field(vJailedUntil)), 10))
	case l.selfValue(v).Lt(l.s.u256(vr.field(vMinSelf))):
		return revert("self delegation below min self delegation")
	}
	l.s.setBool(vr.field(vJailed), false)
	l.certRenewNow(v)
	return nil
}

func unjail(c *call, a *args) ([]byte, error) {
	if err := c.l.unjail(c.Caller); err != nil {
		return nil, err
	}
	c.emit([]types.Hash{evUnjail.topic, addrTopic(c.Caller)}, nil)
	return new(encoder).bool(true).encode(), nil
}

func getValidator(c *call, a *args) ([]byte, error) {
	v := a.address(0)
	if err := a.done(); err != nil {
		return nil, err
	}
	info, ok := ReadValidator(c.EVM.StateDB, v)
	if !ok {
		return nil, revert("no such validator")
	}
	d := info.Description
	return new(encoder).string(d.Moniker).string(d.Identity).string(d.Website).string(d.SecurityContact).string(d.Details).
		uint(info.Rate).uint(info.MaxRate).uint(info.MaxChangeRate).uint(info.MinSelfDelegation).
		bytes(info.Pubkey).string(info.NetAddress).uint(info.Tokens).uint(info.Shares).
		u64(uint64(info.Status)).bool(info.Jailed).u64(info.JailedUntil).encode(), nil
}

// gasPerItem is what a view pays for each list item it reads, charged
// from the list's length before reading, so a contract cannot make a
// validator read a long list for the flat view price.
const gasPerItem = 2_000

func getValidators(c *call, a *args) ([]byte, error) {
	if err := c.UseGas(gasPerItem * validatorList.len(c.l.s)); err != nil {
		return nil, err
	}
	return new(encoder).addresses(validatorList.all(c.l.s)).encode(), nil
}

func getDelegation(c *call, a *args) ([]byte, error) {
	d, v := a.address(0), a.address(1)
	if err := a.done(); err != nil {
		return nil, err
	}
	sh := c.l.delShares(d, v)
	return new(encoder).uint(sh).uint(c.l.tokensOf(v, sh)).encode(), nil
}

func getDelegations(c *call, a *args) ([]byte, error) {
	d := a.address(0)
	if err := a.done(); err != nil {
		return nil, err
	}
	if err := c.UseGas(gasPerItem * delegationsOf(d).len(c.l.s)); err != nil {
		return nil, err
	}
	ds := ReadDelegations(c.EVM.StateDB, d)
	vals := make([]types.Address, len(ds))
	amts := make([]*uint256.Int, len(ds))
	for i, x := range ds {
		vals[i], amts[i] = x.Validator, x.Amount
	}
	return new(encoder).addresses(vals).uints(amts).encode(), nil
}

func getUnbondingDelegations(c *call, a *args) ([]byte, error) {
	d := a.address(0)
	if err := a.done(); err != nil {
		return nil, err
	}
	// The queue holds every delegator's entries; the scan pays for each.
	q := queueRec()
	if err := c.UseGas(gasPerItem / 4 * (c.l.s.u64(q.field(qTail)) - c.l.s.u64(q.field(qHead)))); err != nil {
		return nil, err
	}
	es := ReadUnbonding(c.EVM.StateDB, &d)
	vals := make([]types.Address, len(es))
	amts := make([]*uint256.Int, len(es))
	times := make([]*uint256.Int, len(es))
	for i, e := range es {
		vals[i], amts[i], times[i] = e.Validator, e.Amount, uint256.NewInt(e.Completion)
	}
	return new(encoder).addresses(vals).uints(amts).uints(times).encode(), nil
}
