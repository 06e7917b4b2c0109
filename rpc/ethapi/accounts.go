package ethapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
	"github.com/holiman/uint256"
)

type accountsAPI struct {
	b    Backend
	keys backend.Accounts
	eth  *ethAPI
}

// RegisterAccounts installs the node-held account methods (eth_accounts,
// eth_sign, personal_sign, eth_signTypedData_v4, eth_signTransaction,
// eth_sendTransaction). keys is nil on a node that must hold no unlocked
// account (a public one): eth_accounts is then [] and the signing
// methods are not served at all (-32601), so no configuration of the
// namespaces can open them.
func RegisterAccounts(s *rpc.Server, b Backend, keys backend.Accounts, opts EthOptions) {
	api := &accountsAPI{b: b, keys: keys, eth: &ethAPI{b: b, opts: opts.withDefaults()}}
	register(s, "eth_accounts", 0, 0, func(context.Context, rpc.Params) (any, error) {
		if keys == nil {
			return []types.Address{}, nil
		}
		return keys.Accounts(), nil
	})
	// eth_coinbase is the address block rewards and tips go to: the
	// validator's, not a held account's (a dev account's balance moves
	// only by what it sends and pays).
	register(s, "eth_coinbase", 0, 0, func(context.Context, rpc.Params) (any, error) {
		if opts.Coinbase == nil {
			return nil, errors.New("etherbase must be explicitly specified")
		}
		return *opts.Coinbase, nil
	})
	if keys == nil {
		return
	}
	register(s, "eth_sign", 2, 2, api.sign)
	// personal_sign is eth_sign with the parameters swapped. geth dropped
	// the personal namespace with its account manager, but anvil serves
	// this method and ethers' JsonRpcSigner.signMessage and viem's
	// JSON-RPC accounts call it, so a dev node answers it too.
	register(s, "personal_sign", 2, 2, func(_ context.Context, p rpc.Params) (any, error) {
		return api.signMessage(p, 1, 0)
	})
	register(s, "eth_signTypedData_v4", 2, 2, api.signTypedData)
	// _v3 is v4 without arrays and recursive types, which v4's encoding
	// covers; eth_signTypedData is v4 on anvil and Hardhat as well when
	// given v4's object (MetaMask's legacy v1 array form is refused).
	register(s, "eth_signTypedData_v3", 2, 2, api.signTypedData)
	register(s, "eth_signTypedData", 2, 2, func(ctx context.Context, p rpc.Params) (any, error) {
		if len(p) > 1 && len(bytes.TrimSpace(p[1])) > 0 && bytes.TrimSpace(p[1])[0] == '[' {
			return nil, rpc.InvalidParams(1, errors.New("the legacy (v1) typed data array is not supported; send EIP-712 typed data (eth_signTypedData_v4)"))
		}
		return api.signTypedData(ctx, p)
	})
	register(s, "eth_signTransaction", 1, 1, api.signTransaction)
	register(s, "eth_sendTransaction", 1, 1, api.sendTransaction)
	register(s, "eth_sendTransactionSync", 1, 2, api.eth.sendSync(api.sendTransaction, 1))
}

func (api *accountsAPI) sign(_ context.Context, p rpc.Params) (any, error) {
	return api.signMessage(p, 0, 1)
}

// signMessage signs the EIP-191 message at parameter dataPos with the
// account at parameter addrPos.
func (api *accountsAPI) signMessage(p rpc.Params, addrPos, dataPos int) (any, error) {
	var addr types.Address
	if err := p.Decode(addrPos, &addr); err != nil {
		return nil, err
	}
	var data types.HexBytes
	if err := p.Decode(dataPos, &data); err != nil {
		return nil, err
	}
	// EIP-191 personal message, as eth_sign has meant since geth 1.5.
	digest := crypto.Keccak256([]byte(fmt.Sprintf("\x19Ethereum Signed Message:\n%d", len(data))), data)
	sig, err := api.keys.SignHash(addr, digest)
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	return types.HexBytes(sig), nil
}

