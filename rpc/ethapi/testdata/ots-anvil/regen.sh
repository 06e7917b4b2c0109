#!/usr/bin/env bash
# regen.sh — record anvil's answers to the Otterscan calls of
# TestOtterscanMatchesAnvil (rpc/ethapi/ots_anvil_test.go) into anvil.json:
# a fresh `anvil --hardfork cancun` on a free port, the same test run
# against it with CHAIND_OTS_PEER set, which writes the answers instead of
# comparing.
#
#   ANVIL=path/to/anvil bash regen.sh
#
# Without ANVIL, npm's @foundry-rs/anvil is installed once into
# $XDG_CACHE_HOME/chaind-peerbench/anvil (as internal/peerbench does).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [[ -z "${ANVIL:-}" ]]; then
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/chaind-peerbench/anvil
	ANVIL=$cache/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil
	[[ -x $ANVIL ]] || (mkdir -p "$cache" && cd "$cache" && npm install --no-save @foundry-rs/anvil >npm.log 2>&1)
fi
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
"$ANVIL" --port 0 --hardfork cancun >"$work/anvil.log" 2>&1 &
endpoint=
for _ in $(seq 100); do
	endpoint=$(sed -n 's/^Listening on \([0-9.:]*\).*/\1/p' "$work/anvil.log" | head -1)
	[[ -n $endpoint ]] && break
	sleep 0.2
done
[[ -n $endpoint ]] || { cat "$work/anvil.log" >&2; echo "regen.sh: anvil did not start" >&2; exit 1; }
"$ANVIL" --version | head -1
cd "$here/../.."
CHAIND_OTS_PEER=http://$endpoint go test -count=1 -run '^TestOtterscanMatchesAnvil$' .
echo "wrote $here/anvil.json from anvil at $endpoint"
