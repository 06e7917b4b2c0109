// Package querybench measures one query through each of the node's query
// paths side by side, in one process and one run: gRPC (HTTP/2), REST
// (HTTP/1.1) and the CometBFT RPC's abci_query (JSON-RPC over HTTP/1.1),
// all three over the same query layer and in-memory chain. Issue 29 asks
// that abci_query and REST stay within 20% of gRPC's calls per second;
// the benchmark alternates the paths so a loaded machine slows them
// alike, and reports each one's rate. It holds no code of its own beyond
// its benchmark: the paths are the packages' own handlers.
package querybench
