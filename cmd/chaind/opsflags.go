package main

import (
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"strings"

	"github.com/chaind/chaind/internal/node"
)

// passphraseEnv holds the debug passphrase itself, for operators who
// would rather not keep it in a file. A flag value would show in ps.
const passphraseEnv = "CHAIND_DEBUG_PASSPHRASE"

// opsFlags are the flags of a public node's operator.
type opsFlags struct {
	passphraseFile string
	trustedProxies string
	captureMiB     int64
}

func (o *opsFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&o.passphraseFile, "debug.passphrase-file", "", "file holding the passphrase of POST /authenticate and the /log/* debug routes (or set "+passphraseEnv+"); without one the routes are off")
	fs.StringVar(&o.trustedProxies, "trusted-proxies", "", "comma-separated addresses or CIDRs of reverse proxies whose X-Forwarded-For names the client (for limits and captured transactions)")
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
	cfg.TrustedProxies, err = parseProxies(o.trustedProxies)
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

func parseProxies(s string) ([]netip.Prefix, error) {
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
			return nil, fmt.Errorf("--trusted-proxies: %q is neither an address nor a CIDR", v)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}
