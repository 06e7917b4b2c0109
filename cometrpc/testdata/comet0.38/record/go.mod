// The recorder of the CometBFT v0.38 goldens: a nested module so that
// nothing it needs becomes a dependency of chaind. It drives a cometbft
// binary (the kvstore app built in) over its RPC only.
module github.com/chaind/chaind/cometrpc/testdata/comet0.38/record

go 1.26.0

require github.com/coder/websocket v1.8.15
