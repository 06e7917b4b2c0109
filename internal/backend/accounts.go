package backend

import (
	"errors"

	"github.com/chaind/chaind/internal/types"
)

// Accounts are keys the node holds and signs with (development accounts).
// Public nodes hold none.
type Accounts interface {
	Accounts() []types.Address
	// SignHash signs a 32-byte digest with the key of addr (R || S || V,
	// V in {0, 1}); ErrUnknownAccount when the node holds no such key.
	SignHash(addr types.Address, digest types.Hash) ([]byte, error)
}

// ErrUnknownAccount is returned for an address the node holds no key for.
var ErrUnknownAccount = errors.New("unknown account")
