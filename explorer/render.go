package explorer

import (
	"encoding/hex"
	"errors"
	"strconv"
	"strings"

	"github.com/chaind/chaind/internal/bech32"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Shapes of the API. Amounts are decimal strings of wei (1 CHAIN = 10^18
// wei), so no JSON reader loses precision; times are Unix seconds;
// addresses are EIP-55.

// schedule is the chain's cycle schedule, the spec's default rule when the
// explorer serves no validator network or cannot read it.
func (e *Explorer) schedule() types.Cycles {
	if e.cfg.Validators == nil {
		return types.DefaultCycles
	}
	c, err := e.cfg.Validators.Cycles()
	if err != nil {
		return types.DefaultCycles
	}
	return c
}

type blockJSON struct {
	Number           uint64   `json:"number"`
	Hash             string   `json:"hash"`
	ParentHash       string   `json:"parentHash"`
	Timestamp        uint64   `json:"timestamp"`
	Cycle            uint64   `json:"cycle"`
	Miner            string   `json:"miner"`
	GasUsed          uint64   `json:"gasUsed"`
	GasLimit         uint64   `json:"gasLimit"`
	BaseFeePerGas    string   `json:"baseFeePerGas,omitempty"`
	Size             uint64   `json:"size"`
	StateRoot        string   `json:"stateRoot"`
	TransactionCount int      `json:"transactionCount"`
	Transactions     *[]txRow `json:"transactions,omitempty"` // in the block endpoint only
	// Signing is who proposed the block and which validators signed it,
	// in the block endpoint of a chain with validators.
	Signing *signingJSON `json:"signing,omitempty"`
}

// signingJSON is a block's proposer and its validator set's signatures.
type signingJSON struct {
	Proposer string `json:"proposer"` // operator
	// Recorded is false for the head: a block's signatures are recorded
	// by the next one.
	Recorded bool         `json:"recorded"`
	Signers  []signerJSON `json:"signers"`
}

type signerJSON struct {
	Operator  string `json:"operator"`
	Consensus string `json:"consensusAddress"`
	Power     int64  `json:"votingPower"`
	Signed    bool   `json:"signed"`
}

// txRow is a transaction in a listing.
type txRow struct {
	Hash            string  `json:"hash"`
	BlockNumber     uint64  `json:"blockNumber"`
	Index           int     `json:"transactionIndex"`
	Cycle           uint64  `json:"cycle"`
	Timestamp       uint64  `json:"timestamp"`
	From            string  `json:"from"`
	To              *string `json:"to"`
	ContractAddress *string `json:"contractAddress,omitempty"`
	Value           string  `json:"value"`
	Fee             string  `json:"fee"`
	Status          int     `json:"status"` // 1 success, 0 failed
	Method          string  `json:"method,omitempty"`
}

// txJSON is one transaction in full.
type txJSON struct {
	txRow
	BlockHash            string    `json:"blockHash,omitempty"`
	Pending              bool      `json:"pending"`
	Type                 uint8     `json:"type"`
	Nonce                uint64    `json:"nonce"`
	Gas                  uint64    `json:"gas"`
	GasUsed              uint64    `json:"gasUsed"`
	GasPrice             string    `json:"gasPrice"`
	MaxFeePerGas         string    `json:"maxFeePerGas,omitempty"`
	MaxPriorityFeePerGas string    `json:"maxPriorityFeePerGas,omitempty"`
	Input                string    `json:"input"`
	Logs                 []logJSON `json:"logs"`
	Call                 *callJSON `json:"call,omitempty"` // a system contract call, decoded
	RevertReason         string    `json:"revertReason,omitempty"`
	Error                string    `json:"error,omitempty"`
}

type logJSON struct {
	Address string     `json:"address"`
	Topics  []string   `json:"topics"`
	Data    string     `json:"data"`
	Index   uint       `json:"logIndex"`
	Event   *eventJSON `json:"event,omitempty"`
}

func hexBytes(b []byte) string { return "0x" + hex.EncodeToString(b) }

func dec(v *uint256.Int) string {
	if v == nil {
		return "0"
	}
	return v.Dec()
}

func addrPtr(a *types.Address) *string {
	if a == nil {
		return nil
	}
	s := a.Hex()
	return &s
}

// renderBlock shapes a block; receipts give its transactions' status and
// fee (nil: not known).
func (e *Explorer) renderBlock(b *types.Block, receipts types.Receipts, withTxs bool) blockJSON {
	h := b.HeaderRef()
	out := blockJSON{
		Number: b.Number(), Hash: b.Hash().Hex(), ParentHash: h.ParentHash.Hex(), Timestamp: h.Time,
		Cycle: e.schedule().Of(b.Number()), Miner: h.Coinbase.Hex(), GasUsed: h.GasUsed, GasLimit: h.GasLimit,
		Size: b.Size(), StateRoot: h.Root.Hex(), TransactionCount: len(b.Transactions()),
	}
	if h.BaseFee != nil {
		out.BaseFeePerGas = h.BaseFee.Dec()
	}
	if withTxs {
		rows := make([]txRow, 0, len(b.Transactions()))
		for i := range b.Transactions() {
			rows = append(rows, e.renderRow(b, receipts, i))
		}
		out.Transactions = &rows
	}
	return out
}

// renderRow shapes transaction i of b for a listing.
func (e *Explorer) renderRow(b *types.Block, receipts types.Receipts, i int) txRow {
	tx := b.Transactions()[i]
	var from types.Address
	if i < len(receipts) {
		from = receipts[i].From // derived once, with the receipts
	} else {
		from, _ = e.cfg.Backend.Signer(b.Number(), b.Time()).Sender(tx)
	}
	row := txRow{
		Hash: tx.Hash().Hex(), BlockNumber: b.Number(), Index: i, Cycle: e.schedule().Of(b.Number()),
		Timestamp: b.Time(), From: from.Hex(), To: addrPtr(tx.To()), Value: dec(tx.Value()), Fee: "0",
		Method: e.methodOf(tx),
	}
	if i < len(receipts) {
		r := receipts[i]
		row.ContractAddress = addrPtr(r.ContractAddress)
		if r.Status == types.ReceiptStatusSuccessful || len(r.PostState) > 0 {
			row.Status = 1
		}
		if r.EffectiveGasPrice != nil {
			fee := new(uint256.Int).Mul(r.EffectiveGasPrice, uint256.NewInt(r.GasUsed))
			row.Fee = fee.Dec()
		}
	}
	return row
}

// methodOf names what a transaction does: a transfer, a contract
// creation, a system contract's method by name, or the 4-byte selector of
// a call (with its name when known).
func (e *Explorer) methodOf(tx *types.Transaction) string {
	if c := e.abi.call(tx.To(), tx.Data()); c != nil {
		return c.Name
	}
	data := tx.Data()
	switch {
	case tx.To() == nil:
		return "create"
	case len(data) == 0:
		return "transfer"
	case len(data) < 4:
		return "call"
	}
	sel := hexBytes(data[:4])
	if name, ok := knownMethods[sel]; ok {
		return name
	}
	return sel
}

// knownMethods are the selectors of common token calls.
var knownMethods = map[string]string{
	"0xa9059cbb": "transfer(address,uint256)",
	"0x23b872dd": "transferFrom(address,address,uint256)",
	"0x095ea7b3": "approve(address,uint256)",
	"0x42842e0e": "safeTransferFrom(address,address,uint256)",
	"0xa22cb465": "setApprovalForAll(address,bool)",
	"0x40c10f19": "mint(address,uint256)",
}

// parseBlockID reads "latest", a decimal or 0x number, or a block hash.
func parseBlockID(s string) (num uint64, hash types.Hash, isHash, latest bool, err error) {
	switch {
	case s == "latest":
		return 0, hash, false, true, nil
	case len(s) == 66 && (strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X")):
		hash, err = types.HexToHash(s)
		if err != nil {
			return 0, hash, false, false, badRequest("invalid block hash " + strconv.Quote(s))
		}
		return 0, hash, true, false, nil
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		num, err = strconv.ParseUint(s[2:], 16, 64)
	default:
		num, err = strconv.ParseUint(s, 10, 64)
	}
	if err != nil {
		return 0, hash, false, false, badRequest("invalid block number or hash " + strconv.Quote(s) + ": want a number, a 32-byte 0x hash or \"latest\"")
	}
	return num, hash, false, false, nil
}

func parseTxHash(s string) (types.Hash, error) {
	if len(s) != 66 || !(strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X")) {
		return types.Hash{}, badRequest("invalid transaction hash " + strconv.Quote(s) + ": want 0x and 64 hex digits")
	}
	h, err := types.HexToHash(s)
	if err != nil {
		return types.Hash{}, badRequest("invalid transaction hash " + strconv.Quote(s) + ": want 0x and 64 hex digits")
	}
	return h, nil
}

// parseAddress reads an address as 0x and 40 hex digits (EIP-55 checked
// when mixed case) or as bech32 under the account (chain1…) or validator
// operator (chainvaloper1…) prefix, the same 20 bytes either way.
func parseAddress(s string) (types.Address, error) {
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") && strings.Contains(s, "1") {
		return parseBech32Address(s)
	}
	a, err := types.ParseAddress(s)
	if err != nil || !(strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X")) {
		msg := "invalid address " + strconv.Quote(s) + ": want 0x and 40 hex digits, or bech32 chain1… or chainvaloper1…"
		if errors.Is(err, types.ErrBadChecksum) {
			msg = "invalid address " + strconv.Quote(s) + ": mixed case that is not its EIP-55 checksum"
		}
		return types.Address{}, badRequest(msg)
	}
	return a, nil
}

func parseBech32Address(s string) (types.Address, error) {
	hrp, data, err := bech32.Decode(s)
	switch {
	case err != nil:
		return types.Address{}, badRequest("invalid address " + strconv.Quote(s) + ": " + err.Error())
	case hrp != bech32.AccountPrefix && hrp != bech32.ValidatorPrefix:
		return types.Address{}, badRequest("invalid address " + strconv.Quote(s) + ": prefix " + strconv.Quote(hrp) +
			", want " + bech32.AccountPrefix + " or " + bech32.ValidatorPrefix)
	case len(data) != len(types.Address{}):
		return types.Address{}, badRequest("invalid address " + strconv.Quote(s) + ": " + strconv.Itoa(len(data)) + " bytes, want 20")
	}
	return types.BytesToAddress(data), nil
}

// parseUint reads a decimal query parameter.
func parseUint(name, s string) (uint64, error) {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, badRequest("invalid " + name + " " + strconv.Quote(s) + ": want a non-negative integer")
	}
	return v, nil
}
