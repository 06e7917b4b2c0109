#!/usr/bin/env bash
# regen.sh — record go-ethereum v1.16.9's answers to the tracing scenario of
# TestTracersMatchGeth (rpc/ethapi/tracers_geth_test.go) into geth.json:
# a fresh `geth --dev` on a free port, the same test run against it with
# CHAIND_TRACE_PEER set, which writes the answers instead of comparing.
#
#   GETH=path/to/geth bash regen.sh
#
# Without GETH, v1.16.9 is built once into
# $XDG_CACHE_HOME/chaind-peerbench/geth-v1.16.9 (outside the main module).
# Tracee.bin is Tracee.sol compiled by solc 0.8.28 (optimizer on, 200 runs,
# evmVersion cancun); it is kept compiled so the test needs no compiler.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [[ -z "${GETH:-}" ]]; then
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/chaind-peerbench/geth-v1.16.9
	GETH=$cache/geth
	[[ -x $GETH ]] || GOBIN=$cache go install github.com/ethereum/go-ethereum/cmd/geth@v1.16.9
fi
ver=$(env -u GETH "$GETH" version)
grep -q "^Version: 1.16.9" <<<"$ver" || { echo "regen.sh: want geth 1.16.9" >&2; exit 1; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
env -u GETH "$GETH" --dev --datadir "$work/data" --http --http.addr 127.0.0.1 --http.port 0 \
	--http.api eth,debug,net,web3 --authrpc.port 0 --port 0 --nodiscover --maxpeers 0 --ipcdisable \
	--verbosity 3 >"$work/geth.log" 2>&1 &
endpoint=
for _ in $(seq 100); do
	endpoint=$(sed -n 's/.*HTTP server started *endpoint=\([0-9.:]*\).*/\1/p' "$work/geth.log" | head -1)
	[[ -n $endpoint ]] && break
	sleep 0.2
done
[[ -n $endpoint ]] || { cat "$work/geth.log" >&2; echo "regen.sh: geth did not start" >&2; exit 1; }
cd "$here/../.."
CHAIND_TRACE_PEER=http://$endpoint go test -count=1 -run '^TestTracersMatchGeth$' .
echo "wrote $here/geth.json from geth at $endpoint"
