package grpcsrv

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
)

// grpcurlPath finds grpcurl on PATH or where go install puts it. CI
// installs it, so there a missing grpcurl fails the test; elsewhere the
// test is skipped and says so.
func grpcurlPath(t *testing.T) string {
	if p, err := exec.LookPath("grpcurl"); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "grpcurl")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("grpcurl is not installed (go install github.com/fullstorydev/grpcurl/cmd/grpcurl@latest)")
	}
	t.Skip("SKIPPED: grpcurl is not installed (go install github.com/fullstorydev/grpcurl/cmd/grpcurl@latest)")
	return ""
}

// grpcurlInputs is a JSON request for every method, each one that the
// test backend answers successfully.
func grpcurlInputs() map[string]string {
	acc := query.Bech32(query.AccountPrefix, querytest.Addr(1))
	val := query.Bech32(query.ValidatorPrefix, querytest.Addr(0x100))
	cons := query.Bech32(query.ConsensusPrefix, querytest.Addr(0x100))
	dep := query.Bech32(query.AccountPrefix, querytest.Addr(2))
	return map[string]string{
		"cosmos.auth.v1beta1.Query/Account":                              `{"address":"` + acc + `"}`,
		"cosmos.bank.v1beta1.Query/Balance":                              `{"address":"` + acc + `","denom":"achain"}`,
		"cosmos.bank.v1beta1.Query/AllBalances":                          `{"address":"` + acc + `","pagination":{"limit":"1","count_total":true}}`,
		"cosmos.bank.v1beta1.Query/TotalSupply":                          `{}`,
		"cosmos.bank.v1beta1.Query/SupplyOf":                             `{"denom":"achain"}`,
		"cosmos.base.tendermint.v1beta1.Service/GetNodeInfo":             `{}`,
		"cosmos.base.tendermint.v1beta1.Service/GetSyncing":              `{}`,
		"cosmos.base.tendermint.v1beta1.Service/GetLatestBlock":          `{}`,
		"cosmos.base.tendermint.v1beta1.Service/GetBlockByHeight":        `{"height":"1"}`,
		"cosmos.base.tendermint.v1beta1.Service/GetLatestValidatorSet":   `{}`,
		"cosmos.base.tendermint.v1beta1.Service/GetValidatorSetByHeight": `{"height":"1"}`,
		"cosmos.distribution.v1beta1.Query/DelegationRewards":            `{"delegator_address":"` + acc + `","validator_address":"` + val + `"}`,
		"cosmos.distribution.v1beta1.Query/DelegationTotalRewards":       `{"delegator_address":"` + acc + `"}`,
		"cosmos.distribution.v1beta1.Query/ValidatorCommission":          `{"validator_address":"` + val + `"}`,
		"cosmos.distribution.v1beta1.Query/ValidatorOutstandingRewards":  `{"validator_address":"` + val + `"}`,
		"cosmos.distribution.v1beta1.Query/Params":                       `{}`,
		"cosmos.distribution.v1beta1.Query/CommunityPool":                `{}`,
		"cosmos.gov.v1beta1.Query/Proposal":                              `{"proposal_id":"3"}`, // an upgrade: grpcurl resolves its Any by reflection
		"cosmos.gov.v1beta1.Query/Proposals":                             `{"proposal_status":"PROPOSAL_STATUS_VOTING_PERIOD"}`,
		"cosmos.gov.v1beta1.Query/Vote":                                  `{"proposal_id":"1","voter":"` + acc + `"}`,
		"cosmos.gov.v1beta1.Query/Votes":                                 `{"proposal_id":"1"}`,
		"cosmos.gov.v1beta1.Query/Params":                                `{"params_type":"tallying"}`,
		"cosmos.gov.v1beta1.Query/Deposits":                              `{"proposal_id":"1"}`,
		"cosmos.gov.v1beta1.Query/TallyResult":                           `{"proposal_id":"1"}`,
		"cosmos.slashing.v1beta1.Query/Params":                           `{}`,
		"cosmos.slashing.v1beta1.Query/SigningInfo":                      `{"cons_address":"` + cons + `"}`,
		"cosmos.slashing.v1beta1.Query/SigningInfos":                     `{}`,
		"cosmos.staking.v1beta1.Query/Validators":                        `{"status":"BOND_STATUS_BONDED","pagination":{"limit":"2"}}`,
		"cosmos.staking.v1beta1.Query/Validator":                         `{"validator_addr":"` + val + `"}`,
		"cosmos.staking.v1beta1.Query/ValidatorDelegations":              `{"validator_addr":"` + val + `"}`,
		"cosmos.staking.v1beta1.Query/Delegation":                        `{"delegator_addr":"` + acc + `","validator_addr":"` + val + `"}`,
		"cosmos.staking.v1beta1.Query/DelegatorDelegations":              `{"delegator_addr":"` + acc + `"}`,
		"cosmos.staking.v1beta1.Query/DelegatorUnbondingDelegations":     `{"delegator_addr":"` + acc + `"}`,
		"cosmos.staking.v1beta1.Query/ValidatorUnbondingDelegations":     `{"validator_addr":"` + val + `"}`,
		"cosmos.staking.v1beta1.Query/UnbondingDelegation":               `{"delegator_addr":"` + acc + `","validator_addr":"` + val + `"}`,
		"cosmos.staking.v1beta1.Query/DelegatorValidators":               `{"delegator_addr":"` + acc + `","pagination":{"limit":"2"}}`,
		"cosmos.staking.v1beta1.Query/DelegatorValidator":                `{"delegator_addr":"` + acc + `","validator_addr":"` + val + `"}`,
		"cosmos.staking.v1beta1.Query/Redelegations":                     `{"delegator_addr":"` + acc + `","pagination":{"limit":"1","count_total":true}}`,
		"cosmos.staking.v1beta1.Query/Params":                            `{}`,
		"cosmos.staking.v1beta1.Query/Pool":                              `{}`,
		"cosmos.upgrade.v1beta1.Query/CurrentPlan":                       `{}`,
		"cosmos.upgrade.v1beta1.Query/AppliedPlan":                       `{"name":"1.2.0"}`,
		"cosmos.upgrade.v1beta1.Query/Authority":                         `{}`,
		"cosmos.auth.v1beta1.Query/Params":                               `{}`,
		"cosmos.auth.v1beta1.Query/Bech32Prefix":                         `{}`,
		"cosmos.auth.v1beta1.Query/AccountInfo":                          `{"address":"` + acc + `"}`,
		"cosmos.auth.v1beta1.Query/Accounts":                             `{"pagination":{"limit":"2","count_total":true}}`,
		"cosmos.auth.v1beta1.Query/ModuleAccounts":                       `{}`,
		"cosmos.auth.v1beta1.Query/ModuleAccountByName":                  `{"name":"gov"}`,
		"cosmos.auth.v1beta1.Query/AddressBytesToString":                 `{"address_bytes":"qgAAAAAAAAAAAAAAAAAAAAAAAAE="}`,
		"cosmos.auth.v1beta1.Query/AddressStringToBytes":                 `{"address_string":"` + acc + `"}`,
		"cosmos.bank.v1beta1.Query/DenomMetadataByQueryString":           `{"denom":"achain"}`,
		"cosmos.bank.v1beta1.Query/SendEnabled":                          `{"denoms":["achain"]}`,
		"cosmos.bank.v1beta1.Query/DenomOwners":                          `{"denom":"achain","pagination":{"reverse":true}}`,
		"cosmos.bank.v1beta1.Query/DenomOwnersByQuery":                   `{"denom":"achain"}`,
		"cosmos.bank.v1beta1.Query/Params":                               `{}`,
		"cosmos.bank.v1beta1.Query/SpendableBalances":                    `{"address":"` + acc + `"}`,
		"cosmos.bank.v1beta1.Query/SpendableBalanceByDenom":              `{"address":"` + acc + `","denom":"achain"}`,
		"cosmos.bank.v1beta1.Query/DenomMetadata":                        `{"denom":"achain"}`,
		"cosmos.bank.v1beta1.Query/DenomsMetadata":                       `{}`,
		"cosmos.base.tendermint.v1beta1.Service/ABCIQuery":               `{"path":"/cosmos.bank.v1beta1.Query/Params"}`,
		"cosmos.base.node.v1beta1.Service/Config":                        `{}`,
		"cosmos.base.node.v1beta1.Service/Status":                        `{}`,
		"cosmos.distribution.v1beta1.Query/ValidatorDistributionInfo":    `{"validator_address":"` + val + `"}`,
		"cosmos.distribution.v1beta1.Query/DelegatorValidators":          `{"delegator_address":"` + acc + `"}`,
		"cosmos.distribution.v1beta1.Query/DelegatorWithdrawAddress":     `{"delegator_address":"` + acc + `"}`,
		"cosmos.gov.v1beta1.Query/Deposit":                               `{"proposal_id":"1","depositor":"` + dep + `"}`,
		"cosmos.gov.v1.Query/Constitution":                               `{}`,
		"cosmos.gov.v1.Query/Proposal":                                   `{"proposal_id":"3"}`,
		"cosmos.gov.v1.Query/Proposals":                                  `{}`,
		"cosmos.gov.v1.Query/Vote":                                       `{"proposal_id":"1","voter":"` + acc + `"}`,
		"cosmos.gov.v1.Query/Votes":                                      `{"proposal_id":"1"}`,
		"cosmos.gov.v1.Query/Params":                                     `{"params_type":"deposit"}`,
		"cosmos.gov.v1.Query/Deposit":                                    `{"proposal_id":"1","depositor":"` + dep + `"}`,
		"cosmos.gov.v1.Query/Deposits":                                   `{"proposal_id":"1"}`,
		"cosmos.gov.v1.Query/TallyResult":                                `{"proposal_id":"1"}`,
		"cosmos.mint.v1beta1.Query/Params":                               `{}`,
		"cosmos.mint.v1beta1.Query/Inflation":                            `{}`,
		"cosmos.mint.v1beta1.Query/AnnualProvisions":                     `{}`,
		"cosmos.staking.v1beta1.Query/HistoricalInfo":                    `{"height":"1"}`,
		"cosmos.tx.v1beta1.Service/GetBlockWithTxs":                      `{"height":"1","pagination":{"reverse":true}}`,
		"cosmos.distribution.v1beta1.Query/ValidatorSlashes":             `{"validator_address":"` + val + `","ending_height":"100"}`,
		"cosmos.upgrade.v1beta1.Query/ModuleVersions":                    `{}`,
		"cosmos.upgrade.v1beta1.Query/UpgradedConsensusState":            `{"last_height":"2"}`,
		"cosmos.tx.v1beta1.Service/TxEncode":                             `{"tx":{"body":{"memo":"hi"},"auth_info":{"fee":{"gas_limit":"21000"}}}}`,
		"cosmos.tx.v1beta1.Service/TxDecode":                             `{"tx_bytes":"CgQSAmhpEgYSBBCIpAE="}`,
	}
}