// fill completes a transaction object with node defaults: nonce from the
// pool, gas by estimation, fees from the oracle, type from the fields.
func (api *accountsAPI) fill(ctx context.Context, args *CallArgs) (*types.Transaction, error) {
	if args.From == nil {
		return nil, errors.New("from address is required")
	}
	ba := args.toBackend()
	data, err := ba.CallData()
	if err != nil {
		return nil, err
	}
	if args.To == nil && len(data) == 0 {
		return nil, errors.New(`contract creation without any data provided`)
	}
	head := api.b.Head()
	var nonce uint64
	if args.Nonce != nil {
		nonce = uint64(*args.Nonce)
	} else if nonce, err = api.b.PendingNonce(*args.From); err != nil {
		return nil, err
	}
	value := new(uint256.Int)
	if args.Value != nil {
		value.Set(args.Value.Int())
	}
	if args.Gas == nil {
		gas, err := api.b.EstimateGas(ctx, &backend.CallRequest{Block: head, Args: args.toBackend()})
		if err != nil {
			return nil, err
		}
		g := types.HexUint64(gas)
		args.Gas = &g
	}
	var al types.AccessList
	if args.AccessList != nil {
		al = *args.AccessList
	}
	chainID := uint256.NewInt(api.b.ChainID())
	if args.ChainID != nil && !args.ChainID.Int().Eq(chainID) {
		return nil, fmt.Errorf("chainId does not match node's (have=%s, want=%s)", args.ChainID.Int(), chainID)
	}
	nextBaseFee := api.b.NextBaseFee(head.HeaderRef())
	if args.GasPrice != nil || nextBaseFee == nil {
		price := api.eth.suggestTip()
		if bf := head.BaseFee(); bf != nil {
			price.Add(price, bf)
		}
		if args.GasPrice != nil {
			price = args.GasPrice.Int()
		}
		if args.AccessList != nil {
			return types.NewTx(&types.AccessListTx{ChainID: *chainID, Nonce: nonce, GasPrice: *price, Gas: uint64(*args.Gas),
				To: args.To, Value: *value, Data: data, AccessList: al}), nil
		}
		return types.NewTx(&types.LegacyTx{Nonce: nonce, GasPrice: *price, Gas: uint64(*args.Gas), To: args.To, Value: *value, Data: data}), nil
	}
	tip := api.eth.suggestTip()
	if args.MaxPriorityFeePerGas != nil {
		tip = args.MaxPriorityFeePerGas.Int()
	}
	var feeCap *uint256.Int
	if args.MaxFeePerGas != nil {
		feeCap = args.MaxFeePerGas.Int()
	} else {
		// Twice the next base fee plus the tip survives six full blocks.
		feeCap = new(uint256.Int).Mul(nextBaseFee, uint256.NewInt(2))
		feeCap.Add(feeCap, tip)
	}
	if feeCap.Lt(tip) {
		return nil, fmt.Errorf("maxFeePerGas (%s) < maxPriorityFeePerGas (%s)", feeCap, tip)
	}
	return types.NewTx(&types.DynamicFeeTx{ChainID: *chainID, Nonce: nonce, GasTipCap: *tip, GasFeeCap: *feeCap,
		Gas: uint64(*args.Gas), To: args.To, Value: *value, Data: data, AccessList: al}), nil
}

func (api *accountsAPI) signArgs(ctx context.Context, p rpc.Params) (*types.Transaction, error) {
	return api.signArgsAs(ctx, p, false)
}

// signArgsAs fills and signs a transaction; with impersonation (only to
// send it) an address the node impersonates gets the marker signature a
// development chain accepts in place of its key's.
func (api *accountsAPI) signArgsAs(ctx context.Context, p rpc.Params, impersonation bool) (*types.Transaction, error) {
	var args CallArgs
	if err := p.Decode(0, &args); err != nil {
		return nil, err
	}
	tx, err := api.fill(ctx, &args)
	if err != nil {
		return nil, err
	}
	return api.signFilled(tx, *args.From, impersonation)
}

// signFilled signs a filled transaction as from (see signArgsAs).
func (api *accountsAPI) signFilled(tx *types.Transaction, from types.Address, impersonation bool) (*types.Transaction, error) {
	head := api.b.Head()
	signer := api.b.Signer(head.Number()+1, head.Time()+1)
	if imp, ok := api.keys.(backend.Impersonator); impersonation && ok && imp.Impersonating(from) {
		return tx.WithSignature(signer, types.ImpersonatedSignature(from))
	}
	sig, err := api.keys.SignHash(from, signer.SigningHash(tx))
	if err != nil {
		return nil, err
	}
	return tx.WithSignature(signer, sig)
}

func (api *accountsAPI) signTransaction(ctx context.Context, p rpc.Params) (any, error) {
	tx, err := api.signArgs(ctx, p)
	if err != nil {
		return nil, err
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return nil, err
	}
	from, _ := types.Sender(tx)
	return struct {
		Raw types.HexBytes  `json:"raw"`
		Tx  json.RawMessage `json:"tx"`
	}{raw, types.TxJSON(tx, from, nil)}, nil
}

func (api *accountsAPI) sendTransaction(ctx context.Context, p rpc.Params) (any, error) {
	tx, err := api.signArgsAs(ctx, p, true)
	if err != nil {
		return nil, err
	}
	if err := api.b.SendTransaction(ctx, tx); err != nil {
		return nil, err
	}
	return tx.Hash(), nil
}
