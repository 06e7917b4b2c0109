#!/usr/bin/env bash
# evmbench.sh — the shared evm-bench contracts on chaind and its peers, side by side
# (issue 30's benchmark):
#   (a) in-process: `chaind evm run --bench` against go-ethereum's `evm run --bench`, v1.16.9
#       and the newest release the module proxy serves;
#   (b) where users meet the EVM: eth_call on `chaind --dev` against anvil (npm
#       @foundry-rs/anvil, revm inside), the runtime code installed at one address with
#       hardhat_setCode / anvil_setCode, same `from`, gas 10^10.
# Rounds alternate which side runs first; per contract it prints the median time of each
# side over the rounds and the median of the per-round ratios chaind/peer (below 1: chaind
# is faster), then where chaind's time goes (the top of a CPU profile per contract).
#
# Usage: bash internal/peerbench/evmbench.sh [ROUNDS] [PART]   (make evmbench)
#   ROUNDS defaults to 5; PART is all (default), evm or call.
#   EVM_BENCH_DIR (default ../shared/evm-bench), GETH_VERSIONS (default "v1.16.9 latest"),
#   ANVIL=path/to/anvil, CONTRACTS="SnailTracer ERC20Transfer ..." narrow it down.
# The peers are built or installed once into $XDG_CACHE_HOME/chaind-peerbench (geth's evm
# with `go install`, outside the main module; anvil with npm). Numbers on a shared machine
# are noisy: compare the ratios, which come from runs side by side.
set -euo pipefail
rounds=${1:-5}
part=${2:-all}
source "$(dirname "$0")/benchlib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
cache=${XDG_CACHE_HOME:-$HOME/.cache}/chaind-peerbench
bench=${EVM_BENCH_DIR:-$root/../shared/evm-bench}
[[ -d $bench ]] || { echo "evmbench: SKIPPED — $bench is absent"; exit 0; }
(cd "$root" && go build -o "$work/chaind" ./cmd/chaind)

# contract name -> calldata (the loops take none).
declare -A calldata=(
	[SnailTracer]=30627b7c [ERC20Transfer]=30627b7c [ERC20Mint]=30627b7c
	[ERC20ApprovalTransfer]=30627b7c [TenThousandHashes]=30627b7c
	[keccak_loop_1M]= [arith_loop_1M]=
)
read -r -a contracts <<<"${CONTRACTS:-SnailTracer ERC20Transfer ERC20Mint ERC20ApprovalTransfer TenThousandHashes keccak_loop_1M arith_loop_1M}"

# ms DURATION: a Go duration (1.5s, 12.3ms, 850µs) in milliseconds.
ms() {
	awk -v d="$1" 'BEGIN {
		if (d ~ /µs$|us$/) { sub(/µs$|us$/, "", d); printf "%.3f", d / 1000 }
		else if (d ~ /ms$/) { sub(/ms$/, "", d); printf "%.3f", d }
		else if (d ~ /m[0-9.]+s$/) { split(d, p, "m"); sub(/s$/, "", p[2]); printf "%.3f", (p[1] * 60 + p[2]) * 1000 }
		else if (d ~ /s$/) { sub(/s$/, "", d); printf "%.3f", d * 1000 }
		else { print "NaN" } }'
}

# table LABEL FILE PEERS...: FILE holds "ROUND CONTRACT SIDE MS" lines; prints per contract
# the median ms of chaind and of each peer and the median per-round ratio chaind/peer.
table() {
	local label=$1 file=$2
	shift 2
	awk -v label="$label" -v peers="$*" '
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ t[$1, $2, $3] = $4; times[$2, $3] = times[$2, $3] " " $4; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 }; if ($1 > r) r = $1 }
END {
	np = split(peers, p, " ")
	printf "%-22s %12s", label, "chaind ms"
	for (k = 1; k <= np; k++) printf " %16s %7s", p[k] " ms", "ratio"
	printf "\n"
	for (i = 1; i <= n; i++) {
		c = order[i]
		printf "%-22s %12.2f", c, median(times[c, "chaind"])
		for (k = 1; k <= np; k++) {
			ratios = ""
			for (j = 1; j <= r; j++) if (((j, c, "chaind") in t) && ((j, c, p[k]) in t) && t[j, c, p[k]] > 0) ratios = ratios " " t[j, c, "chaind"] / t[j, c, p[k]]
			printf " %16.2f %7.2f", median(times[c, p[k]]), median(ratios)
		}
		printf "\n"
	}
}' "$file"
}

