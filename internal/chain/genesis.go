package chain

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// Genesis is a go-ethereum-style genesis.json: the chain config, the
// fields of block 0 and the initial accounts.
type Genesis struct {
	Config     *Config       `json:"config"`
	Nonce      Uint64        `json:"nonce"`
	Timestamp  Uint64        `json:"timestamp"`
	ExtraData  Bytes         `json:"extraData"`
	GasLimit   Uint64        `json:"gasLimit"`
	Difficulty U256          `json:"difficulty"`
	Mixhash    types.Hash    `json:"mixHash"`
	Coinbase   types.Address `json:"coinbase"`
	Alloc      Alloc         `json:"alloc"`

	Number        Uint64     `json:"number"`
	GasUsed       Uint64     `json:"gasUsed"`
	ParentHash    types.Hash `json:"parentHash"`
	BaseFee       *U256      `json:"baseFeePerGas"`
	ExcessBlobGas *Uint64    `json:"excessBlobGas"`
	BlobGasUsed   *Uint64    `json:"blobGasUsed"`

	// Staking is chaind's own section: the initial validators, delegations
	// and network parameters of a proof-of-stake chain. The chain package
	// carries it untouched; the node turns it into the system contracts'
	// genesis state (added to Alloc) and their code. Absent, the chain has
	// no system contracts.
	Staking json.RawMessage `json:"staking,omitempty"`

	// Fork, when set, builds the genesis on another chain's state.
	Fork *ForkPoint `json:"fork,omitempty"`

	// stored is block 0's hash of a genesis read from a data directory
	// (StoredGenesis); allocOmitted says its Alloc was left in the
	// directory's state, so block 0 cannot be built from it.
	stored       types.Hash
	allocOmitted bool
	// spool holds the allocations of a genesis being streamed into a
	// store (InitGenesis) instead of Alloc.
	spool *spool
}

// Account is one genesis allocation.
type Account struct {
	Balance U256                      `json:"balance"`
	Nonce   Uint64                    `json:"nonce,omitempty"`
	Code    Bytes                     `json:"code,omitempty"`
	Storage map[types.Hash]types.Hash `json:"storage,omitempty"`
}

// Alloc maps addresses to their genesis accounts. Keys may be written with
// or without 0x, as go-ethereum allows.
type Alloc map[types.Address]Account

// UnmarshalJSON implements json.Unmarshaler.
func (a *Alloc) UnmarshalJSON(input []byte) error {
	var raw map[string]Account
	if err := json.Unmarshal(input, &raw); err != nil {
		return err
	}
	*a = make(Alloc, len(raw))
	for k, v := range raw {
		addr, err := parseAllocAddress(k)
		if err != nil {
			return err
		}
		(*a)[addr] = v
	}
	return nil
}

// parseAllocAddress reads an allocation's key: 40 hex digits, with or
// without 0x.
func parseAllocAddress(k string) (types.Address, error) {
	s := strings.TrimPrefix(strings.TrimPrefix(k, "0x"), "0X")
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 20 {
		return types.Address{}, fmt.Errorf("alloc: invalid address %q", k)
	}
	return types.BytesToAddress(b), nil
}

// Storage keys and values in genesis files are often short ("0x01"), so
// they are read as numbers left-padded to 32 bytes.
func (acc *Account) UnmarshalJSON(input []byte) error {
	var raw struct {
		Balance U256              `json:"balance"`
		Nonce   Uint64            `json:"nonce"`
		Code    Bytes             `json:"code"`
		Storage map[string]string `json:"storage"`
	}
	if err := json.Unmarshal(input, &raw); err != nil {
		return err
	}
	acc.Balance, acc.Nonce, acc.Code = raw.Balance, raw.Nonce, raw.Code
	if len(raw.Storage) > 0 {
		acc.Storage = make(map[types.Hash]types.Hash, len(raw.Storage))
		for k, v := range raw.Storage {
			kh, err := shortHash(k)
			if err != nil {
				return fmt.Errorf("storage key %q: %v", k, err)
			}
			vh, err := shortHash(v)
			if err != nil {
				return fmt.Errorf("storage value %q: %v", v, err)
			}
			acc.Storage[kh] = vh
		}
	}
	return nil
}

func shortHash(s string) (types.Hash, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(s)%2 == 1 {
		s = "0" + s
	}
	b, err := hex.DecodeString(s)
	if err != nil || len(b) > 32 {
		return types.Hash{}, fmt.Errorf("invalid 32-byte hex")
	}
	return types.BytesToHash(b), nil
}

// LoadGenesis reads and checks a genesis file.
func LoadGenesis(path string) (*Genesis, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseGenesis(data)
}

// ParseGenesis decodes and checks genesis JSON.
func ParseGenesis(data []byte) (*Genesis, error) {
	var g Genesis
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("genesis: %w", err)
	}
	if g.Config == nil {
		return nil, fmt.Errorf("genesis: missing config")
	}
	if err := g.Config.Check(); err != nil {
		return nil, err
	}
	return &g, nil
}

