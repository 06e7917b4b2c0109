# benchlib.sh — what the side-by-side load scripts (rpcbench.sh,
# gqlbench.sh) share: the geth binary, the chaind build, waiting for a port,
# and the summary of alternating runs. Sourced, not run.

# peer_setup sets root and work (a temporary folder removed on exit with
# every background job), GETH (v1.16.9, built once into
# $XDG_CACHE_HOME/chaind-peerbench unless GETH names a binary) and builds
# chaind into $work/chaind.
peer_setup() {
	root=$(cd "$(dirname "${BASH_SOURCE[1]}")/../.." && pwd)
	work=$(mktemp -d)
	trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
	if [[ -z "${GETH:-}" ]]; then
		local cache=${XDG_CACHE_HOME:-$HOME/.cache}/chaind-peerbench
		GETH=$cache/geth
		if [[ ! -x $GETH ]]; then
			echo "building geth v1.16.9 into $cache ..." >&2
			GOBIN=$cache go install github.com/ethereum/go-ethereum/cmd/geth@v1.16.9
		fi
	fi
	(cd "$root" && go build -o "$work/chaind" ./cmd/chaind)
}

# wait_for PATH BODY PATTERN PORT...: polls each port (up to 30 s) until a
# POST of BODY to PATH answers with PATTERN.
wait_for() {
	local path=$1 body=$2 pattern=$3 port
	shift 3
	for port in "$@"; do
		for _ in $(seq 150); do
			curl -sf -XPOST -H 'content-type: application/json' --data "$body" "127.0.0.1:$port$path" |
				grep -q "$pattern" && break
			sleep 0.2
		done
	done
}

# summarize LABEL FILE: FILE holds lines "ROUND CASE NODE <bench line>"
# with chaind's line before geth's in each round; prints per case the
# median req/s and p99 of each node and the median of the per-round
# ratios chaind/geth.
summarize() {
	awk -v label="$1" '
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
	printf "%-16s %12s %10s %12s %10s %8s\n", label, "chaind req/s", "p99 ms", "geth req/s", "p99 ms", "ratio"
	for (k = 1; k <= n; k++) {
		m = order[k]
		printf "%-16s %12.0f %10.2f %12.0f %10.2f %8.2f\n", m, median(rates[m, "chaind"]), median(p99s[m, "chaind"]),
			median(rates[m, "geth"]), median(p99s[m, "geth"]), median(ratios[m])
	}
}' "$2"
}
