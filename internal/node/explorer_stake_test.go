package node

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/types"
)

// The explorer of a proof-of-stake devnet: validators with power, stake,
// commission, status and signing record; a validator's delegators and
// uptime; a delegator's delegations and unbonding; the proposal with its
// tally and deposit; a block's proposer and signers; a staking call and
// its event decoded by name.
func TestExplorerStakingPages(t *testing.T) {
	dn, vals := stakingDevnet(t)
	n := dn.Nodes[0]
	op := vals[0].Operator
	delegator, proposer := dn.Keys[1], dn.Keys[2]
	delAddr := types.Address(crypto.PrivkeyToAddress(delegator))
	stakeTx(t, dn, delegator, staking.StakingAddress, ethers(5), call(t, "Staking", "delegate", op))
	stakeTx(t, dn, delegator, staking.StakingAddress, nil, call(t, "Staking", "undelegate", op, ethers(2)))
	params, _ := n.Staking().StakingParams(nil)
	stakeTx(t, dn, proposer, staking.GovernanceAddress, params.MinDeposit, call(t, "Governance", "submitProposal",
		uint64(staking.TextProposal), "a text", "shown by the explorer", "", ""))
	waitHead(t, n, n.Chain.Head().Number()+3)

	srv := httptest.NewServer(n.explorerListener("127.0.0.1:0").Handler)
	defer srv.Close()
	get := func(path string, v any) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
		}
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}

	type validator struct {
		Operator, Status, Tokens, SelfStake, DelegatedStake, CommissionRate string
		VotingPower                                                         int64
		Signed, Missed                                                      uint64
	}
	var list struct {
		Staking    bool
		Validators []validator
	}
	get("/api/validators", &list)
	if !list.Staking || len(list.Validators) != 2 {
		t.Fatalf("validators %+v", list)
	}
	for _, v := range list.Validators {
		if v.Status != "active" || v.VotingPower <= 0 || v.Signed == 0 || v.CommissionRate != "100000000000000000" {
			t.Errorf("validator %+v", v)
		}
		if v.Operator == op.Hex() && v.DelegatedStake != ethers(3).Dec() {
			t.Errorf("validator %s delegated %s, want 3 CHAIN", v.Operator, v.DelegatedStake)
		}
	}

	var one struct {
		Validator validator
		Uptime    struct {
			From, To uint64
			Blocks   string
		}
		Delegators []struct{ Delegator, Amount string }
		Slashes    []any
		Proposed   []struct{ Number uint64 } `json:"proposedBlocks"`
	}
	get("/api/validator/"+op.Hex(), &one)
	if one.Validator.Operator != op.Hex() || !strings.Contains(one.Uptime.Blocks, "s") ||
		uint64(len(one.Uptime.Blocks)) != one.Uptime.To-one.Uptime.From+1 || len(one.Proposed) == 0 || one.Slashes == nil {
		t.Fatalf("validator page %+v", one)
	}
	found := false
	for _, d := range one.Delegators {
		found = found || (d.Delegator == delAddr.Hex() && d.Amount == ethers(3).Dec())
	}
	if !found {
		t.Errorf("delegators %+v lack %s with 3 CHAIN", one.Delegators, delAddr.Hex())
	}

	var acc struct {
		Account struct {
			Staking struct {
				Delegations    []struct{ Validator, Amount, Rewards string }
				Unbonding      []struct{ Validator, Amount string }
				TotalDelegated string
			}
		}
	}
	get("/api/account/"+delAddr.Hex(), &acc)
	st := acc.Account.Staking
	if len(st.Delegations) != 1 || st.Delegations[0].Validator != op.Hex() || st.TotalDelegated != ethers(3).Dec() ||
		len(st.Unbonding) != 1 || st.Unbonding[0].Amount != ethers(2).Dec() {
		t.Fatalf("account staking %+v", st)
	}

	var props struct {
		Proposals []struct {
			ID           uint64
			Title        string
			TotalDeposit string
			Tally        struct{ Yes string }
		}
	}
	get("/api/proposals", &props)
	if len(props.Proposals) != 1 || props.Proposals[0].Title != "a text" || props.Proposals[0].TotalDeposit != params.MinDeposit.Dec() {
		t.Fatalf("proposals %+v", props)
	}
	var prop struct {
		Proposal struct{ ID uint64 }
		Deposits []struct{ Depositor string }
		Votes    []any
	}
	get(fmt.Sprintf("/api/proposal/%d", props.Proposals[0].ID), &prop)
	if len(prop.Deposits) != 1 || prop.Votes == nil {
		t.Fatalf("proposal %+v", prop)
	}

	var blk struct {
		Block struct {
			Signing struct {
				Proposer string
				Recorded bool
				Signers  []struct {
					Operator string
					Signed   bool
				}
			}
		}
	}
	// The delegator's first transaction (its list is newest first) is the
	// delegation.
	var where struct {
		Account struct {
			Transactions []struct {
				Hash        string
				BlockNumber uint64
			}
		}
	}
	get("/api/account/"+delAddr.Hex(), &where)
	first := where.Account.Transactions[len(where.Account.Transactions)-1]
	get(fmt.Sprintf("/api/block/%d", first.BlockNumber), &blk)
	sg := blk.Block.Signing
	if !sg.Recorded || len(sg.Signers) != 2 || (sg.Proposer != vals[0].Operator.Hex() && sg.Proposer != vals[1].Operator.Hex()) {
		t.Fatalf("block signing %+v", sg)
	}
	signed := 0
	for _, s := range sg.Signers {
		if s.Signed {
			signed++
		}
	}
	if signed == 0 {
		t.Fatalf("no signer of block %d: %+v", first.BlockNumber, sg)
	}

	var tx struct {
		Transaction struct {
			Method string
			Call   struct {
				Contract, Name string
				Args           []struct{ Name, Value string }
			}
			Logs []struct {
				Event struct {
					Name string
					Args []struct{ Name, Value string }
				}
			}
		}
	}
	get("/api/transaction/"+first.Hash, &tx)
	c := tx.Transaction.Call
	if tx.Transaction.Method != "delegate" || c.Contract != "Staking" || c.Name != "delegate" || len(c.Args) != 1 || c.Args[0].Value != op.Hex() {
		t.Fatalf("call %+v", tx.Transaction)
	}
	if len(tx.Transaction.Logs) == 0 || tx.Transaction.Logs[0].Event.Name != "Delegate" || len(tx.Transaction.Logs[0].Event.Args) != 4 ||
		tx.Transaction.Logs[0].Event.Args[2].Value != ethers(5).Dec() {
		t.Fatalf("logs %+v", tx.Transaction.Logs)
	}
}
