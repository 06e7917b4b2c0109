#!/usr/bin/env bash
# Records testdata/sdk050/golden: what a real Cosmos SDK v0.50 node answers,
# over gRPC and REST, to every query of the services chaind serves and to
# the bad requests clients make, for the tests that compare chaind's
# answers with them field by field (lcd's and grpcsrv's TestSDKGoldens).
# Nothing here runs in make test or CI: it needs the Go module proxy for
# the SDK and a few minutes.
#
# It builds simd from record/ (a nested module: chaind's own module stays
# free of the SDK; versions in record/go.mod), starts a one-validator
# chain on free loopback ports with 500 ms blocks, makes a delegation, an
# unbonding, a text proposal with a deposit and a vote, and a bank send
# from one account, then runs record/ against it.
#
#   bash testdata/sdk050/record.sh            # or SIMD=/path/to/simd bash ...
#
# Needs go, curl, jq and python3 (free ports).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

simd=${SIMD:-}
if [ -z "$simd" ]; then
  echo "building simd (record/go.mod)"
  (cd "$here/record" && go build -o "$work/simd" cosmossdk.io/simapp/simd)
  simd=$work/simd
fi
versions=$(cd "$here/record" && go list -m -f '{{.Path}}@{{.Version}}' cosmossdk.io/simapp github.com/cosmos/cosmos-sdk github.com/cometbft/cometbft | tr '\n' ' ')
home=$work/home
chain=sim-1
kr=(--keyring-backend test --home "$home")

"$simd" init recorder --chain-id "$chain" --home "$home" >/dev/null 2>&1
for k in val del other nobody; do "$simd" keys add "$k" "${kr[@]}" >/dev/null 2>&1; done
addr() { "$simd" keys show "$1" -a "${kr[@]}" "${@:2}"; }
valacc=$(addr val); delacc=$(addr del); otheracc=$(addr other); nobody=$(addr nobody)
valoper=$(addr val --bech val); noval=$(addr nobody --bech val)
"$simd" genesis add-genesis-account "$valacc" 1000000000000stake --home "$home"
"$simd" genesis add-genesis-account "$delacc" 1000000000000stake --home "$home"
"$simd" genesis gentx val 100000000000stake --chain-id "$chain" "${kr[@]}" >/dev/null 2>&1
"$simd" genesis collect-gentxs --home "$home" >/dev/null 2>&1
valcons=$("$simd" comet show-address --home "$home")
# Half-second blocks, so the transactions below are in within seconds.
sed -i 's/^timeout_commit = .*/timeout_commit = "500ms"/' "$home/config/config.toml"

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rpc=$(port); p2p=$(port); grpc=$(port); api=$(port); pprof=$(port)
"$simd" start --home "$home" --minimum-gas-prices 0stake \
  --rpc.laddr "tcp://127.0.0.1:$rpc" --p2p.laddr "tcp://127.0.0.1:$p2p" --rpc.pprof_laddr "127.0.0.1:$pprof" \
  --grpc.address "127.0.0.1:$grpc" --api.enable --api.address "tcp://127.0.0.1:$api" >"$work/simd.log" 2>&1 &
pid=$!

height() { curl -s "http://127.0.0.1:$rpc/status" | jq -r '.result.sync_info.latest_block_height' 2>/dev/null || echo 0; }
for _ in $(seq 240); do [ "$(height)" -ge 2 ] 2>/dev/null && break; sleep 0.5; done
[ "$(height)" -ge 2 ] || { echo "simd did not start:"; tail -30 "$work/simd.log"; exit 1; }

# tx sends one transaction from del and waits until a block holds it; it
# prints the hash.
tx() {
  local hash
  hash=$("$simd" tx "$@" --from del "${kr[@]}" --chain-id "$chain" --node "tcp://127.0.0.1:$rpc" \
    --gas 400000 --yes --output json | jq -r 'if .code == 0 then .txhash else error("refused: \(.)") end')
  for _ in $(seq 60); do
    if curl -s "http://127.0.0.1:$rpc/tx?hash=0x$hash" | jq -e '.result.height' >/dev/null 2>&1; then echo "$hash"; return; fi
    sleep 0.5
  done
  echo "transaction $hash not included" >&2; exit 1
}
tx staking delegate "$valoper" 5000000stake >/dev/null
tx staking unbond "$valoper" 1000000stake >/dev/null
tx gov submit-legacy-proposal --title recorded --description "a text proposal" --type Text --deposit 10000000stake >/dev/null
tx gov vote 1 yes >/dev/null
send=$(tx bank send "$delacc" "$otheracc" 1000stake)
sendtx=$(curl -s "http://127.0.0.1:$rpc/tx?hash=0x$send")
sendheight=$(echo "$sendtx" | jq -r .result.height)
txbytes=$(echo "$sendtx" | jq -r .result.tx)
# A block after it, so the send's block has its commit.
for _ in $(seq 20); do [ "$(height)" -gt "$sendheight" ] && break; sleep 0.5; done

(cd "$here/record" && go run . -grpc "127.0.0.1:$grpc" -rest "http://127.0.0.1:$api" \
  -acc "$delacc" -nobody "$nobody" -val "$valoper" -noval "$noval" -cons "$valcons" -proposal 1 \
  -height "$sendheight" -tx "$send" -txbytes "$txbytes" -txquery "tx.height=$sendheight" -denom stake -plan v2 \
  -simd-version "$versions($("$simd" version 2>&1 | head -1))" -out "$here/golden" -versions "$here/VERSIONS.json")
echo "recorded into $here/golden"
