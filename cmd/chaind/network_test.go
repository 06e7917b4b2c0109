package main

import (
	"bufio"
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

// procNet is a testnet whose nodes run as processes of the test binary.
type procNet struct {
	t     *testing.T
	dir   string
	exe   string
	nodes []testnetNode
	procs []*nodeProc
}

// startProcNet writes a testnet; layout, if given, adjusts its spec.
func startProcNet(t *testing.T, validators, full int, blockTime time.Duration, layout ...func(*testnetSpec)) *procNet {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pn := &procNet{t: t, dir: t.TempDir(), exe: exe}
	total := validators + full
	free, err := freeLoopbackPorts("127.0.0.1", 3*total)
	if err != nil {
		t.Fatal(err)
	}
	ports := make([][3]int, total)
	for i := range ports {
		ports[i] = [3]int(free[3*i:])
	}
	spec := testnetSpec{validators: validators, full: full, chainID: chain.TestChainID,
		host: "127.0.0.1", blockTime: blockTime,
		port:     func(i int) (int, int, int) { return ports[i][0], ports[i][1], ports[i][2] },
		apiPorts: func(int, int) (int, int, int) { return 0, 0, 0 }}
	for _, f := range layout {
		f(&spec)
	}
	pn.nodes, err = writeTestnet(pn.dir, spec)
	if err != nil {
		t.Fatal(err)
	}
	pn.procs = make([]*nodeProc, total)
	t.Cleanup(func() {
		stopAll(pn.procs, 5*time.Second)
		if t.Failed() {
			for _, n := range pn.nodes {
				if log, err := os.ReadFile(filepath.Join(n.Dir, "chaind.log")); err == nil {
					t.Logf("%s log:\n%s", n.Name, lastLines(string(log), 40))
				}
			}
		}
	})
	return pn
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// start runs node i with extra flags.
func (pn *procNet) start(i int, extra ...string) {
	pn.t.Helper()
	os.Setenv(asChaindEnv, "1")
	defer os.Unsetenv(asChaindEnv)
	p, err := startNodeProc(pn.exe, pn.nodes[i], nil, append([]string{"--log-level", "info"}, extra...)...)
	if err != nil {
		pn.t.Fatal(err)
	}
	pn.procs[i] = p
}

func (pn *procNet) client(i int) *devload.Client {
	return devload.NewClient("http://" + pn.procs[i].http)
}

func (pn *procNet) head(i int) uint64 {
	h, err := pn.client(i).BlockNumber()
	if err != nil {
		return 0
	}
	return h
}

func (pn *procNet) waitHead(i int, h uint64, within time.Duration) {
	pn.t.Helper()
	deadline := time.Now().Add(within)
	for pn.head(i) < h {
		if time.Now().After(deadline) {
			pn.t.Fatalf("%s at block %d, want %d within %v", pn.nodes[i].Name, pn.head(i), h, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (pn *procNet) miner(i int, num uint64) types.Address {
	var b struct {
		Miner types.Address `json:"miner"`
	}
	if err := pn.client(i).Call(&b, "eth_getBlockByNumber", devload.Hex(num), false); err != nil {
		pn.t.Fatal(err)
	}
	return b.Miner
}

// Four validator processes on loopback commit blocks at a 500 ms block
// time; a fifth node joining from genesis catches up and follows the tip;
// a validator killed with SIGKILL restarts from its data directory, syncs
// and proposes and signs again; every node ends with the same blocks, each
// stored with a certificate that verifies against the validator set.
func TestNetworkOfProcesses(t *testing.T) {
	pn := startProcNet(t, 4, 1, 500*time.Millisecond)
	for i := range 4 {
		pn.start(i)
	}
	pn.waitHead(0, 4, 60*time.Second)
	var peers devload.Quantity
	if err := pn.client(0).Call(&peers, "net_peerCount"); err != nil || peers != 3 {
		t.Fatalf("net_peerCount %d (%v), want 3", peers, err)
	}

	// Kill validator 3; three of four are a quorum and carry on.
	pn.procs[3].kill()
	pn.procs[3] = nil
	h := pn.head(0)
	pn.waitHead(0, h+6, 60*time.Second)

	// A full node joins from genesis and catches up; it announces itself,
	// so every running node lists it with the ID and address that
	// --p2p.peers takes: the one --p2p.external gives (where other
	// machines reach it), not the one it listens on.
	full := pn.nodes[4]
	_, port, _ := strings.Cut(full.P2P, ":")
	full.P2P = "full0.example.org:" + port
	pn.start(4, "--p2p.external", full.P2P)
	pn.waitHead(4, pn.head(0), 60*time.Second)
	pn.waitListed(full, "full", []int{0, 1, 2, 4}, 30*time.Second)

	// Validator 3 restarts, syncs and proposes again.
	pn.start(3)
	rejoin := pn.head(0)
	pn.waitHead(3, rejoin, 60*time.Second)
	v3 := types.Address(pn.nodes[3].ID)
	deadline := time.Now().Add(60 * time.Second)
	for proposed := false; !proposed; {
		if time.Now().After(deadline) {
			t.Fatalf("restarted validator proposed no block after %d (head %d)", rejoin, pn.head(0))
		}
		time.Sleep(200 * time.Millisecond)
		for num := rejoin + 1; num <= pn.head(0); num++ {
			if pn.miner(0, num) == v3 {
				proposed = true
			}
		}
	}

	// A few more blocks, for the certificates checked below; the full
	// node follows the tip.
	pn.waitHead(0, pn.head(0)+4, 30*time.Second)
	top := pn.head(0)
	for i := range pn.nodes {
		pn.waitHead(i, top, 30*time.Second)
	}
	for num := uint64(1); num <= top; num++ {
		want, err := pn.client(0).Block(num)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(pn.nodes); i++ {
			got, err := pn.client(i).Block(num)
			if err != nil || got.Hash != want.Hash {
				t.Fatalf("%s: block %d is %v (%v), %s has %s", pn.nodes[i].Name, num, got, err, pn.nodes[0].Name, want.Hash)
			}
		}
	}

	// After a clean stop, every store holds every block with a valid
	// certificate, and the restarted validator signed some of them.
	stopAll(pn.procs, 5*time.Second)
	for _, n := range pn.nodes {
		signedBy3 := 0
		pn.storedCertificates(n, top, func(num uint64, set *consensus.ValidatorSet, cert *consensus.Certificate) {
			if num > rejoin && signedBy(set, cert, v3) {
				signedBy3++
			}
		})
		if n.Name == pn.nodes[0].Name && signedBy3 == 0 {
			t.Errorf("no certificate after block %d holds the restarted validator's precommit", rejoin)
		}
		t.Logf("%s: %d blocks verified; %d certificates after the restart signed by validator3", n.Name, top, signedBy3)
	}
}

// waitListed waits until chain_getNodeList on each of the nodes on lists
// n, of that kind, as active with its p2p ID, address and public key, and
// its validators first.
func (pn *procNet) waitListed(n testnetNode, kind string, on []int, within time.Duration) {
	pn.t.Helper()
	type node struct {
		ID, IP, PublicKey, Kind, Status string
		Port                            int
	}
	deadline := time.Now().Add(within)
	for _, i := range on {
		for {
			var list struct {
				Nodes      []node
				TotalNodes int
			}
			err := pn.client(i).Call(&list, "chain_getNodeList")
			var found *node
			for j, e := range list.Nodes {
				if e.ID == n.ID.String() {
					found = &list.Nodes[j]
				}
			}
			if found != nil {
				wantIP, wantPort, _ := strings.Cut(n.P2P, ":")
				if found.Kind != kind || found.Status != "active" || found.IP != wantIP || strconv.Itoa(found.Port) != wantPort ||
					len(found.PublicKey) != 66 || list.TotalNodes != len(list.Nodes) || list.Nodes[0].Kind != "validator" {
					pn.t.Fatalf("%s lists %s as %+v (of %d)", pn.nodes[i].Name, n.Name, *found, list.TotalNodes)
				}
				break
			}
			if time.Now().After(deadline) {
				pn.t.Fatalf("%s does not list %s after %v: %+v (%v)", pn.nodes[i].Name, n.Name, within, list, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// storedCertificates opens the store of a stopped node n and checks that
// it holds blocks 1..top, each with a certificate that verifies against
// the validator set of its height; each is then handed to fn.
func (pn *procNet) storedCertificates(n testnetNode, top uint64, fn func(num uint64, set *consensus.ValidatorSet, cert *consensus.Certificate)) {
	pn.t.Helper()
	walkCertified(pn.t, pn.dir, n, top, func(b *types.Block, set *consensus.ValidatorSet, cert *consensus.Certificate) {
		fn(b.Number(), set, cert)
	})
}

// walkCertified opens the store of a stopped node n of the testnet written
// to dir and checks that it holds blocks 1..top, each with a certificate
// that verifies against the validator set of its height; each block is
// then handed to fn.
func walkCertified(t *testing.T, dir string, n testnetNode, top uint64, fn func(b *types.Block, set *consensus.ValidatorSet, cert *consensus.Certificate)) {
	t.Helper()
	vals, err := loadValidatorSet(filepath.Join(dir, "validators.json"))
	if err != nil {
		t.Fatal(err)
	}
	genesis, err := chain.LoadGenesis(filepath.Join(dir, "genesis.json"))
	if err != nil {
		t.Fatal(err)
	}
	kv, err := store.Open(filepath.Join(n.Dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer kv.Close()
	c, err := chain.Open(genesis, kv, pos.ForGenesis(genesis))
	if err != nil {
		t.Fatal(err)
	}
	for num := uint64(1); num <= top; num++ {
		b, err := c.BlockByNumber(num)
		if err != nil {
			t.Fatalf("%s: block %d: %v", n.Name, num, err)
		}
		raw, err := c.Certificate(num)
		if err != nil {
			t.Fatalf("%s: certificate %d: %v", n.Name, num, err)
		}
		cert, err := consensus.DecodeCertificate(raw)
		if err != nil {
			t.Fatal(err)
		}
		set, _ := vals.ValidatorSet(num)
		if err := consensus.VerifyCertificate(chain.TestChainID, set, num, b.Hash(), cert); err != nil {
			t.Fatalf("%s: certificate %d: %v", n.Name, num, err)
		}
		fn(b, set, cert)
	}
}

// signedBy reports whether cert holds the precommit of validator v.
func signedBy(set *consensus.ValidatorSet, cert *consensus.Certificate, v types.Address) bool {
	i, ok := set.Index(v)
	return ok && cert.Signers[i/8]&(1<<(i%8)) != 0
}

// chaind devnet runs each node as a process, prints their endpoints, keeps
// running when one of them is killed (saying how to restart it), and on
// SIGINT stops them all and exits.
func TestDevnetProcessesStopOnInterrupt(t *testing.T) {
	// The first node takes the JSON-RPC and explorer ports given.
	ports, err := freeLoopbackPorts("127.0.0.1", 2)
	if err != nil {
		t.Fatal(err)
	}
	dp := startDevnetProc(t, 3, "--validators", "2", "--full", "1", "--block-time", "200ms", "--log-level", "warn",
		"--http.port", strconv.Itoa(ports[0]), "--explorer.port", strconv.Itoa(ports[1]))
	full := devload.NewClient(dp.urls["full0"])
	deadline := time.Now().Add(60 * time.Second)
	for {
		if h, err := full.BlockNumber(); err == nil && h >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the devnet's full node did not reach block 3")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if want := "http://127.0.0.1:" + strconv.Itoa(ports[0]); dp.urls["validator0"] != want {
		t.Errorf("first node's JSON-RPC at %q, want --http.port's %s (nodes %v)", dp.urls["validator0"], want, dp.urls)
	}
	if resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(ports[1]) + "/"); err != nil || resp.StatusCode != 200 {
		t.Errorf("no explorer on --explorer.port %d: %v", ports[1], err)
	} else {
		resp.Body.Close()
	}
	// kill -9 of the full node: the devnet says so and goes on.
	dp.killAndWatch("full0", "validator0")
	dp.interrupt()
}

// devnetProc is a `chaind devnet` run by a test: the devnet process, its
// stderr, and the nodes it listed (JSON-RPC URL and pid by name).
type devnetProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stderr *lockedOutput
	urls   map[string]string
	pidOf  map[string]int
	ids    map[string]string // p2p IDs
	exited chan error
}

// startDevnetProc runs `chaind devnet args...` and waits until it has
// listed nodes nodes; the test's end kills whatever is left.
func startDevnetProc(t *testing.T, nodes int, args ...string) *devnetProc {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"devnet"}, args...)...)
	cmd.Env = append(os.Environ(), asChaindEnv+"=1")
	dp := &devnetProc{t: t, cmd: cmd, stderr: &lockedOutput{}, urls: map[string]string{}, pidOf: map[string]int{}, ids: map[string]string{}, exited: make(chan error, 1)}
	cmd.Stderr = dp.stderr // read while the devnet writes it
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		for _, pid := range dp.pidOf {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	timeout := time.After(60 * time.Second)
	for len(dp.urls) < nodes {
		select {
		case line, ok := <-lines:
			if !ok {
				cmd.Wait()
				t.Fatalf("devnet ended before listing its nodes:\n%s", dp.stderr.String())
			}
			f := strings.Fields(line)
			if len(f) > 4 && f[1] == "pid" && strings.HasPrefix(f[4], "http://") {
				pid, _ := strconv.Atoi(f[2])
				dp.urls[f[0]], dp.pidOf[f[0]] = f[4], pid
				if len(f) > 8 {
					dp.ids[f[0]], _, _ = strings.Cut(f[8], "@")
				}
			}
		case <-timeout:
			t.Fatal("devnet did not list its nodes")
		}
	}
	go func() {
		for range lines {
		}
		dp.exited <- cmd.Wait()
	}()
	return dp
}

// killAndWatch kills node name with SIGKILL and waits until the devnet
// says which node exited, how, and how to restart it, while node watch
// goes on committing blocks. It returns the restart command printed.
func (dp *devnetProc) killAndWatch(name, watch string) []string {
	t := dp.t
	t.Helper()
	syscall.Kill(dp.pidOf[name], syscall.SIGKILL)
	delete(dp.pidOf, name)
	c := devload.NewClient(dp.urls[watch])
	h0, _ := c.BlockNumber()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if h, err := c.BlockNumber(); err == nil && h >= h0+3 && strings.Contains(dp.stderr.String(), "Restart it alone with") {
			break
		}
		select {
		case err := <-dp.exited:
			t.Fatalf("devnet ended (%v) when one node was killed:\n%s", err, dp.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s was killed, %s stopped at %d or the devnet did not say how to restart it:\n%s", name, watch, h0, dp.stderr.String())
		}
	}
	out := dp.stderr.String()
	if !strings.Contains(out, name+" exited (signal: killed)") {
		t.Errorf("devnet did not say which node exited and how:\n%s", out)
	}
	_, after, _ := strings.Cut(out, name+" exited")
	_, after, _ = strings.Cut(after, "Restart it alone with:\n")
	line, _, _ := strings.Cut(after, "\n")
	return strings.Fields(line)
}

// interrupt sends the devnet SIGINT and checks that it stops every node
// and exits cleanly.
func (dp *devnetProc) interrupt() {
	t := dp.t
	t.Helper()
	dp.cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-dp.exited:
		if err != nil {
			t.Fatalf("devnet exited with %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("devnet did not stop within 15s of SIGINT")
	}
	for _, pid := range dp.pidOf {
		if err := syscall.Kill(pid, 0); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("node process %d outlived the devnet", pid)
		}
	}
}

// lockedOutput is a buffer a child process writes while a test reads it.
type lockedOutput struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedOutput) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedOutput) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
