package staking

import (
	"fmt"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// EncodeCall returns the call data of a system contract method ("Staking",
// "Distribution" or "Governance"), for Go callers that send transactions
// to the contracts: tools and tests. Arguments are types.Address,
// *uint256.Int, uint64, bool, string or []byte, matching the method's
// inputs.
func EncodeCall(contract, name string, args ...any) ([]byte, error) {
	for _, c := range Specs() {
		if c.Name != contract {
			continue
		}
		for _, m := range c.methods {
			if m.name != name {
				continue
			}
			ts := paramTypes(m.in)
			if len(args) != len(ts) {
				return nil, fmt.Errorf("%s.%s takes %d arguments, got %d", contract, name, len(ts), len(args))
			}
			enc := new(encoder)
			for i, a := range args {
				switch v := a.(type) {
				case types.Address:
					enc.address(v)
				case *uint256.Int:
					enc.uint(v)
				case uint64:
					enc.u64(v)
				case bool:
					enc.bool(v)
				case string:
					enc.string(v)
				case []byte:
					enc.bytes(v)
				default:
					return nil, fmt.Errorf("%s.%s argument %d: unsupported type %T", contract, name, i, a)
				}
			}
			sel := selector(m.sig())
			return append(sel[:], enc.encode()...), nil
		}
		return nil, fmt.Errorf("%s has no method %s", contract, name)
	}
	return nil, fmt.Errorf("no system contract %s", contract)
}
