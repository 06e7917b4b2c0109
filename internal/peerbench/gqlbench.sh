#!/usr/bin/env bash
# gqlbench.sh — GraphQL load on chaind and geth --graphql (v1.16.9) side by
# side, both holding hive's GraphQL chain, driven by the same generator
# (`chaind bench graphql`, 32 keep-alive connections), in alternating short
# runs so both see the same machine load. Prints every run, then per query
# the median req/s and p99 of each node and the median of the per-round
# ratios. Queries: a block with its transactions and logs, an account
# balance, a 10-block range.
#
#   internal/peerbench/gqlbench.sh [DURATION [ROUNDS [QUERY...]]]
#
# VECTORS=dir of the shared vectors (default ../shared/vectors beside the
# repository); GETH=path/to/geth uses that binary, otherwise v1.16.9 is
# built once into $XDG_CACHE_HOME/chaind-peerbench (or ~/.cache/...).
set -euo pipefail
dur=${1:-3s}; rounds=${2:-5}; shift $(( $# > 2 ? 2 : $# ))
queries=${*:-block balance range}
source "$(dirname "$0")/benchlib.sh"
peer_setup
chain=${VECTORS:-$root/../shared/vectors}/hive-graphql/init
[[ -f $chain/testGenesis.json ]] || { echo "gqlbench: $chain/testGenesis.json is absent" >&2; exit 1; }

"$work/chaind" import --genesis "$chain/testGenesis.json" --datadir "$work/chaind-data" "$chain/testBlockchain.blocks" >"$work/import.log" 2>&1 ||
	{ cat "$work/import.log" >&2; exit 1; }
# geth 1.16 wants Cancun's blob parameters spelled out in the config, as
# hive adds them when it configures a geth client.
sed '/"config"/a\
    "blobSchedule": {"cancun": {"target": 3, "max": 6, "baseFeeUpdateFraction": 3338477}},' \
	"$chain/testGenesis.json" >"$work/geth-genesis.json"
"$GETH" --datadir "$work/geth" init "$work/geth-genesis.json" >>"$work/import.log" 2>&1
"$GETH" --datadir "$work/geth" import "$chain/testBlockchain.blocks" >>"$work/import.log" 2>&1 ||
	{ cat "$work/import.log" >&2; exit 1; }

cport=18745 gport=18746
"$work/chaind" --genesis "$chain/testGenesis.json" --datadir "$work/chaind-data" --http.port $cport --ws.port -1 \
	--rest.port -1 --grpc.port -1 --cometrpc.port -1 --explorer.port -1 --p2p.port -1 >"$work/chaind.log" 2>&1 &
"$GETH" --datadir "$work/geth" --http --http.addr 127.0.0.1 --http.port $gport --graphql \
	--authrpc.port 18761 --port 30499 --nodiscover --maxpeers 0 --verbosity 1 >"$work/geth.log" 2>&1 &
wait_for /graphql '{"query":"{ block { number } }"}' '"0x22"' $cport $gport

for r in $(seq "$rounds"); do
	for q in $queries; do
		for port in $cport $gport; do
			name=chaind; [[ $port == "$gport" ]] && name=geth
			line=$("$work/chaind" bench graphql --url "http://127.0.0.1:$port/graphql" --query "$q" \
				--duration "$dur" --warmup 500ms | grep '^run 1')
			echo "$r $q $name $line"
		done
	done
done | tee "$work/runs"

echo
summarize query "$work/runs"