// grpcurlRefusals are the methods the test backend answers with an error
// status, and a text of it: the tx service's lookups read transaction
// indexes the fake has not (cometrpc's TestTxService runs them on a
// chain with transactions), and Simulate and BroadcastTx are refused.
var grpcurlRefusals = map[string]string{
	"cosmos.tx.v1beta1.Service/GetTx":         "Unavailable",
	"cosmos.tx.v1beta1.Service/GetTxsEvent":   "Unavailable",
	"cosmos.tx.v1beta1.Service/Simulate":      "eth_sendRawTransaction",
	"cosmos.tx.v1beta1.Service/BroadcastTx":   "eth_sendRawTransaction",
	"cosmos.tx.v1beta1.Service/TxEncodeAmino": "amino",
	"cosmos.tx.v1beta1.Service/TxDecodeAmino": "amino",
	// chaind's account numbers hash the address and cannot be turned back.
	"cosmos.auth.v1beta1.Query/AccountAddressByID": "account address not found",
}

var grpcurlRefusalInputs = map[string]string{
	"cosmos.tx.v1beta1.Service/GetTx":              `{"hash":"` + strings.Repeat("ab", 32) + `"}`,
	"cosmos.tx.v1beta1.Service/GetTxsEvent":        `{"query":"tx.height=1"}`,
	"cosmos.tx.v1beta1.Service/Simulate":           `{}`,
	"cosmos.tx.v1beta1.Service/BroadcastTx":        `{}`,
	"cosmos.tx.v1beta1.Service/TxEncodeAmino":      `{}`,
	"cosmos.tx.v1beta1.Service/TxDecodeAmino":      `{}`,
	"cosmos.auth.v1beta1.Query/AccountAddressByID": `{"account_id":"1"}`,
}

