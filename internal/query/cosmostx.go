package query

import (
	"crypto/sha256"
	"fmt"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Ethereum transactions in the form Cosmos EVM gives them to CometBFT and
// to the Cosmos tx service: one cosmos.evm.vm.v1.MsgEthereumTx (the
// sender's address and the transaction's network encoding) in a
// cosmos.tx.v1beta1.TxRaw whose body carries the ExtensionOptionsEthereumTx
// marker and whose fee is gas limit times gas price (the fee cap of a
// dynamic-fee transaction) in the native denomination, with no Cosmos
// signature: the Ethereum signature inside the raw transaction is the
// only one. Cosmos explorers and cosmjs decode block data and the tx
// service's answers with these messages; the CometBFT hash of a
// transaction is sha256 of these bytes (CometHash), not its Ethereum hash.

// MsgEthereumTx is Cosmos EVM's message wrapping one Ethereum transaction
// (fields 1-4 are reserved there).
type MsgEthereumTx struct {
	From []byte `pb:"5,from"`
	Raw  []byte `pb:"6,raw"`
}

func (MsgEthereumTx) ProtoName() string { return "cosmos.evm.vm.v1.MsgEthereumTx" }

// ExtensionOptionsEthereumTx marks a transaction body as carrying
// Ethereum transactions.
type ExtensionOptionsEthereumTx struct{}

func (ExtensionOptionsEthereumTx) ProtoName() string {
	return "cosmos.evm.vm.v1.ExtensionOptionsEthereumTx"
}

// TxRaw is a transaction as CometBFT carries it: the body and auth info
// as bytes, so their signatures cover exactly those bytes.
type TxRaw struct {
	BodyBytes     []byte   `pb:"1,body_bytes"`
	AuthInfoBytes []byte   `pb:"2,auth_info_bytes"`
	Signatures    [][]byte `pb:"3,signatures"`
}

func (TxRaw) ProtoName() string { return "cosmos.tx.v1beta1.TxRaw" }

// TxBody is a transaction's messages and options.
type TxBody struct {
	Messages                    []*protobuf.Any `pb:"1,messages"`
	Memo                        string          `pb:"2,memo"`
	TimeoutHeight               uint64          `pb:"3,timeout_height"`
	ExtensionOptions            []*protobuf.Any `pb:"1023,extension_options"`
	NonCriticalExtensionOptions []*protobuf.Any `pb:"2047,non_critical_extension_options"`
}

func (TxBody) ProtoName() string { return "cosmos.tx.v1beta1.TxBody" }

// AuthInfo is a transaction's signers and fee; an Ethereum transaction
// has no Cosmos signer and no tip (tips are deprecated in the SDK v0.50).
type AuthInfo struct {
	SignerInfos []SignerInfo `pb:"1,signer_infos"`
	Fee         Fee          `pb:"2,fee"`
	Tip         *Tip         `pb:"3,tip"`
}

// SignerInfo is one Cosmos signer of a transaction (none here: the
// declaration gives the tx service's answers their shape).
type SignerInfo struct {
	PublicKey *protobuf.Any `pb:"1,public_key"`
	ModeInfo  *ModeInfo     `pb:"2,mode_info"`
	Sequence  uint64        `pb:"3,sequence"`
}

func (SignerInfo) ProtoName() string { return "cosmos.tx.v1beta1.SignerInfo" }

// ModeInfo is how a Cosmos signer signed (a proto oneof: one of the two
// is set): one key in a sign mode, or a multisig's keys.
type ModeInfo struct {
	Single *ModeInfoSingle `pb:"1,single"`
	Multi  *ModeInfoMulti  `pb:"2,multi"`
}

func (ModeInfo) ProtoName() string { return "cosmos.tx.v1beta1.ModeInfo" }

type ModeInfoSingle struct {
	Mode SignMode `pb:"1,mode"`
}

func (ModeInfoSingle) ProtoName() string { return "cosmos.tx.v1beta1.ModeInfo.Single" }

type ModeInfoMulti struct {
	Bitarray  *CompactBitArray `pb:"1,bitarray"`
	ModeInfos []ModeInfo       `pb:"2,mode_infos"`
}

func (ModeInfoMulti) ProtoName() string { return "cosmos.tx.v1beta1.ModeInfo.Multi" }

// CompactBitArray is which keys of a multisig signed.
type CompactBitArray struct {
	ExtraBitsStored uint32 `pb:"1,extra_bits_stored"`
	Elems           []byte `pb:"2,elems"`
}

func (CompactBitArray) ProtoName() string { return "cosmos.crypto.multisig.v1beta1.CompactBitArray" }

// SignMode is cosmos.tx.signing.v1beta1.SignMode, with its numbers
// (LEGACY_AMINO_JSON is 127, EIP_191 191).
type SignMode int32

func (SignMode) EnumDescriptor() (string, []string) {
	return "cosmos.tx.signing.v1beta1.SignMode", signModes
}

var signModes = func() []string {
	names := make([]string, 192)
	names[0], names[1], names[2], names[3] = "SIGN_MODE_UNSPECIFIED", "SIGN_MODE_DIRECT", "SIGN_MODE_TEXTUAL", "SIGN_MODE_DIRECT_AUX"
	names[127], names[191] = "SIGN_MODE_LEGACY_AMINO_JSON", "SIGN_MODE_EIP_191"
	return names
}()

// Tip is what a Cosmos transaction's tipper paid beside the fee.
type Tip struct {
	Amount []Coin `pb:"1,amount"`
	Tipper string `pb:"2,tipper"`
}

func (Tip) ProtoName() string { return "cosmos.tx.v1beta1.Tip" }

func (AuthInfo) ProtoName() string { return "cosmos.tx.v1beta1.AuthInfo" }

// Fee is what a transaction offers to pay, and its gas limit.
type Fee struct {
	Amount   []Coin `pb:"1,amount"`
	GasLimit uint64 `pb:"2,gas_limit"`
	Payer    string `pb:"3,payer"`
	Granter  string `pb:"4,granter"`
}

func (Fee) ProtoName() string { return "cosmos.tx.v1beta1.Fee" }

// CosmosTx is tx, sent by from, as Cosmos EVM's TxRaw bytes.
func CosmosTx(tx *types.Transaction, from types.Address) ([]byte, error) {
	body, auth, err := cosmosTxParts(tx, from)
	if err != nil {
		return nil, err
	}
	return txRaw(body, auth), nil
}

// txRaw encodes a transaction's parts as TxRaw bytes.
func txRaw(body TxBody, auth AuthInfo) []byte {
	return protobuf.Marshal(TxRaw{BodyBytes: protobuf.Marshal(body), AuthInfoBytes: protobuf.Marshal(auth)})
}

// cosmosTxParts is the body and auth info Cosmos EVM gives tx, sent by
// from.
func cosmosTxParts(tx *types.Transaction, from types.Address) (TxBody, AuthInfo, error) {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return TxBody{}, AuthInfo{}, fmt.Errorf("query: encoding transaction %s: %w", tx.Hash(), err)
	}
	body := TxBody{
		Messages:                    []*protobuf.Any{{Msg: MsgEthereumTx{From: from[:], Raw: raw}}},
		ExtensionOptions:            []*protobuf.Any{{Msg: ExtensionOptionsEthereumTx{}}},
		NonCriticalExtensionOptions: []*protobuf.Any{},
	}
	// Gas limit times the price the sender offered (a dynamic-fee
	// transaction's fee cap), as Cosmos EVM's BuildTx sets the fee.
	fee, overflow := new(uint256.Int).MulOverflow(uint256.NewInt(tx.Gas()), tx.GasPrice())
	if overflow {
		return TxBody{}, AuthInfo{}, fmt.Errorf("query: transaction %s: fee overflows 256 bits", tx.Hash())
	}
	return body, AuthInfo{SignerInfos: []SignerInfo{}, Fee: Fee{Amount: coins(fee), GasLimit: tx.Gas()}}, nil
}

