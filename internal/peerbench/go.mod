module github.com/chaind/chaind/internal/peerbench

go 1.26.0

require (
	github.com/chaind/chaind v0.0.0
	github.com/ethereum/go-ethereum v1.16.9
)

require (
	github.com/ProjectZKM/Ziren/crates/go-runtime/zkvm_runtime v0.0.0-20251001021608-1fe7b43fc4d6 // indirect
	github.com/decred/dcrd/dcrec/secp256k1/v4 v4.4.1 // indirect
	github.com/holiman/uint256 v1.3.2 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace github.com/chaind/chaind => ../..
