# chaind — build, test and measure. `make test` is what CI runs.
GO       ?= go
VECTORS  ?= ../shared/vectors
ETH      := $(VECTORS)/ethereum-tests
BIN      := bin/chaind
VERSION  ?= 1.0.0-dev
LDFLAGS  := -X github.com/chaind/chaind/internal/version.Binary=$(VERSION)

.PHONY: build test unit conformance hardhat foundry bench bench-staking peerbench rpcbench evmbench fmt vet fuzz-seeds sim e2e e2e-net soak-attacks

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/chaind

# Everything CI checks: formatting, vet, unit tests (fuzz seeds included),
# the 60 s attack soak, every conformance runner over the shared vectors
# when they exist, then the end-to-end suite (e2e).
test: vet unit soak-attacks conformance e2e hardhat foundry e2e-net

unit:
	@fmtout=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$fmtout" ]; then echo "gofmt needed:"; echo "$$fmtout"; exit 1; fi
	$(GO) test -count=1 ./...

vet:
	$(GO) vet ./...

fmt:
	gofmt -w $$(find . -name '*.go' -not -path './node_modules/*')

# One runner per kind; each prints "N passed, M failed, K skipped" last.
CONFORMANCE_RUNS = \
	rlp:$(ETH)/RLPTests \
	tx:$(ETH)/TransactionTests \
	trie:$(ETH)/TrieTests \
	state:$(ETH)/GeneralStateTests \
	rpc:$(VECTORS)/execution-apis/tests \
	rpc:$(VECTORS)/execution-apis-latest/tests \
	blockchain:$(ETH)/BlockchainTests \
	graphql:$(VECTORS)/hive-graphql