// ToBlock returns block 0 of g's chain under engine e (nil: Ethereum), its
// state built in memory and dropped.
func (g *Genesis) ToBlock(e Engine) (*types.Block, error) {
	if e == nil {
		e = Ethereum{}
	}
	full, err := genesisWith(g, e)
	if err != nil {
		return nil, err
	}
	return full.Commit(trie.NewMemoryDB())
}

// Commit writes the genesis state to db and returns block 0. The state is
// g's allocation alone: a chain's engine adds its own accounts first
// (Open, ToBlock).
func (g *Genesis) Commit(db trie.Database) (*types.Block, error) {
	st, err := g.baseState(db)
	if err != nil {
		return nil, err
	}
	addrs := make([]types.Address, 0, len(g.Alloc))
	for a := range g.Alloc {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool { return string(addrs[i][:]) < string(addrs[j][:]) })
	for _, a := range addrs {
		acc := g.Alloc[a]
		if g.Fork != nil && len(acc.Code) == 0 && len(acc.Storage) == 0 {
			// A funded account on a fork keeps its upstream nonce and
			// code; only its balance is set, as anvil does.
			st.SetBalance(a, &acc.Balance.Int)
			if acc.Nonce != 0 {
				st.SetNonce(a, uint64(acc.Nonce))
			}
			continue
		}
		// A fresh account: on a fork, no upstream storage shows through.
		st.CreateAccount(a)
		st.SetBalance(a, &acc.Balance.Int)
		st.SetNonce(a, uint64(acc.Nonce))
		if len(acc.Code) > 0 {
			st.SetCode(a, acc.Code)
		}
		for k, v := range acc.Storage {
			st.SetState(a, k, v)
		}
	}
	root, err := st.Commit(false)
	if err != nil {
		return nil, err
	}
	if err := st.Error(); err != nil {
		return nil, err
	}
	if g.Fork != nil {
		up, err := g.Fork.upstreamHeader()
		if err != nil {
			return nil, err
		}
		if up != nil {
			g.Fork.localRoot = root
			// The upstream block's transactions and withdrawals stay the
			// upstream's: the fork answers for them from there.
			var w []*types.Withdrawal
			if up.WithdrawalsHash != nil {
				w = []*types.Withdrawal{}
			}
			return types.NewBlock(up, &types.Body{Withdrawals: w}), nil
		}
	}
	return types.NewBlock(g.header(root), &types.Body{Withdrawals: g.withdrawals()}), nil
}

// withdrawals is the genesis body's withdrawal list: empty (not absent)
// once Shanghai is active at genesis.
func (g *Genesis) withdrawals() []*types.Withdrawal {
	if g.Config.Fork(uint64(g.Number), uint64(g.Timestamp)) >= forks.Shanghai {
		return []*types.Withdrawal{}
	}
	return nil
}

func (g *Genesis) header(root types.Hash) *types.Header {
	num, tm := uint64(g.Number), uint64(g.Timestamp)
	h := &types.Header{
		ParentHash:  g.ParentHash,
		UncleHash:   types.EmptyUncleHash,
		Coinbase:    g.Coinbase,
		Root:        root,
		TxHash:      types.EmptyRootHash,
		ReceiptHash: types.EmptyRootHash,
		Difficulty:  g.Difficulty.Int,
		Number:      num,
		GasLimit:    uint64(g.GasLimit),
		GasUsed:     uint64(g.GasUsed),
		Time:        tm,
		Extra:       append([]byte(nil), g.ExtraData...),
		MixDigest:   g.Mixhash,
		Nonce:       types.EncodeNonce(uint64(g.Nonce)),
	}
	if h.GasLimit == 0 {
		h.GasLimit = 30_000_000
	}
	fork := g.Config.Fork(num, tm)
	if fork >= forks.London {
		bf := uint256.NewInt(1_000_000_000) // EIP-1559's initial base fee
		if g.BaseFee != nil {
			bf = new(uint256.Int).Set(&g.BaseFee.Int)
		}
		h.BaseFee = bf
	}
	if fork >= forks.Shanghai {
		wr := types.EmptyRootHash
		h.WithdrawalsHash = &wr
	}
	if fork >= forks.Cancun {
		var used, excess uint64
		if g.BlobGasUsed != nil {
			used = uint64(*g.BlobGasUsed)
		}
		if g.ExcessBlobGas != nil {
			excess = uint64(*g.ExcessBlobGas)
		}
		h.BlobGasUsed, h.ExcessBlobGas = &used, &excess
		h.ParentBeaconRoot = new(types.Hash)
	}
	if fork >= forks.Prague {
		rh := types.EmptyRequestsHash
		h.RequestsHash = &rh
	}
	return h
}
