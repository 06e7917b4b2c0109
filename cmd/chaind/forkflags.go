package main

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/chaind/chaind/internal/node"
)

// forkFlags make a --dev node a fork of another chain.
type forkFlags struct {
	url   string
	block string
}

func (f *forkFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.url, "fork-url", "", "with --dev: fork the chain at this JSON-RPC endpoint; its state is read on first touch and kept (the chain ID is the upstream's unless --chain-id)")
	fs.StringVar(&f.block, "fork-block", "", "with --fork-url: the block to fork, a number (default: the upstream's latest block at start)")
}

// apply checks the flags and fills in cfg.Fork.
func (f *forkFlags) apply(cfg *node.Config, rf *runFlags) error {
	cfg.Fork.Reset = rf.dev
	if f.url == "" {
		if f.block != "" {
			return errors.New("--fork-block needs --fork-url")
		}
		return nil
	}
	if !rf.dev {
		return errors.New("--fork-url needs --dev: only a development chain can fork another")
	}
	u, err := url.Parse(f.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--fork-url %q: want an http:// or https:// JSON-RPC endpoint", f.url)
	}
	cfg.Fork.URL = f.url
	cfg.Fork.ChainID = rf.chainID
	if f.block != "" && f.block != "latest" {
		s := strings.ReplaceAll(f.block, "_", "")
		base := 10
		if strings.HasPrefix(s, "0x") {
			s, base = s[2:], 16
		}
		n, err := strconv.ParseUint(s, base, 64)
		if err != nil {
			return fmt.Errorf("--fork-block %q: want a block number such as 19000000 or 0x121eac0", f.block)
		}
		cfg.Fork.Block = &n
	}
	return nil
}
