#!/usr/bin/env bash
# scalebench.sh — the node at scale beside go-ethereum (issue 31's benchmark):
# for each account count, `chaind bench state` builds one allocation (N funded
# accounts, an ERC-20 token with N/10 holders, the dev accounts), initialises
# chaind and every geth from it (geth --dev on a datadir `geth init` wrote:
# geth's dev fork schedule and system contracts, chaind's chain ID, gas limit
# and allocation), and measures each node in alternating rounds on a fresh
# copy of its datadir: start to first answer, RSS idle and after a transfer
# load, eth_getBalance / eth_call p50 and p99, committed tx/s and Mgas/s,
# restart, datadir bytes. Prints per metric the medians and the median of
# the per-round ratios chaind/geth.
#
#   internal/peerbench/scalebench.sh [ACCOUNTS...]       (make scalebench)
#
# ACCOUNTS default to "100000 1000000". GETH_VERSIONS (default "v1.16.9
# v1.17.10"; "none" for chaind alone) are built once with `go install` into
# $XDG_CACHE_HOME/chaind-peerbench/geth-VERSION (outside the main module).
# SCALEBENCH_ARGS go to chaind bench state, e.g. "--rounds 3 --cache 512
# --dir /big/disk/scale" (a --dir keeps the initialised datadirs for the
# next run with the same counts).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/chaind-peerbench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/chaind" ./cmd/chaind)
geths=()
for v in ${GETH_VERSIONS:-v1.16.9 v1.17.10}; do
	[[ $v == none ]] && continue
	dir=$cache/geth-$v
	if [[ ! -x $dir/geth ]]; then
		echo "building geth $v into $dir ..." >&2
		(cd "$work" && GOBIN=$dir go install "github.com/ethereum/go-ethereum/cmd/geth@$v")
	fi
	geths+=("$dir/geth")
done
list=$(IFS=,; echo "${geths[*]}")
read -r -a args <<<"${SCALEBENCH_ARGS:-}"
for n in ${*:-100000 1000000}; do
	echo "== chaind bench state --accounts $n --geth $list ${args[*]}"
	"$work/chaind" bench state --accounts "$n" --geth "$list" "${args[@]}"
done
