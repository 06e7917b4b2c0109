package evm

import (
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Contract is one call frame's code and gas: the code runs at Address on
// behalf of Caller.
type Contract struct {
	Caller   types.Address
	Address  types.Address
	Value    uint256.Int
	Code     []byte
	CodeHash types.Hash // zero for init code, which is analysed uncached
	Input    []byte
	Gas      uint64

	jumpdests bitvec
}

func (c *Contract) validJumpdest(dest *uint256.Int) bool {
	udest, overflow := dest.Uint64WithOverflow()
	if overflow || udest >= uint64(len(c.Code)) || OpCode(c.Code[udest]) != JUMPDEST {
		return false
	}
	if c.jumpdests == nil {
		if c.CodeHash.IsZero() {
			c.jumpdests = analyse(c.Code)
		} else {
			b, ok := sharedJumpdests.lookup(c.CodeHash)
			if !ok || len(b) != len(c.Code)/8+1 {
				b = analyse(c.Code)
				sharedJumpdests.put(c.CodeHash, b, len(b))
			}
			c.jumpdests = b
		}
	}
	return c.jumpdests.isSet(udest)
}

func (c *Contract) useGas(gas uint64) bool {
	if c.Gas < gas {
		return false
	}
	c.Gas -= gas
	return true
}
