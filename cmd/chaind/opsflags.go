package main

import (
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/chaind/chaind/internal/h2"
	"github.com/chaind/chaind/internal/node"
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/rpc"
	"github.com/chaind/chaind/rpc/ethapi"
)

// passphraseEnv holds the debug passphrase itself, for operators who
// would rather not keep it in a file. A flag value would show in ps.
const passphraseEnv = "CHAIND_DEBUG_PASSPHRASE"

// opsFlags are the flags of a public node's operator.
type opsFlags struct {
	passphraseFile string
	trustedProxies string
	debugTrusted   string
	captureMiB     int64
	metricsPort    int
	limits         node.Limits
	bodyMiB        int64
	responseMiB    int64
	wsBacklogMiB   int64
	txpoolMiB      int64
}

func (o *opsFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&o.passphraseFile, "debug.passphrase-file", "", "file holding the passphrase of POST /authenticate and the /log/* debug routes (or set "+passphraseEnv+"); without one the routes are off")
	fs.StringVar(&o.trustedProxies, "trusted-proxies", "", "comma-separated addresses or CIDRs of reverse proxies whose X-Forwarded-For names the client (for limits and captured transactions)")
	fs.StringVar(&o.debugTrusted, "debug.trusted", "", "comma-separated addresses or CIDRs of the operator: their logins to /authenticate are held to their own failed attempts only, not to the lock-out that failures from many addresses put on everyone else")
	fs.IntVar(&o.metricsPort, "metrics.port", 6060, "port of /metrics with --metrics (0 any free port)")
	l := &o.limits
	fs.IntVar(&l.PerSecond, "limits.rps", 10, "with --public: calls per second per client address (each call of a batch and each WebSocket message counts)")
	fs.IntVar(&l.PerMinute, "limits.rpm", 600, "with --public: calls per minute per client address")
	fs.IntVar(&l.Conns, "limits.conns", 5, "with --public: open connections per client address, over all ports")
	fs.IntVar(&l.Batch, "limits.batch", 1000, "calls per JSON-RPC batch")
	fs.Int64Var(&o.bodyMiB, "limits.body", 5, "MiB of a request body or WebSocket message")
	fs.Int64Var(&o.responseMiB, "limits.response", 25, "MiB of a response, a whole batch's included")
	fs.Uint64Var(&l.LogRange, "limits.logs-range", 10_000, "blocks one eth_getLogs may span")
	fs.IntVar(&l.LogResults, "limits.logs-results", 10_000, "logs one eth_getLogs may return")
	fs.Uint64Var(&l.CallGas, "limits.call-gas", 50_000_000, "gas of one eth_call, eth_estimateGas, eth_createAccessList or eth_simulateV1")
	fs.DurationVar(&l.CallTimeout, "limits.call-timeout", 5*time.Second, "time of one of those calls")
	fs.IntVar(&l.CallReturnData, "limits.call-returndata", ethapi.DefaultReturnDataLimit, "bytes of return data one eth_call may answer (erigon's --rpc.returndata.limit; geth has only the response cap)")
	fs.IntVar(&l.FDReserve, "limits.fd-reserve", 0, "open files kept for the node itself (store, p2p peers); the ports' connection caps share the rest of the process's limit, raised to its hard limit at start, and the store keeps at most what is left after 64 + 4 per p2p peer open as table files (0: 1024 + 4 per p2p peer, 960 of them tables)")
	fs.IntVar(&l.WSSubs, "limits.ws-subs", 100, "subscriptions per WebSocket connection")
	fs.IntVar(&l.WSQueue, "limits.ws-queue", 4096, "messages waiting for a slow WebSocket client before it is cut")
	fs.Int64Var(&o.wsBacklogMiB, "limits.ws-backlog", rpc.DefaultQueueBytes>>20, "MiB of answers and notifications waiting for a slow WebSocket client before it is cut (close 1008); one larger answer is still sent alone")
	fs.Int64Var(&o.txpoolMiB, "limits.txpool", txpool.DefaultConfig.MaxBytes>>20, "MiB of transactions the pool holds (encoded, blob sidecars included); past it a transaction paying a higher fee cap evicts cheaper ones and any other is refused (txpool is full)")
	fs.IntVar(&l.H2Resets, "limits.h2-resets", h2.DefaultResetsPerSecond, "streams one gRPC connection may have reset a second (bursts of twice that) before GOAWAY ENHANCE_YOUR_CALM (HTTP/2 rapid reset)")
	fs.IntVar(&l.H2Control, "limits.h2-control", h2.DefaultControlPerSecond, "PING, SETTINGS and empty frames one gRPC connection may send a second (bursts of twice that) before GOAWAY ENHANCE_YOUR_CALM")
	fs.Int64Var(&o.captureMiB, "debug.capture-size", 16, "MiB each debug capture table (API stats, transactions) may use in the data directory; the oldest rows go first")
}

