// Package backend holds the interfaces every interface package reads the
// node through: the JSON-RPC namespaces now; GraphQL, the block explorer,
// the REST and gRPC gateways next. Each interface covers one concern —
// blocks, receipts and logs, state at a block, the transaction pool,
// node-held keys, the network, execution — so that a reader asks only
// for what it uses and a test implements only that.
//
// The types here are neutral Go values: no JSON shapes and no protocol
// error codes. Each interface package renders them and maps the typed
// errors below to its own codes. The package depends on nothing above the
// core types, so interface packages never import the chain, the EVM, the
// state or the trie; the node implements these interfaces over them.
package backend
