#!/usr/bin/env bash
# regen.sh — record go-ethereum v1.16.9's eth_simulateV1 answers to
# requests.jsonl on genesis.json (a chain of one proof-of-work genesis
# block: London at 3, the merge netsplit at 6, Shanghai and Cancun by
# time) into geth.jsonl, which TestSimulateMatchesGeth compares with.
#
#   GETH=path/to/geth bash regen.sh
#
# Without GETH, v1.16.9 is built once into $XDG_CACHE_HOME/chaind-peerbench
# (as internal/peerbench/rpcbench.sh does).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [[ -z "${GETH:-}" ]]; then
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/chaind-peerbench
	GETH=$cache/geth
	[[ -x $GETH ]] || GOBIN=$cache go install github.com/ethereum/go-ethereum/cmd/geth@v1.16.9
fi
env -u GETH "$GETH" version | grep -q '^Version: 1.16.9' || { echo "regen.sh: want geth 1.16.9" >&2; exit 1; }
work=$(mktemp -d)
port=${PORT:-18745}
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
env -u GETH "$GETH" init --datadir "$work" "$here/genesis.json" >/dev/null 2>&1
env -u GETH "$GETH" --datadir "$work" --http --http.addr 127.0.0.1 --http.port "$port" --http.api eth \
	--authrpc.port $((port + 1)) --port 0 --nodiscover --maxpeers 0 --verbosity 1 >"$work/geth.log" 2>&1 &
for _ in $(seq 50); do
	curl -sf -H 'content-type: application/json' --data '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' \
		"http://127.0.0.1:$port" >/dev/null && break
	sleep 0.2
done
: >"$here/geth.jsonl"
while IFS= read -r line; do
	params=${line#*\"params\": }
	params=${params%\}}
	curl -sf -H 'content-type: application/json' \
		--data "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_simulateV1\",\"params\":$params}" \
		"http://127.0.0.1:$port" | tr -d '\n' >>"$here/geth.jsonl"
	echo >>"$here/geth.jsonl"
done <"$here/requests.jsonl"
echo "wrote $(wc -l <"$here/geth.jsonl") answers to geth.jsonl"
