package node

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/chaind/chaind/grpcsrv"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/lcd"
	"github.com/holiman/uint256"
)

// A redelegation made by a transaction is served by the REST and gRPC
// staking queries with the amount moved, the shares it bought at the
// destination, their worth, the block that made it and the moment the
// cooldown ends; the two interfaces agree field by field.
func TestRedelegationOverRESTAndGRPC(t *testing.T) {
	dn, vals := stakingDevnet(t)
	n := dn.Nodes[0]
	src, dst := vals[0].Operator, vals[1].Operator
	delegator := dn.Keys[1]
	delAddr := types.Address(crypto.PrivkeyToAddress(delegator))
	stakeTx(t, dn, delegator, staking.StakingAddress, ethers(5), call(t, "Staking", "delegate", src))
	start := n.Chain.Head().Number()
	rc := stakeTx(t, dn, delegator, staking.StakingAddress, nil, call(t, "Staking", "redelegate", src, dst, ethers(2)))
	if len(rc.Logs) != 1 || !new(uint256.Int).SetBytes(rc.Logs[0].Data).Eq(ethers(2)) {
		t.Fatalf("redelegate logs %+v", rc.Logs)
	}
	block := blockWithLog(t, n, start, rc.Logs[0])
	// What the transaction did, read from the state after its block: the
	// delegator had no stake at dst before, so its shares there are those
	// the 2 coins bought.
	st, err := n.Chain.StateAt(block.Root())
	if err != nil {
		t.Fatal(err)
	}
	moved, _ := staking.ReadDelegation(st, delAddr, dst)
	params := staking.ReadParams(st)
	st.Release()
	completion := time.Unix(int64(block.Time()+(params.RestakeCooldown+999)/1000), 0).UTC()
	if !completion.After(time.Unix(int64(n.Chain.Head().Time()), 0)) {
		t.Fatalf("the redelegation completed at %v already; the test needs it pending", completion)
	}

	q := query.New(n.queryBackend())
	rest := httptest.NewServer(lcd.New(q))
	defer rest.Close()
	f := front.New(front.Config{})
	gsrv, err := f.Listen(grpcsrv.Listener("127.0.0.1:0", grpcsrv.New(q), front.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer gsrv.Shutdown(context.Background())

	delAcc, srcVal, dstVal := query.Bech32(query.AccountPrefix, delAddr), query.Bech32(query.ValidatorPrefix, src), query.Bech32(query.ValidatorPrefix, dst)
	for _, c := range []struct {
		name  string
		path  string
		req   query.QueryRedelegationsRequest
		paged bool
	}{
		{"delegator's", "/cosmos/staking/v1beta1/delegators/" + delAcc + "/redelegations",
			query.QueryRedelegationsRequest{DelegatorAddr: delAcc}, true},
		{"the one", "/cosmos/staking/v1beta1/delegators/" + delAcc + "/redelegations?src_validator_addr=" + srcVal + "&dst_validator_addr=" + dstVal,
			query.QueryRedelegationsRequest{DelegatorAddr: delAcc, SrcValidatorAddr: srcVal, DstValidatorAddr: dstVal}, false},
	} {
		var grpcResp query.QueryRedelegationsResponse
		if code, msg := grpcCall(t, gsrv.Addr(), "/cosmos.staking.v1beta1.Query/Redelegations", &c.req, &grpcResp); code != 0 {
			t.Fatalf("%s over gRPC: status %d %s", c.name, code, msg)
		}
		resp, err := http.Get(rest.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s over REST: %d %s", c.name, resp.StatusCode, body)
		}
		var restResp struct {
			RedelegationResponses []struct {
				Redelegation struct {
					DelegatorAddress    string `json:"delegator_address"`
					ValidatorSrcAddress string `json:"validator_src_address"`
					ValidatorDstAddress string `json:"validator_dst_address"`
					Entries             []any  `json:"entries"`
				} `json:"redelegation"`
				Entries []struct {
					RedelegationEntry struct {
						CreationHeight          string `json:"creation_height"`
						CompletionTime          string `json:"completion_time"`
						InitialBalance          string `json:"initial_balance"`
						SharesDst               string `json:"shares_dst"`
						UnbondingID             string `json:"unbonding_id"`
						UnbondingOnHoldRefCount string `json:"unbonding_on_hold_ref_count"`
					} `json:"redelegation_entry"`
					Balance string `json:"balance"`
				} `json:"entries"`
			} `json:"redelegation_responses"`
			Pagination *struct {
				NextKey *string `json:"next_key"`
				Total   string  `json:"total"`
			} `json:"pagination"`
		}
		if err := json.Unmarshal(body, &restResp); err != nil {
			t.Fatal(err)
		}
		// The exact values the transaction made.
		if len(restResp.RedelegationResponses) != 1 || len(restResp.RedelegationResponses[0].Entries) != 1 {
			t.Fatalf("%s over REST: %s", c.name, body)
		}
		rr := restResp.RedelegationResponses[0]
		re := rr.Entries[0]
		want := [][2]string{
			{rr.Redelegation.DelegatorAddress, delAcc},
			{rr.Redelegation.ValidatorSrcAddress, srcVal},
			{rr.Redelegation.ValidatorDstAddress, dstVal},
			{strconv.Itoa(len(rr.Redelegation.Entries)), "0"},
			{re.RedelegationEntry.CreationHeight, strconv.FormatUint(block.Number(), 10)},
			{re.RedelegationEntry.CompletionTime, completion.Format(time.RFC3339)},
			{re.RedelegationEntry.InitialBalance, ethers(2).Dec()},
			{re.RedelegationEntry.SharesDst, moved.Shares.Dec() + ".000000000000000000"},
			{re.RedelegationEntry.UnbondingID, "1"}, // the first entry of this chain's unbonding queue
			{re.RedelegationEntry.UnbondingOnHoldRefCount, "0"},
			{re.Balance, moved.Amount.Dec()},
			{re.Balance, ethers(2).Dec()}, // nothing slashed the destination
		}
		for i, w := range want {
			if w[0] != w[1] {
				t.Errorf("%s over REST, field %d: %q, want %q", c.name, i, w[0], w[1])
			}
		}
		if (restResp.Pagination != nil) != c.paged || (c.paged && (restResp.Pagination.Total != "1" || restResp.Pagination.NextKey != nil)) {
			t.Errorf("%s over REST: pagination %s", c.name, body)
		}
		// gRPC carries the same, field by field.
		if len(grpcResp.RedelegationResponses) != 1 || len(grpcResp.RedelegationResponses[0].Entries) != 1 {
			t.Fatalf("%s over gRPC: %+v", c.name, grpcResp)
		}
		gr := grpcResp.RedelegationResponses[0]
		ge := gr.Entries[0]
		same := [][2]string{
			{gr.Redelegation.DelegatorAddress, rr.Redelegation.DelegatorAddress},
			{gr.Redelegation.ValidatorSrcAddress, rr.Redelegation.ValidatorSrcAddress},
			{gr.Redelegation.ValidatorDstAddress, rr.Redelegation.ValidatorDstAddress},
			{strconv.Itoa(len(gr.Redelegation.Entries)), strconv.Itoa(len(rr.Redelegation.Entries))},
			{strconv.FormatInt(ge.RedelegationEntry.CreationHeight, 10), re.RedelegationEntry.CreationHeight},
			{ge.RedelegationEntry.CompletionTime.UTC().Format(time.RFC3339), re.RedelegationEntry.CompletionTime},
			{ge.RedelegationEntry.InitialBalance.JSONText(), re.RedelegationEntry.InitialBalance},
			{ge.RedelegationEntry.SharesDst.JSONText(), re.RedelegationEntry.SharesDst},
			{strconv.FormatUint(ge.RedelegationEntry.UnbondingID, 10), re.RedelegationEntry.UnbondingID},
			{strconv.FormatInt(ge.RedelegationEntry.UnbondingOnHoldRefCount, 10), re.RedelegationEntry.UnbondingOnHoldRefCount},
			{ge.Balance.JSONText(), re.Balance},
		}
		for i, s := range same {
			if s[0] != s[1] {
				t.Errorf("%s: gRPC field %d %q, REST %q", c.name, i, s[0], s[1])
			}
		}
		if (grpcResp.Pagination != nil) != c.paged || c.paged && (grpcResp.Pagination.Total != 1 || grpcResp.Pagination.NextKey != nil) {
			t.Errorf("%s over gRPC: pagination %+v", c.name, grpcResp.Pagination)
		}
		// And the REST body is the gRPC answer's JSON, byte for byte.
		if got := protobuf.MarshalJSON(&grpcResp); !bytes.Equal(got, body) {
			t.Errorf("%s: REST body\n%s\ngRPC answer as JSON\n%s", c.name, body, got)
		}
	}
	// The source validator's redelegations, everyone's (gRPC only: the
	// REST route always names a delegator).
	var bySrc query.QueryRedelegationsResponse
	if code, msg := grpcCall(t, gsrv.Addr(), "/cosmos.staking.v1beta1.Query/Redelegations",
		&query.QueryRedelegationsRequest{SrcValidatorAddr: srcVal}, &bySrc); code != 0 ||
		len(bySrc.RedelegationResponses) != 1 || bySrc.RedelegationResponses[0].Redelegation.DelegatorAddress != delAcc {
		t.Errorf("by source: %d %s %+v", code, msg, bySrc)
	}
	// The delegator now delegates to both validators.
	var dv query.QueryDelegatorValidatorsResponse
	if code, msg := grpcCall(t, gsrv.Addr(), "/cosmos.staking.v1beta1.Query/DelegatorValidators",
		&query.QueryDelegatorValidatorsRequest{DelegatorAddr: delAcc}, &dv); code != 0 || len(dv.Validators) != 2 {
		t.Errorf("delegator's validators: %d %s %+v", code, msg, dv)
	}
	// The reverse trio does not exist: 404 over REST, NotFound over gRPC.
	if code, _ := grpcCall(t, gsrv.Addr(), "/cosmos.staking.v1beta1.Query/Redelegations",
		&query.QueryRedelegationsRequest{DelegatorAddr: delAcc, SrcValidatorAddr: dstVal, DstValidatorAddr: srcVal}, new(query.QueryRedelegationsResponse)); code != int(query.NotFound) {
		t.Errorf("reverse over gRPC: status %d", code)
	}
	if resp, err := http.Get(rest.URL + "/cosmos/staking/v1beta1/delegators/" + delAcc + "/redelegations?src_validator_addr=" + dstVal + "&dst_validator_addr=" + srcVal); err != nil || resp.StatusCode != 404 {
		t.Errorf("reverse over REST: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}

// blockWithLog finds the block from number from on whose receipts hold log.
func blockWithLog(t *testing.T, n *Node, from uint64, log *types.Log) *types.Block {
	t.Helper()
	for num := from; num <= n.Chain.Head().Number(); num++ {
		b, err := n.Chain.BlockByNumber(num)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := n.Chain.DB().Receipts(b.Hash())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			for _, l := range r.Logs {
				if l.Address == log.Address && bytes.Equal(l.Data, log.Data) && len(l.Topics) == len(log.Topics) && l.Topics[0] == log.Topics[0] && l.Topics[1] == log.Topics[1] {
					return b
				}
			}
		}
	}
	t.Fatal("no block holds the log")
	return nil
}

// grpcCall makes one unary gRPC call over HTTP/2 without TLS and returns
// the grpc-status and grpc-message.
func grpcCall(t *testing.T, addr, path string, req, resp protobuf.Message) (int, string) {
	t.Helper()
	msg := protobuf.Marshal(req)
	frame := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg)))
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	c := &http.Client{Transport: &http.Transport{Protocols: p}, Timeout: 20 * time.Second}
	hreq, _ := http.NewRequest("POST", "http://"+addr+path, bytes.NewReader(append(frame, msg...)))
	hreq.Header.Set("Content-Type", "application/grpc")
	hreq.Header.Set("TE", "trailers")
	hresp, err := c.Do(hreq)
	if err != nil {
		t.Fatal(err)
	}
	defer hresp.Body.Close()
	body, err := io.ReadAll(hresp.Body)
	if err != nil {
		t.Fatal(err)
	}
	status, message := hresp.Trailer.Get("Grpc-Status"), hresp.Trailer.Get("Grpc-Message")
	if status == "" {
		status, message = hresp.Header.Get("Grpc-Status"), hresp.Header.Get("Grpc-Message")
	}
	code, err := strconv.Atoi(status)
	if err != nil {
		t.Fatalf("%s: grpc-status %q", path, status)
	}
	if code == 0 {
		if len(body) < 5 || int(binary.BigEndian.Uint32(body[1:5])) != len(body)-5 {
			t.Fatalf("%s: one framed message expected, got %d bytes", path, len(body))
		}
		if err := protobuf.Unmarshal(body[5:], resp); err != nil {
			t.Fatal(err)
		}
	}
	return code, message
}
