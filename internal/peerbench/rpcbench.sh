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
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

if [[ -z "${GETH:-}" ]]; then
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/chaind-peerbench
	GETH=$cache/geth
	if [[ ! -x $GETH ]]; then
		echo "building geth v1.16.9 into $cache ..." >&2
		GOBIN=$cache go install github.com/ethereum/go-ethereum/cmd/geth@v1.16.9
	fi
fi
(cd "$root" && go build -o "$work/chaind" ./cmd/chaind)

cport=18545 gport=18546
"$work/chaind" --dev --http.port $cport --ws.port 18556 >"$work/chaind.log" 2>&1 &
"$GETH" --dev --datadir "$work/geth" --http --http.addr 127.0.0.1 --http.port $gport --http.api eth,net,web3 \
	--authrpc.port 18561 --port 30399 --nodiscover --verbosity 1 >"$work/geth.log" 2>&1 &
for port in $cport $gport; do
	for _ in $(seq 150); do
		curl -sf -XPOST -H 'content-type: application/json' \
			--data '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' "127.0.0.1:$port" >/dev/null && break
		sleep 0.2
	done
done
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
awk '
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	for (i = 1; i <= NF; i++) {
		if ($i == "req/s") rate = $(i - 1)
		if ($i == "p99") { p99 = $(i + 1); sub("ms", "", p99) }
	}
	key = $2 SUBSEP $3
	rates[key] = rates[key] " " rate; p99s[key] = p99s[key] " " p99
	if ($3 == "chaind") last[$2] = rate; else ratios[$2] = ratios[$2] " " last[$2] / rate
	if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 }
}
END {
	printf "%-16s %12s %10s %12s %10s %8s\n", "method", "chaind req/s", "p99 ms", "geth req/s", "p99 ms", "ratio"
	for (k = 1; k <= n; k++) {
		m = order[k]
		printf "%-16s %12.0f %10.2f %12.0f %10.2f %8.2f\n", m, median(rates[m, "chaind"]), median(p99s[m, "chaind"]),
			median(rates[m, "geth"]), median(p99s[m, "geth"]), median(ratios[m])
	}
}' "$work/runs"