# (a) In-process against go-ethereum's evm.
evm_part() {
	local peers=() v bin dir out
	for v in ${GETH_VERSIONS:-v1.16.9 latest}; do
		# "latest" is the newest release the module proxy serves now.
		[[ $v == latest ]] && v=$(cd "$work" && go list -m -f '{{.Version}}' github.com/ethereum/go-ethereum@latest)
		dir=$cache/evm-$v
		if [[ ! -x $dir/evm ]]; then
			echo "building go-ethereum's evm $v into $dir ..." >&2
			(cd "$work" && GOBIN=$dir go install "github.com/ethereum/go-ethereum/cmd/evm@$v")
		fi
		peers+=("geth-$v")
		ln -sf "$dir/evm" "$work/evm-geth-$v"
	done
	echo "== in-process: chaind evm run --bench vs go-ethereum evm run --bench (${peers[*]}), $rounds rounds"
	: >"$work/evm.txt"
	for r in $(seq "$rounds"); do
		for c in "${contracts[@]}"; do
			local sides=(chaind "${peers[@]}")
			# Odd rounds run chaind first, even rounds last.
			((r % 2)) || sides=("${peers[@]}" chaind)
			for s in "${sides[@]}"; do
				if [[ $s == chaind ]]; then
					out=$("$work/chaind" evm run --bench --benchtime 1s --gas 1000000000 \
						--codefile "$bench/$c.runtime.hex" --input "${calldata[$c]}")
					d=$(awk -F': ' '/^time per run/{print $2}' <<<"$out")
				else
					# go-ethereum prints its bench figures on stderr.
					out=$("$work/evm-$s" run --bench --gas 1000000000 --codefile "$bench/$c.runtime.hex" \
						--input "${calldata[$c]}" 2>&1 >/dev/null)
					d=$(awk -F': *' '/^execution time/{print $2}' <<<"$out")
				fi
				[[ -n $d ]] || { echo "evmbench: no time from $s on $c:" >&2; echo "$out" >&2; exit 1; }
				echo "$r $c $s $(ms "$d")" >>"$work/evm.txt"
			done
		done
	done
	table "contract (evm run)" "$work/evm.txt" "${peers[@]}"
}

# freeport prints a loopback port nobody listens on now.
freeport() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# call PORT CONTRACT [SIDE]: one eth_call of the contract at $addr, over a new
# connection as every client without a pool makes it; prints its wall time in ms.
# With SIDE it also appends "SIDE CONTRACT CONNECT SERVER" to $work/split.txt:
# curl's TCP connect time and the time from the request sent to the first byte
# of the answer (the server's part: accept, parse, execute, encode), in ms.
call() {
	local body="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_call\",\"params\":[{\"from\":\"$from\",\"to\":\"$addr\",\"data\":\"0x${calldata[$2]}\",\"gas\":\"0x2540be400\"},\"latest\"]}"
	local t
	t=$(curl -s -o "$work/call.out" -w '%{time_total} %{time_connect} %{time_pretransfer} %{time_starttransfer}' \
		-XPOST -H 'content-type: application/json' --data "$body" "127.0.0.1:$1")
	grep -q '"result"' "$work/call.out" || { echo "evmbench: eth_call of $2 on port $1 failed: $(head -c 300 "$work/call.out")" >&2; exit 1; }
	read -r total connect pre start <<<"$t"
	[[ -z ${3:-} ]] || awk -v s="$3" -v c="$2" -v a="$connect" -v p="$pre" -v f="$start" \
		'BEGIN { printf "%s %s %.3f %.3f\n", s, c, a * 1000, (f - p) * 1000 }' >>"$work/split.txt"
	awk -v t="$total" 'BEGIN { printf "%.3f", t * 1000 }'
}

# split_table: per contract and side, the median connect and server times of split.txt.
split_table() {
	awk '
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ k = $2 " " $1; con[k] = con[k] " " $3; srv[k] = srv[k] " " $4; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
END {
	printf "%-22s %-7s %10s %10s\n", "split (median ms)", "side", "connect", "server"
	for (i = 1; i <= n; i++) { split(order[i], p, " "); printf "%-22s %-7s %10.2f %10.2f\n", p[1], p[2], median(con[order[i]]), median(srv[order[i]]) }
}' "$work/split.txt"
}

