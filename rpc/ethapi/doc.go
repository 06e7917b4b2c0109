// Package ethapi is the Ethereum JSON-RPC API: the eth, net, web3, debug,
// txpool, testing, chain and personal namespaces, registered on an
// rpc.Server. It decodes parameters and renders results in the shapes
// Ethereum clients expect; everything it serves it reads from the node's
// backend.
package ethapi
