package query

import (
	"context"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/types"
)

type QueryAccountRequest struct {
	Address string `pb:"1,address"`
}

func (QueryAccountRequest) ProtoName() string { return "cosmos.auth.v1beta1.QueryAccountRequest" }

type QueryAccountResponse struct {
	Account *protobuf.Any `pb:"1,account"`
}

func (QueryAccountResponse) ProtoName() string { return "cosmos.auth.v1beta1.QueryAccountResponse" }

// BaseAccount is the Cosmos account record. The chain keeps no account
// numbers (accounts are addressed by their 20 bytes alone), so
// account_number is 0; sequence is the account's nonce.
type BaseAccount struct {
	Address       string        `pb:"1,address"`
	PubKey        *protobuf.Any `pb:"2,pub_key"`
	AccountNumber uint64        `pb:"3,account_number"`
	Sequence      uint64        `pb:"4,sequence"`
}

func (BaseAccount) ProtoName() string { return "cosmos.auth.v1beta1.BaseAccount" }

// EthAccount is an Ethereum-style account as Ethermint chains answer it:
// the base account and the hash of its code.
type EthAccount struct {
	BaseAccount *BaseAccount `pb:"1,base_account"`
	CodeHash    string       `pb:"2,code_hash"`
}

func (EthAccount) ProtoName() string { return "ethermint.types.v1.EthAccount" }

func authService() *Service {
	return serviceFile("cosmos/auth/v1beta1/query.proto", "cosmos.auth.v1beta1.Query",
		[]protobuf.Message{QueryAccountRequest{}, QueryAccountResponse{}, BaseAccount{}},
		nil,
		[]*Method{
			method("Account", "/cosmos/auth/v1beta1/accounts/{address}", (*Querier).Account),
		})
}

// Account returns an account that exists in the head state (has a nonce,
// a balance or code); NotFound otherwise, as for an account the Cosmos
// SDK never saw.
func (q *Querier) Account(ctx context.Context, r *QueryAccountRequest) (*QueryAccountResponse, error) {
	a, err := parseAddress(AccountPrefix, "address", r.Address)
	if err != nil {
		return nil, err
	}
	_, st, err := q.at(ctx)
	if err != nil {
		return nil, err
	}
	nonce, bal, code := st.Nonce(a), st.Balance(a), st.Code(a)
	if err := backend.ReadErr(st); err != nil {
		return nil, err
	}
	if nonce == 0 && (bal == nil || bal.IsZero()) && len(code) == 0 {
		return nil, Errorf(NotFound, "account %s not found", r.Address)
	}
	codeHash := types.Hash(crypto.Keccak256(code))
	acc := EthAccount{
		BaseAccount: &BaseAccount{Address: accAddr(a), Sequence: nonce},
		CodeHash:    codeHash.Hex(),
	}
	return &QueryAccountResponse{Account: &protobuf.Any{Msg: acc}}, nil
}