// CometHash is the CometBFT hash of a transaction's bytes.
func CometHash(txBytes []byte) types.Hash { return sha256.Sum256(txBytes) }

func init() {
	typeFiles = append(typeFiles,
		protobuf.File{Name: "cosmos/evm/vm/v1/tx.proto", Package: "cosmos.evm.vm.v1",
			Messages: []protobuf.Message{MsgEthereumTx{}, ExtensionOptionsEthereumTx{}, EthLog{}, MsgEthereumTxResponse{}}},
		protobuf.File{Name: "cosmos/base/abci/v1beta1/abci.proto", Package: "cosmos.base.abci.v1beta1",
			Messages: []protobuf.Message{TxMsgData{}, TxResponse{}, ABCIMessageLog{}, StringEvent{}, StringAttribute{}, GasInfo{}, Result{}}},
		protobuf.File{Name: "cosmos/tx/v1beta1/tx.proto", Package: "cosmos.tx.v1beta1",
			Messages: []protobuf.Message{TxRaw{}, TxBody{}, AuthInfo{}, SignerInfo{}, ModeInfo{}, ModeInfoSingle{}, ModeInfoMulti{}, Fee{}, Tip{}}},
		protobuf.File{Name: "cosmos/tx/signing/v1beta1/signing.proto", Package: "cosmos.tx.signing.v1beta1", Enums: []protobuf.Enum{SignMode(0)}},
		protobuf.File{Name: "cosmos/crypto/multisig/v1beta1/multisig.proto", Package: "cosmos.crypto.multisig.v1beta1",
			Messages: []protobuf.Message{CompactBitArray{}}},
	)
}

