module github.com/chaind/chaind

go 1.26.0

require (
	github.com/coder/websocket v1.8.15
	github.com/decred/dcrd/dcrec/secp256k1/v4 v4.4.1
	github.com/holiman/uint256 v1.3.2
	golang.org/x/crypto v0.58.0
	golang.org/x/sys v0.49.0
)
