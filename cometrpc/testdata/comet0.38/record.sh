#!/bin/sh
# Records the CometBFT v0.38 RPC goldens in this directory: installs
# cometbft v0.38.26 (its kvstore app is built in), runs a one-validator
# node on free loopback ports, makes a few transactions and records the
# answers (record/main.go). Run from anywhere; needs Go and the module
# proxy for github.com/cometbft/cometbft.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
version=v0.38.26
bin=${COMETBFT:-}
if [ -z "$bin" ]; then
	gobin=$(mktemp -d)
	trap 'rm -rf "$gobin"' EXIT
	GOBIN=$gobin go install github.com/cometbft/cometbft/cmd/cometbft@$version
	bin=$gobin/cometbft
fi
case "$("$bin" version)" in
0.38.*) ;;
*) echo "record.sh: $bin is not cometbft 0.38 ($("$bin" version))" >&2; exit 1 ;;
esac
rm -f "$here"/*.json
cd "$here/record" && go run . -cometbft "$bin" -out "$here"