// TestGrpcurl drives the server with grpcurl, which knows nothing of the
// services but what reflection tells it: it lists them, describes each,
// and calls every method with JSON input.
func TestGrpcurl(t *testing.T) {
	bin := grpcurlPath(t)
	addr := serve(t, 7)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"-plaintext", "-max-time", "20"}, args...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("grpcurl %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
		}
		return out.String()
	}
	listed := strings.Fields(run(addr, "list"))
	q := query.New(querytest.New(7).Backend())
	inputs := grpcurlInputs()
	for _, svc := range q.Services() {
		if !contains(listed, svc.Name) {
			t.Errorf("%s not listed: %v", svc.Name, listed)
		}
		desc := run(addr, "describe", svc.Name)
		methods := strings.Fields(run(addr, "list", svc.Name))
		if len(methods) != len(svc.Methods) {
			t.Errorf("%s: grpcurl lists %d methods, want %d", svc.Name, len(methods), len(svc.Methods))
		}
		for _, m := range svc.Methods {
			full := svc.Name + "/" + m.Name
			if !strings.Contains(desc, "rpc "+m.Name+" ") {
				t.Errorf("describe %s lacks %s:\n%s", svc.Name, m.Name, desc)
			}
			if want, refused := grpcurlRefusals[full]; refused {
				cmd := exec.Command(bin, "-plaintext", "-max-time", "20", "-d", grpcurlRefusalInputs[full], addr, full)
				if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), want) {
					t.Errorf("%s: %v %s, want a refusal naming %q", full, err, out, want)
				}
				continue
			}
			in, ok := inputs[full]
			if !ok {
				t.Errorf("no grpcurl input for %s", full)
				continue
			}
			out := run("-d", in, addr, full)
			if !strings.HasPrefix(strings.TrimSpace(out), "{") {
				t.Errorf("%s: %s", full, out)
			}
		}
	}
	for _, svc := range []string{reflectionV1, reflectionV1Alpha} {
		run(addr, "describe", svc)
	}
	// A status error reaches the client with its code and message.
	cmd := exec.Command(bin, "-plaintext", "-d", `{"proposal_id":"42"}`, addr, "cosmos.gov.v1beta1.Query/Proposal")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "NotFound") || !strings.Contains(string(out), "proposal 42 doesn't exist") {
		t.Errorf("not found through grpcurl: %v %s", err, out)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
