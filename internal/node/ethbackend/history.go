package ethbackend

import (
	"errors"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/types"
)

// The history index is the chain's; these methods translate its values
// and errors to the backend's.

func (b *Backend) TxCountThrough(n uint64) (uint64, error) {
	v, err := b.chain.DB().TxCountThrough(n)
	return v, historyErr(err)
}

func (b *Backend) TxAt(ordinal uint64) (backend.TxRef, error) {
	return txRef(b.chain.DB().TxAt(ordinal))
}

func (b *Backend) AddressTxCount(addr types.Address) (uint64, error) {
	return b.chain.DB().AddressTxCount(addr)
}

func (b *Backend) AddressTxAt(addr types.Address, i uint64) (backend.TxRef, error) {
	return txRef(b.chain.DB().AddressTxAt(addr, i))
}

func (b *Backend) AddressTxCountBefore(addr types.Address, n uint64) (uint64, error) {
	return b.chain.DB().AddressTxCountBefore(addr, n)
}

func (b *Backend) HistoryFrom() (uint64, error) { return b.chain.DB().TxIndexFrom() }

func txRef(r chain.TxRef, err error) (backend.TxRef, error) {
	if err != nil {
		return backend.TxRef{}, historyErr(err)
	}
	return backend.TxRef{Block: r.Block, Index: int(r.Index), Hash: r.Hash}, nil
}

func historyErr(err error) error {
	switch {
	case errors.Is(err, chain.ErrNotFound):
		return backend.ErrNotFound
	case errors.Is(err, chain.ErrNotIndexed):
		return backend.ErrNotIndexed
	}
	return err
}

var _ backend.History = (*Backend)(nil)