// EthLog is one log of an Ethereum transaction in Cosmos EVM's
// cosmos.evm.vm.v1.Log.
type EthLog struct {
	Address     string   `pb:"1,address"`
	Topics      []string `pb:"2,topics"`
	Data        []byte   `pb:"3,data"`
	BlockNumber uint64   `pb:"4,block_number"`
	TxHash      string   `pb:"5,tx_hash"`
	TxIndex     uint64   `pb:"6,tx_index"`
	BlockHash   string   `pb:"7,block_hash"`
	Index       uint64   `pb:"8,index"`
	Removed     bool     `pb:"9,removed"`
}

func (EthLog) ProtoName() string { return "cosmos.evm.vm.v1.Log" }

// MsgEthereumTxResponse is the outcome of one MsgEthereumTx. chaind's
// receipts keep neither the call's return data nor the EVM's error text,
// so ret and vm_error stay empty (a failure shows in the receipt status,
// which the ethereum_tx event's ethereumTxFailed attribute reports).
type MsgEthereumTxResponse struct {
	Hash    string   `pb:"1,hash"`
	Logs    []EthLog `pb:"2,logs"`
	Ret     []byte   `pb:"3,ret"`
	VMError string   `pb:"4,vm_error"`
	GasUsed uint64   `pb:"5,gas_used"`
}

func (MsgEthereumTxResponse) ProtoName() string { return "cosmos.evm.vm.v1.MsgEthereumTxResponse" }

// TxMsgData is what a Cosmos transaction result's data holds: one
// response per message.
type TxMsgData struct {
	MsgResponses []*protobuf.Any `pb:"2,msg_responses"`
}

func (TxMsgData) ProtoName() string { return "cosmos.base.abci.v1beta1.TxMsgData" }

// EthTxResultData is the result data of the transaction r is the receipt
// of, as Cosmos EVM's ExecTxResult.data carries it.
func EthTxResultData(r *types.Receipt) []byte {
	resp := MsgEthereumTxResponse{Hash: r.TxHash.Hex(), GasUsed: r.GasUsed, Logs: []EthLog{}}
	for _, l := range r.Logs {
		el := EthLog{Address: l.Address.Hex(), Data: l.Data, BlockNumber: l.BlockNumber, TxHash: l.TxHash.Hex(),
			TxIndex: uint64(l.TxIndex), BlockHash: l.BlockHash.Hex(), Index: uint64(l.Index), Removed: l.Removed}
		for _, t := range l.Topics {
			el.Topics = append(el.Topics, t.Hex())
		}
		resp.Logs = append(resp.Logs, el)
	}
	return protobuf.Marshal(TxMsgData{MsgResponses: []*protobuf.Any{{Msg: resp}}})
}