# setcode PORT METHOD CONTRACT installs the contract's runtime code at $addr.
setcode() {
	curl -sf -XPOST -H 'content-type: application/json' \
		--data "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$2\",\"params\":[\"$addr\",\"0x$(cat "$bench/$3.runtime.hex")\"]}" \
		"127.0.0.1:$1" | grep -q '"result"' || { echo "evmbench: $2 on port $1 failed" >&2; exit 1; }
}

# (b) eth_call on chaind --dev against anvil.
call_part() {
	local anvil=${ANVIL:-$cache/anvil/node_modules/.bin/anvil}
	if [[ ! -x $anvil ]]; then
		echo "installing anvil (npm @foundry-rs/anvil) into $cache/anvil ..." >&2
		mkdir -p "$cache/anvil"
		(cd "$cache/anvil" && npm install --no-audit --no-fund @foundry-rs/anvil >/dev/null)
	fi
	local cport aport
	cport=$(freeport)
	# Both at Prague: from Osaka (chaind's dev default) a call's gas is
	# capped at 2^24 (EIP-7825), below what the heavy contracts need.
	# Both mine only when a transaction comes (anvil's default automine is
	# chaind's --block-time 0; chaind's default makes an empty block every
	# 2 s, whose commit and first vote signature, decompressing the
	# secp256k1 key table, would land inside some timed calls).
	"$work/chaind" --dev --block-time 0 --hardfork prague --http.port "$cport" --ws.port -1 --rest.port -1 --grpc.port -1 --cometrpc.port -1 --explorer.port -1 \
		--limits.call-gas 10000000000 --limits.call-timeout 120s >"$work/chaind.log" 2>&1 &
	aport=$(freeport)
	"$anvil" --port "$aport" --hardfork prague --disable-block-gas-limit --silent >"$work/anvil.log" 2>&1 &
	wait_for "" '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' result "$cport" "$aport"
	echo "== eth_call: chaind --dev vs anvil $("$anvil" --version | awk 'NR==1{print $NF}'), gas 10^10, $rounds rounds"
	addr=0x00000000000000000000000000000000000be4c0
	from=0x00000000000000000000000000000000000ca11e
	: >"$work/call.txt"
	: >"$work/split.txt"
	for c in "${contracts[@]}"; do
		setcode "$cport" hardhat_setCode "$c"
		setcode "$aport" anvil_setCode "$c"
		# Warm both (code analysis, caches) and check they answer the same.
		call "$cport" "$c" >/dev/null
		cp "$work/call.out" "$work/call.chaind"
		call "$aport" "$c" >/dev/null
		if [[ $(grep -o '"result":"[^"]*"' "$work/call.chaind") != $(grep -o '"result":"[^"]*"' "$work/call.out") ]]; then
			echo "evmbench: chaind and anvil disagree on $c: $(head -c 200 "$work/call.chaind") vs $(head -c 200 "$work/call.out")" >&2
			exit 1
		fi
		for r in $(seq "$rounds"); do
			if ((r % 2)); then
				echo "$r $c chaind $(call "$cport" "$c" chaind)" >>"$work/call.txt"
				echo "$r $c anvil $(call "$aport" "$c" anvil)" >>"$work/call.txt"
			else
				echo "$r $c anvil $(call "$aport" "$c" anvil)" >>"$work/call.txt"
				echo "$r $c chaind $(call "$cport" "$c" chaind)" >>"$work/call.txt"
			fi
		done
	done
	table "contract (eth_call)" "$work/call.txt" anvil
	split_table
}

# Where chaind's time goes: the top of a CPU profile of evm run per contract.
profile_part() {
	echo "== where chaind's time goes (go tool pprof -top, flat, evm run --bench 2s)"
	for c in "${contracts[@]}"; do
		"$work/chaind" evm run --bench --benchtime 2s --gas 1000000000 --codefile "$bench/$c.runtime.hex" \
			--input "${calldata[$c]}" --cpuprofile "$work/$c.prof" >/dev/null
		echo "-- $c"
		go tool pprof -top -nodecount=6 "$work/chaind" "$work/$c.prof" 2>/dev/null |
			awk '/flat%/{on=1; next} on {printf "   %6s %6s  %s\n", $1, $2, $6}'
	done
}

echo "evmbench: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) (a loaded machine makes every time noisy; the ratios are side by side)"
case $part in
all) evm_part; call_part; profile_part ;;
evm) evm_part; profile_part ;;
call) call_part ;;
*) echo "evmbench: PART is all, evm or call" >&2; exit 2 ;;
esac
