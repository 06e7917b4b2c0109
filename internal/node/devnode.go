package node

import (
	"context"

	"github.com/chaind/chaind/internal/node/dev"
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc/ethapi"
)

// enableDevTools prepares the test helpers of a --dev node (package dev);
// the node registers them on its JSON-RPC server and runs its consensus
// under their mining control.
func (n *Node) enableDevTools() {
	d := dev.New(dev.Config{View: n.view, Pool: n.Pool, Genesis: n.cfg.Genesis, BlockTime: n.cfg.BlockTime,
		ClientVersion: n.cfg.ClientVersion, Node: devNode{n}})
	n.keys.imp = d
	n.dev = d
	if n.cfg.DevNoMining {
		d.SetAutomine(false)
		d.SetIntervalMining(0, 0)
	}
	d.AutoImpersonate(n.cfg.DevAutoImpersonate)
	n.backend.SetSentHook(func(ctx context.Context, tx *types.Transaction) error {
		h := tx.Hash()
		return d.WaitMined(ctx, func() bool { _, _, ok := n.Chain.DB().TxLookup(h); return ok })
	})
	go func() {
		<-n.stop
		d.Close()
	}()
	ethapi.RegisterDevTools(n.RPC, n.backend, d, n.keys, ethapi.EthOptions{ClientVersion: n.cfg.ClientVersion})
}

// devNode is the node as the test helpers drive it.
type devNode struct{ n *Node }

func (d devNode) StopConsensus()                 { d.n.stopConsensusAndWait() }
func (d devNode) StartConsensus() error          { return d.n.startConsensus() }
func (d devNode) RestorePool(saved txpool.Saved) { d.n.pool.Restore(saved) }
func (d devNode) RefreshPool()                   { d.n.pool.Refresh() }

// StartConsole logs each new block and its transactions, as a developer
// watching a dev node expects (dev.Console). It stops when the node
// closes.
func (n *Node) StartConsole() {
	c := dev.NewConsole(n.Chain, n.log, n.backend)
	if n.dev != nil {
		c.Enabled = n.dev.LoggingEnabled
		// eth_call and eth_estimateGas print their console.log lines too,
		// as anvil's do.
		n.backend.SetConsole(func(lines []string) { c.PrintConsole(types.Hash{}, lines) })
		n.RPC.Observe(c.Requests().Observe) // each call, as npx hardhat node prints them
	}
	n.wg.Add(1)
	c.Start(n.stop, n.wg.Done)
}

// DevTools is the node's test helpers; nil unless Config.DevTools.
func (n *Node) DevTools() *dev.Tools { return n.dev }