// apply puts the flags into the node's configuration.
func (o *opsFlags) apply(cfg *node.OpsConfig) error {
	pass, err := o.passphrase()
	if err != nil {
		return err
	}
	cfg.DebugPassphrase = pass
	if o.captureMiB < 1 {
		return errors.New("--debug.capture-size must be at least 1 (MiB)")
	}
	cfg.CaptureBytes = o.captureMiB << 20
	if o.metricsPort < 0 || o.metricsPort > 65535 {
		return errors.New("--metrics.port must be 0 to 65535 (turn metrics off by leaving out --metrics)")
	}
	cfg.MetricsPort = o.metricsPort
	l := o.limits
	for name, v := range map[string]int64{"rps": int64(l.PerSecond), "rpm": int64(l.PerMinute), "conns": int64(l.Conns),
		"batch": int64(l.Batch), "body": o.bodyMiB, "response": o.responseMiB, "logs-range": int64(l.LogRange),
		"logs-results": int64(l.LogResults), "call-gas": int64(l.CallGas), "call-timeout": int64(l.CallTimeout), "call-returndata": int64(l.CallReturnData),
		"ws-subs": int64(l.WSSubs), "ws-queue": int64(l.WSQueue), "ws-backlog": o.wsBacklogMiB, "txpool": o.txpoolMiB,
		"h2-resets": int64(l.H2Resets), "h2-control": int64(l.H2Control)} {
		if v <= 0 {
			return fmt.Errorf("--limits.%s must be positive", name)
		}
	}
	if l.FDReserve < 0 {
		return errors.New("--limits.fd-reserve must not be negative")
	}
	if o.bodyMiB > 1<<10 || o.responseMiB > 1<<10 || o.wsBacklogMiB > 1<<10 {
		return errors.New("--limits.body, --limits.response and --limits.ws-backlog are MiB and at most 1024")
	}
	if o.txpoolMiB > 1<<16 {
		return errors.New("--limits.txpool is MiB and at most 65536")
	}
	l.BodyBytes, l.ResponseBytes, l.WSQueueBytes, l.TxPoolBytes = o.bodyMiB<<20, o.responseMiB<<20, o.wsBacklogMiB<<20, o.txpoolMiB<<20
	cfg.Limits = l
	if cfg.TrustedProxies, err = parsePrefixes("--trusted-proxies", o.trustedProxies); err != nil {
		return err
	}
	cfg.DebugTrusted, err = parsePrefixes("--debug.trusted", o.debugTrusted)
	return err
}

// passphrase reads the debug passphrase from the file, else the
// environment; a trailing newline of the file is not part of it.
func (o *opsFlags) passphrase() ([]byte, error) {
	var p string
	if o.passphraseFile != "" {
		b, err := os.ReadFile(o.passphraseFile)
		if err != nil {
			return nil, fmt.Errorf("--debug.passphrase-file: %w", err)
		}
		p = strings.TrimRight(string(b), "\r\n")
		if p == "" {
			return nil, fmt.Errorf("--debug.passphrase-file %s is empty", o.passphraseFile)
		}
	} else {
		p = os.Getenv(passphraseEnv)
	}
	if p == "" {
		return nil, nil
	}
	if len(p) < 8 {
		return nil, errors.New("the debug passphrase must be at least 8 characters")
	}
	return []byte(p), nil
}

// parsePrefixes reads a flag's comma-separated addresses and CIDRs.
func parsePrefixes(flag, s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		if p, err := netip.ParsePrefix(v); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is neither an address nor a CIDR", flag, v)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}
