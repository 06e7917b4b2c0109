#!/usr/bin/env bash
# netbench.sh — 4 chaind validators against 4 CometBFT v0.38.26 validators
# (kvstore app), each network as 4 processes on loopback, side by side:
# idle block intervals per block-time setting, committed transactions per
# second under load, vote gossip latency. Flags go to the netbench program
# (go run ./netbench -h in this folder).
#
#   internal/peerbench/netbench.sh [-rounds 3] [-duration 20s] [-rate 3500] ...
#
# COMETBFT=path/to/cometbft uses that binary; otherwise v0.38.26 is built
# once into $XDG_CACHE_HOME/chaind-peerbench (or ~/.cache/...).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -z "${COMETBFT:-}" ]]; then
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/chaind-peerbench
	COMETBFT=$cache/cometbft
	if [[ ! -x $COMETBFT ]]; then
		echo "building cometbft v0.38.26 into $cache ..." >&2
		GOBIN=$cache go install github.com/cometbft/cometbft/cmd/cometbft@v0.38.26
	fi
fi
(cd "$root" && go build -o "$work/chaind" ./cmd/chaind)
cd "$root/internal/peerbench"
go run ./netbench -chaind "$work/chaind" -cometbft "$COMETBFT" -work "$work" "$@"
