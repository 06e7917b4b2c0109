#!/usr/bin/env bash
# rpcbench.sh — JSON-RPC load on chaind --dev and geth --dev (v1.16.9) side
# by side, driven by the same generator (`chaind bench rpc`, 32 keep-alive
# connections), alternating short runs so both see the same machine load.
# Prints every run, then per method the median req/s and p99 of each node
# and the median of the per-round ratios.
#
#   internal/peerbench/rpcbench.sh [DURATION [ROUNDS [METHOD...]]]
#
# GETH=path/to/geth uses that binary; otherwise v1.16.9 is built once into
# $XDG_CACHE_HOME/chaind-peerbench (or ~/.cache/...).
set -euo pipefail
dur=${1:-3s}; rounds=${2:-5}; shift $(( $# > 2 ? 2 : $# ))
methods=${*:-eth_blockNumber eth_getBalance eth_call}
source "$(dirname "$0")/benchlib.sh"
peer_setup

cport=18545 gport=18546
"$work/chaind" --dev --http.port $cport --ws.port 18556 >"$work/chaind.log" 2>&1 &
"$GETH" --dev --datadir "$work/geth" --http --http.addr 127.0.0.1 --http.port $gport --http.api eth,net,web3 \
	--authrpc.port 18561 --port 30399 --nodiscover --verbosity 1 >"$work/geth.log" 2>&1 &
wait_for "" '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' result $cport $gport
declare -A to
for port in $cport $gport; do
	to[$port]=$("$work/chaind" bench rpc --url "http://127.0.0.1:$port" --method eth_call --duration 1ms --warmup 0 | awk '/^deployed/{print $2}')
done

for r in $(seq "$rounds"); do
	for m in $methods; do
		for port in $cport $gport; do
			name=chaind; [[ $port == "$gport" ]] && name=geth
			extra=(); [[ $m == eth_call ]] && extra=(--to "${to[$port]}")
			line=$("$work/chaind" bench rpc --url "http://127.0.0.1:$port" --method "$m" "${extra[@]}" \
				--duration "$dur" --warmup 500ms | grep '^run 1')
			echo "$r $m $name $line"
		done
	done
done | tee "$work/runs"

echo
summarize method "$work/runs"
