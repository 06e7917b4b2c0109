package cometrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"time"

	"github.com/chaind/chaind/internal/backend"
)

// net_info, genesis, genesis_chunked and consensus_params: the node's
// peers and the chain's rules in CometBFT's shapes, each value from what
// the node runs with (Backend.Params, the genesis it started from).

// Params are the consensus limits consensus_params and genesis report.
type Params struct {
	// BlockMaxBytes bounds a block's encoding: a proposal travels in one
	// p2p frame.
	BlockMaxBytes int64
	// EvidenceMaxAgeBlocks is how many blocks back a double sign may
	// still be punished; EvidenceMaxBytes bounds the evidence one block
	// carries.
	EvidenceMaxAgeBlocks int64
	EvidenceMaxBytes     int64
	// BlockTime is the target time between blocks; CometBFT states the
	// evidence age as a duration too, which is the age in blocks at that
	// pace.
	BlockTime time.Duration
}

func (s *Server) netInfo(_ context.Context, ci callInfo, _ params) (any, error) {
	peers := []any{}
	if pl, ok := s.b.Network.(backend.PeerList); ok {
		for _, p := range pl.Peers() {
			var ni nodeInfoJSON
			ni.ID = fmt.Sprintf("%x", p.ID)
			ni.ListenAddr = p.ListenAddr
			ni.Network = s.chainID()
			ni.Channels = channels
			ni.Other.TxIndex = "on"
			host := p.RemoteAddr
			if h, _, err := net.SplitHostPort(host); err == nil {
				host = h
			}
			peers = append(peers, map[string]any{"node_info": ni, "is_outbound": !p.Inbound,
				"connection_status": map[string]any{"Duration": "0", "SendMonitor": nil, "RecvMonitor": nil, "Channels": nil},
				"remote_ip":         host})
		}
	}
	n := len(peers)
	if s.b.Network != nil {
		n = max(n, s.b.Network.PeerCount())
	}
	listeners := []string{}
	if s.b.P2PAddr != "" {
		listeners = append(listeners, "Listener(@"+s.b.P2PAddr+")")
	}
	return map[string]any{"listening": s.b.P2PAddr != "", "listeners": listeners, "n_peers": i64(n), "peers": peers}, nil
}

func (s *Server) consensusParamsJSON(gasLimit uint64) map[string]any {
	p := s.b.Params
	return map[string]any{
		"block": map[string]any{"max_bytes": i64(p.BlockMaxBytes), "max_gas": i64(gasLimit)},
		"evidence": map[string]any{"max_age_num_blocks": i64(p.EvidenceMaxAgeBlocks),
			"max_age_duration": i64(int64(p.BlockTime) * p.EvidenceMaxAgeBlocks), "max_bytes": i64(p.EvidenceMaxBytes)},
		"validator": map[string]any{"pub_key_types": []string{"secp256k1"}},
		"version":   map[string]any{"app": i64(0)},
		// chaind has no vote extensions: 0 is CometBFT's "never enabled".
		"abci": map[string]any{"vote_extensions_enable_height": i64(0)},
	}
}

// consensusParams reports the limits in force at a height; a block's gas
// limit is its own (it moves block by block within the chain's bounds).
func (s *Server) consensusParams(_ context.Context, _ callInfo, p params) (any, error) {
	n, err := s.heightParam(p, "height")
	if err != nil {
		return nil, err
	}
	b, err := s.b.Blocks.BlockByNumber(n)
	if err != nil {
		return nil, err
	}
	return map[string]any{"block_height": i64(n), "consensus_params": s.consensusParamsJSON(b.GasLimit())}, nil
}

// genesisDoc renders the genesis as CometBFT's genesis document: block
// 0's time and gas limit, the validators that decide block 1, and
// chaind's own genesis (alloc, staking section, fork rules) as app_state.
func (s *Server) genesisDoc() (json.RawMessage, error) {
	s.genesisOnce.Do(func() {
		if s.b.Genesis == nil || s.b.Blocks == nil {
			s.genesisErr = backend.ErrUnavailable
			return
		}
		app, err := s.b.Genesis()
		if err != nil {
			s.genesisErr = err
			return
		}
		g, err := s.b.Blocks.BlockByNumber(0)
		if err != nil {
			s.genesisErr = err
			return
		}
		vals := []any{}
		if s.b.Consensus != nil {
			if set, err := s.b.Consensus.ConsensusValidators(1); err == nil {
				for _, v := range set {
					vals = append(vals, map[string]any{"address": hexBytes(v.Address[:]), "pub_key": secp256k1Key(v.PubKey),
						"power": i64(v.VotingPower), "name": ""})
				}
			}
		}
		doc := map[string]any{
			"genesis_time": rfc3339(s.q.BlockTime(g.HeaderRef())), "chain_id": s.chainID(),
			// Block 0 is chaind's genesis block; the first decided block is 1.
			"initial_height":   i64(1),
			"consensus_params": s.consensusParamsJSON(g.GasLimit()),
			"validators":       vals, "app_hash": hexBytes(g.Root().Bytes()), "app_state": json.RawMessage(app),
		}
		s.genesis, s.genesisErr = json.Marshal(doc)
	})
	return s.genesis, s.genesisErr
}

// genesisChunk is CometBFT's chunk size for genesis_chunked.
const genesisChunk = 16 << 20

func (s *Server) genesisMethod(context.Context, callInfo, params) (any, error) {
	doc, err := s.genesisDoc()
	if err != nil {
		return nil, err
	}
	if len(doc) > genesisChunk {
		return nil, fmt.Errorf("genesis response is large, please use the genesis_chunked API instead")
	}
	return map[string]any{"genesis": doc}, nil
}

func (s *Server) genesisChunked(_ context.Context, _ callInfo, p params) (any, error) {
	doc, err := s.genesisDoc()
	if err != nil {
		return nil, err
	}
	n, _, err := p.int64Param("chunk")
	if err != nil {
		return nil, err
	}
	total := (int64(len(doc)) + genesisChunk - 1) / genesisChunk
	if n < 0 || n >= total {
		return nil, fmt.Errorf("there are %d chunks, %d is invalid", total, n)
	}
	end := min(int64(len(doc)), (n+1)*genesisChunk)
	// A chunk is bytes of the document, base64 as CometBFT sends it.
	return map[string]any{"chunk": i64(n), "total": i64(total), "data": []byte(doc[n*genesisChunk : end])}, nil
}