conformance: build
	@if [ ! -d "$(VECTORS)" ]; then \
	  echo "conformance: SKIPPED — $(VECTORS) is absent (put the shared vectors beside the repo to run them)"; \
	  exit 0; fi; \
	status=0; \
	for run in $(CONFORMANCE_RUNS); do \
	  kind=$${run%%:*}; dir=$${run#*:}; \
	  echo "== chaind conformance $$kind $$dir"; \
	  ./$(BIN) conformance $$kind $$dir || status=1; \
	done; exit $$status

# ethers, viem and solc-js against a throwaway chaind --dev node. npm must
# reach its registry (or cache): without it this fails, it never skips.
e2e:
	@command -v node >/dev/null && command -v npm >/dev/null || { echo "e2e: FAILED — node and npm (Node >= 20) are required"; exit 1; }
	cd testdata/e2e && npm ci --no-audit --no-fund && node --test --test-force-exit

# Hardhat's sample project (hardhat 2 + toolbox, compiled with solc-js)
# runs its tests unchanged with --network pointing at a chaind --dev node.
hardhat:
	@command -v node >/dev/null && command -v npm >/dev/null || { echo "hardhat: FAILED — node and npm (Node >= 20) are required"; exit 1; }
	cd testdata/hardhat && npm ci --no-audit --no-fund && node run.mjs

# A Foundry project (forge from npm @foundry-rs/forge, solc-js as its
# compiler): forge script --broadcast with a CREATE2 deployment, then
# forge test --fork-url, against a chaind --dev node. About 2 minutes
# with npm ci on a loaded 2-core machine.
foundry:
	@command -v node >/dev/null && command -v npm >/dev/null || { echo "foundry: FAILED — node and npm (Node >= 20) are required"; exit 1; }
	cd testdata/foundry && npm ci --no-audit --no-fund && node run.mjs

# Partitions of a 4-validator network in network namespaces the test
# creates (ip netns + veth; root only). Elsewhere it says SKIPPED.
e2e-net:
	@if [ "$$(id -u)" != 0 ] || ! command -v ip >/dev/null; then \
	  echo "e2e-net: SKIPPED — needs root and iproute2 (ip netns)"; exit 0; fi; \
	CHAIND_E2E_NET=1 $(GO) test -count=1 -run '^TestPartitions$$' -v ./cmd/chaind

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Proof of stake: a cycle boundary with 1,000 validators and 100,000
# delegations (target ≤ 50 ms); a delegation against an ERC-20 transfer
# through the same executor (target ≤ 2× in gas/tx and ns/tx).
bench-staking:
	$(GO) test -run '^$$' -bench 'CycleBoundary|DelegateVsERC20' -count 5 ./internal/staking ./internal/node

.PHONY: netbench syncbench

# 4 chaind validator processes against 4 CometBFT v0.38.26 (kvstore) on
# loopback: block intervals, committed tx/s under load, vote gossip latency.
netbench:
	bash internal/peerbench/netbench.sh $(NETBENCH_ARGS)

# A fresh full node syncing 10,000 blocks of ERC-20 transfers over p2p,
# against importing the same blocks on one node (Mgas/s each).
syncbench:
	$(GO) test -count=1 -run '^$$' -bench '^BenchmarkSyncVsImport$$' -benchtime 1x -timeout 0 ./internal/node $(SYNCBENCH_ARGS)

# The node at scale beside go-ethereum: for each count in SCALEBENCH_ACCOUNTS
# a genesis of that many funded accounts (and a tenth as many ERC-20 holders)
# is initialised for chaind and for geth --dev (GETH_VERSIONS, default v1.16.9
# v1.17.10, built once into the cache; "none": chaind alone), and the nodes are
# measured in alternating rounds (chaind bench state: data directory, start,
# RSS idle and after a transfer load, eth_getBalance/eth_call p50/p99,
# committed tx/s and Mgas/s, pruning pauses, restart; medians and ratios).
# SCALEBENCH_ARGS='--rounds 3 --cache 512 --dir DIR' go to chaind bench state.
SCALEBENCH_ACCOUNTS ?= 100000 1000000
.PHONY: scalebench
scalebench:
	SCALEBENCH_ARGS='$(SCALEBENCH_ARGS)' bash internal/peerbench/scalebench.sh $(SCALEBENCH_ACCOUNTS)

# The store against Pebble and bbolt: random writes, random reads, range
# scans, fsync'd batch commits; engines alternate in every round. Its own
# module, so the main go.mod stays clean.
.PHONY: storebench
storebench:
	cd internal/store/testdata/peerbench && $(GO) run . $(STOREBENCH_ARGS)

# Ratios against go-ethereum, in its own module so the main go.mod stays clean.
peerbench:
	cd internal/peerbench && $(GO) run . $(PEERBENCH_ARGS)

# JSON-RPC load on chaind --dev and geth --dev v1.16.9, alternating runs.
rpcbench:
	bash internal/peerbench/rpcbench.sh $(RPCBENCH_ARGS)

# The evm-bench contracts: chaind evm run against go-ethereum's evm (v1.16.9 and the newest),
# eth_call on chaind --dev against anvil; alternating rounds, medians, ratios, CPU profile tops.
# EVMBENCH_ARGS='5 evm' = rounds and part (all, evm, call).
evmbench:
	EVM_BENCH_DIR=$${EVM_BENCH_DIR:-$(abspath $(VECTORS)/../evm-bench)} bash internal/peerbench/evmbench.sh $(EVMBENCH_ARGS)

# Seeded consensus simulations (about 15,000 runs, 20M events) with faults under 1/3 of the power.
sim:
	$(GO) test -count=1 -timeout 0 -run TestManySeeds ./consensus/sim -sim.steps 20000000 -v

fuzz-seeds:
	$(GO) test -run 'Fuzz' ./...

# Honest clients and an honest peer beside every attack of issue 26 against
# one --public validator for 60 s: connection floods on every port p2p
# included, a WebSocket reader that never reads, bad batches, HTTP/2 rapid
# reset, password guessing, 4 MiB p2p greetings, peer-exchange poisoning
# from fresh keys (cmd/chaind/soakattack_test.go). make test runs it; about
# 70 s of wall time, most of it the 60 s of load.
soak-attacks:
	CHAIND_SOAK_ATTACKS=60s $(GO) test -count=1 -run TestSoakAttacks -v ./cmd/chaind
