package cometrpc

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/types"
)

// methods are the RPC methods served, by name.
var methods map[string]handler

// wsMethods are served over WebSocket only, as in CometBFT: over HTTP
// they are not methods.
var wsMethods = map[string]bool{"subscribe": true, "unsubscribe": true, "unsubscribe_all": true}

// paramNames name each method's positional parameters, in CometBFT's
// order.
var paramNames = map[string][]string{
	"abci_query":       {"path", "data", "height", "prove"},
	"block":            {"height"},
	"block_by_hash":    {"hash"},
	"blockchain":       {"minHeight", "maxHeight"},
	"commit":           {"height"},
	"header":           {"height"},
	"header_by_hash":   {"hash"},
	"validators":       {"height", "page", "per_page"},
	"block_results":    {"height"},
	"tx":               {"hash", "prove"},
	"tx_search":        {"query", "prove", "page", "per_page", "order_by"},
	"block_search":     {"query", "page", "per_page", "order_by"},
	"unconfirmed_txs":  {"limit"},
	"consensus_params": {"height"},
	"genesis_chunked":  {"chunk"},
	"subscribe":        {"query"},
	"unsubscribe":      {"query"},
}

func init() {
	methods = map[string]handler{
		"health":              (*Server).health,
		"status":              (*Server).status,
		"abci_info":           (*Server).abciInfo,
		"abci_query":          (*Server).abciQuery,
		"block":               (*Server).block,
		"block_by_hash":       (*Server).blockByHash,
		"blockchain":          (*Server).blockchain,
		"commit":              (*Server).commit,
		"header":              (*Server).header,
		"header_by_hash":      (*Server).headerByHash,
		"validators":          (*Server).validators,
		"net_info":            (*Server).netInfo,
		"genesis":             (*Server).genesisMethod,
		"genesis_chunked":     (*Server).genesisChunked,
		"consensus_params":    (*Server).consensusParams,
		"block_results":       (*Server).blockResults,
		"tx":                  (*Server).txMethod,
		"tx_search":           (*Server).txSearch,
		"block_search":        (*Server).blockSearch,
		"unconfirmed_txs":     (*Server).unconfirmedTxs,
		"num_unconfirmed_txs": (*Server).numUnconfirmedTxs,
	}
	for name := range wsMethods {
		methods[name] = wsOnly
	}
	for _, name := range []string{"broadcast_tx_sync", "broadcast_tx_async", "broadcast_tx_commit", "check_tx", "broadcast_evidence"} {
		methods[name] = refuseBroadcast
		paramNames[name] = []string{"tx"}
	}
}

func methodNames() []string {
	names := make([]string, 0, len(methods))
	for n := range methods {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// errBroadcast is the answer to every broadcast: this RPC is read-only.
var errBroadcast = errors.New("chaind's CometBFT RPC is read-only: send transactions as signed Ethereum transactions with eth_sendRawTransaction on the JSON-RPC port")

// errWSOnly answers a subscription method called over HTTP.
var errWSOnly = errors.New("subscriptions are served over WebSocket only: connect to /websocket")

func wsOnly(*Server, context.Context, callInfo, params) (any, error) { return nil, errWSOnly }

func refuseBroadcast(*Server, context.Context, callInfo, params) (any, error) {
	return nil, errBroadcast
}

func (s *Server) health(context.Context, callInfo, params) (any, error) { return struct{}{}, nil }

// hexBytes renders bytes as CometBFT does hashes and addresses:
// upper-case hex.
type hexBytes []byte

func (h hexBytes) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strings.ToUpper(hex.EncodeToString(h)) + `"`), nil
}

// i64 is a 64-bit integer in CometBFT's JSON: a decimal string.
type i64 int64

func (n i64) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strconv.FormatInt(int64(n), 10) + `"`), nil
}

type pubKeyJSON struct {
	Type  string `json:"type"`
	Value []byte `json:"value"` // base64
}

func secp256k1Key(key []byte) *pubKeyJSON {
	if key == nil {
		return nil
	}
	return &pubKeyJSON{Type: "tendermint/PubKeySecp256k1", Value: key}
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// head is the latest block; ErrUnavailable without a chain.
func (s *Server) head() (*types.Block, error) {
	if s.b.Blocks == nil {
		return nil, backend.ErrUnavailable
	}
	return s.b.Blocks.Head(), nil
}

// channels stands for chaind's one multiplexed p2p protocol where
// CometBFT lists its reactor channels: clients require the field set.
const channels = "00"

type nodeInfoJSON struct {
	ProtocolVersion struct {
		P2P   i64 `json:"p2p"`
		Block i64 `json:"block"`
		App   i64 `json:"app"`
	} `json:"protocol_version"`
	ID         string `json:"id"`
	ListenAddr string `json:"listen_addr"`
	Network    string `json:"network"`
	Version    string `json:"version"`
	Channels   string `json:"channels"`
	Moniker    string `json:"moniker"`
	Other      struct {
		TxIndex    string `json:"tx_index"`
		RPCAddress string `json:"rpc_address"`
	} `json:"other"`
}

func (s *Server) chainID() string {
	ni, err := s.q.GetNodeInfo(context.Background(), &query.GetNodeInfoRequest{})
	if err != nil {
		return ""
	}
	return ni.DefaultNodeInfo.Network
}

func (s *Server) status(ctx context.Context, ci callInfo, _ params) (any, error) {
	h, err := s.head()
	if err != nil {
		return nil, err
	}
	ni, err := s.q.GetNodeInfo(ctx, &query.GetNodeInfoRequest{})
	if err != nil {
		return nil, err
	}
	var info nodeInfoJSON
	info.ProtocolVersion.Block = query.BlockProtocol
	info.ID = ni.DefaultNodeInfo.DefaultNodeID
	info.Network = ni.DefaultNodeInfo.Network
	info.Version = Version
	info.Channels = channels
	info.Moniker = ni.DefaultNodeInfo.Moniker
	info.Other.TxIndex = "on"
	info.Other.RPCAddress = "tcp://" + ci.host
	// Without p2p the node listens for no peers; the RPC address stands
	// in, since clients require the field set.
	info.ListenAddr = info.Other.RPCAddress
	if s.b.P2PAddr != "" {
		info.ListenAddr = "tcp://" + s.b.P2PAddr
	}
	catchingUp := false
	if s.b.Network != nil {
		_, catchingUp = s.b.Network.Syncing()
	}
	hd := h.HeaderRef()
	hash := h.Hash()
	sync := map[string]any{
		"latest_block_hash":   hexBytes(hash[:]),
		"latest_app_hash":     hexBytes(hd.Root[:]),
		"latest_block_height": i64(hd.Number),
		"latest_block_time":   rfc3339(s.q.BlockTime(hd)),
		"catching_up":         catchingUp,
	}
	if g, err := s.b.Blocks.BlockByNumber(0); err == nil {
		gh, gd := g.Hash(), g.HeaderRef()
		sync["earliest_block_hash"] = hexBytes(gh[:])
		sync["earliest_app_hash"] = hexBytes(gd.Root[:])
		sync["earliest_block_height"] = i64(0)
		sync["earliest_block_time"] = rfc3339(s.q.BlockTime(gd))
	}
	val := map[string]any{"address": hexBytes{}, "pub_key": nil, "voting_power": i64(0)}
	if s.b.Validator != (types.Address{}) {
		val["address"], val["pub_key"] = hexBytes(s.b.Validator[:]), secp256k1Key(s.b.ValidatorKey)
		if s.b.Consensus != nil {
			if set, err := s.b.Consensus.ConsensusValidators(hd.Number + 1); err == nil {
				for _, v := range set {
					if v.Address == s.b.Validator {
						val["voting_power"] = i64(v.VotingPower)
					}
				}
			}
		}
	}
	return map[string]any{"node_info": info, "sync_info": sync, "validator_info": val}, nil
}

func (s *Server) abciInfo(ctx context.Context, _ callInfo, _ params) (any, error) {
	h, err := s.head()
	if err != nil {
		return nil, err
	}
	ni, err := s.q.GetNodeInfo(ctx, &query.GetNodeInfoRequest{})
	if err != nil {
		return nil, err
	}
	hd := h.HeaderRef()
	return map[string]any{"response": map[string]any{
		"data": "chaind", "version": ni.ApplicationVersion.Version, "app_version": i64(0),
		"last_block_height": i64(hd.Number), "last_block_app_hash": hd.Root[:],
	}}, nil
}

// abciQuery runs the query named by path (a gRPC method path) on the
// protobuf request in data, at height (0: the latest), through the query
// layer's ABCIQuery, which answers as the Cosmos SDK does; a proof is
// refused as a bad parameter.
func (s *Server) abciQuery(ctx context.Context, _ callInfo, p params) (any, error) {
	path, err := p.stringParam("path")
	if err != nil {
		return nil, err
	}
	data, err := p.hexParam("data")
	if err != nil {
		return nil, err
	}
	height, _, err := p.int64Param("height")
	if err != nil {
		return nil, err
	}
	prove, err := p.boolParam("prove")
	if err != nil {
		return nil, err
	}
	out, err := s.q.ABCIQueryRendered(ctx, &query.ABCIQueryRequest{Path: path, Data: data, Height: height, Prove: prove}, "abci",
		func(r *query.ABCIQueryResponse) ([]byte, error) {
			return json.Marshal(map[string]any{"response": abciResponse{Code: int(r.Code), Log: r.Log, Value: r.Value, Height: i64(r.Height), Codespace: r.Codespace}})
		})
	if err != nil {
		return nil, err
	}
	// Written as rendered, not marshalled again.
	return json.RawMessage(out), nil
}

type abciResponse struct {
	Code      int    `json:"code"`
	Log       string `json:"log"`
	Info      string `json:"info"`
	Index     i64    `json:"index"`
	Key       []byte `json:"key"`
	Value     []byte `json:"value"`
	ProofOps  any    `json:"proofOps"`
	Height    i64    `json:"height"`
	Codespace string `json:"codespace"`
}

// heightParam reads an optional height: absent is the head; 0, below 0
// or above the head is refused as CometBFT refuses it.
func (s *Server) heightParam(p params, name string) (uint64, error) {
	h, err := s.head()
	if err != nil {
		return 0, err
	}
	head := h.Number()
	n, ok, err := p.int64Param(name)
	if err != nil || !ok {
		return head, err
	}
	if n <= 0 {
		return 0, fmt.Errorf("height must be greater than 0, but got %d", n)
	}
	if uint64(n) > head {
		return 0, fmt.Errorf("height %d must be less than or equal to the current blockchain height %d", n, head)
	}
	return uint64(n), nil
}

func (s *Server) blockAt(ctx context.Context, n uint64) (*query.BlockID, *query.TMBlock, error) {
	r, err := s.q.GetBlockByHeight(ctx, &query.GetBlockByHeightRequest{Height: int64(n)})
	if err != nil {
		return nil, nil, err
	}
	return r.BlockID, r.Block, nil
}

func (s *Server) block(ctx context.Context, _ callInfo, p params) (any, error) {
	n, err := s.heightParam(p, "height")
	if err != nil {
		return nil, err
	}
	return s.blockResult(ctx, n)
}

func (s *Server) blockResult(ctx context.Context, n uint64) (any, error) {
	id, b, err := s.blockAt(ctx, n)
	if err != nil {
		return nil, err
	}
	return map[string]any{"block_id": blockIDJSON(*id), "block": map[string]any{
		"header": headerJSON(b.Header), "data": map[string]any{"txs": b.Data.Txs},
		"evidence": map[string]any{"evidence": evidenceJSON(b.Evidence)}, "last_commit": lastCommitJSON(b.LastCommit),
	}}, nil
}

// hashParam reads the hash parameter. The URI form gives 0x-hex, the
// JSON form base64, as CometBFT reads bytes in each; 64 hex digits alone
// (as explorers print a hash) are read as hex, which base64 of 32 bytes
// never is (it is 44 long). With hexOnly, the JSON form is hex too:
// header_by_hash's hash is HexBytes in CometBFT, block_by_hash's and
// tx's are bytes.
func (s *Server) hashParam(p params, hexOnly bool) (types.Hash, error) {
	raw, err := p.stringParam("hash")
	if err != nil {
		return types.Hash{}, err
	}
	var b []byte
	if strings.HasPrefix(raw, "0x") || strings.HasPrefix(raw, "0X") {
		b, err = hex.DecodeString(raw[2:])
	} else if len(raw) == 64 || hexOnly {
		b, err = hex.DecodeString(raw)
	} else {
		b, err = base64.StdEncoding.DecodeString(raw)
	}
	if err != nil {
		return types.Hash{}, paramsErr("%v", err)
	}
	if len(b) != len(types.Hash{}) {
		return types.Hash{}, fmt.Errorf("hash: want 32 bytes, got %d", len(b))
	}
	return types.Hash(b), nil
}

// byHash finds the canonical height of a block hash; ok false when no
// canonical block has it (CometBFT answers null then).
func (s *Server) byHash(p params, hexOnly bool) (uint64, bool, error) {
	h, err := s.hashParam(p, hexOnly)
	if err != nil {
		return 0, false, err
	}
	if s.b.Blocks == nil {
		return 0, false, backend.ErrUnavailable
	}
	b, err := s.b.Blocks.BlockByHash(h)
	if errors.Is(err, backend.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	if s.b.Blocks.CanonicalHash(b.Number()) != h {
		return 0, false, nil
	}
	return b.Number(), true, nil
}

func (s *Server) blockByHash(ctx context.Context, _ callInfo, p params) (any, error) {
	n, ok, err := s.byHash(p, false)
	if err != nil {
		return nil, err
	}
	if !ok {
		return map[string]any{"block_id": blockIDJSON(query.BlockID{}), "block": nil}, nil
	}
	return s.blockResult(ctx, n)
}

func (s *Server) header(ctx context.Context, _ callInfo, p params) (any, error) {
	n, err := s.heightParam(p, "height")
	if err != nil {
		return nil, err
	}
	_, b, err := s.blockAt(ctx, n)
	if err != nil {
		return nil, err
	}
	return map[string]any{"header": headerJSON(b.Header)}, nil
}

func (s *Server) headerByHash(ctx context.Context, ci callInfo, p params) (any, error) {
	n, ok, err := s.byHash(p, true)
	if err != nil {
		return nil, err
	}
	if !ok {
		return map[string]any{"header": nil}, nil
	}
	_, b, err := s.blockAt(ctx, n)
	if err != nil {
		return nil, err
	}
	return map[string]any{"header": headerJSON(b.Header)}, nil
}

// maxBlockchainSpan is how many block metas one blockchain call returns,
// CometBFT's limit.
const maxBlockchainSpan = 20

func (s *Server) blockchain(ctx context.Context, _ callInfo, p params) (any, error) {
	h, err := s.head()
	if err != nil {
		return nil, err
	}
	head := int64(h.Number())
	lo, _, err := p.int64Param("minHeight")
	if err != nil {
		return nil, err
	}
	hi, _, err := p.int64Param("maxHeight")
	if err != nil {
		return nil, err
	}
	if lo < 0 || hi < 0 {
		return nil, errors.New("heights must be non-negative")
	}
	if hi == 0 || hi > head {
		hi = head
	}
	if lo == 0 {
		lo = 1
	}
	lo = max(lo, hi-maxBlockchainSpan+1)
	if head == 0 {
		// Only the genesis block: CometBFT's chain starts at 1, so there is
		// no block meta to list yet.
		return map[string]any{"last_height": i64(0), "block_metas": []any{}}, nil
	}
	if lo > hi {
		return nil, fmt.Errorf("min height %d can't be greater than max height %d", lo, hi)
	}
	metas := []any{}
	for n := hi; n >= lo; n-- {
		id, b, err := s.blockAt(ctx, uint64(n))
		if err != nil {
			return nil, err
		}
		size := 0
		if blk, err := s.b.Blocks.BlockByNumber(uint64(n)); err == nil {
			size = int(blk.Size())
		}
		metas = append(metas, map[string]any{"block_id": blockIDJSON(*id), "block_size": i64(size),
			"header": headerJSON(b.Header), "num_txs": i64(len(b.Data.Txs))})
	}
	return map[string]any{"last_height": i64(head), "block_metas": metas}, nil
}

func (s *Server) commit(ctx context.Context, _ callInfo, p params) (any, error) {
	n, err := s.heightParam(p, "height")
	if err != nil {
		return nil, err
	}
	id, b, err := s.blockAt(ctx, n)
	if err != nil {
		return nil, err
	}
	// The commit of block n is the certificate its child carries
	// (canonical); the head's is in no block yet, and is served as
	// CometBFT serves it, from the certificate the node committed the
	// head with (its seen commit, not canonical).
	c := commitJSON{Height: i64(n), BlockID: blockIDJSON(*id), Signatures: []commitSig{}}
	canonical := false
	if n < s.b.Blocks.Head().Number() {
		_, child, err := s.blockAt(ctx, n+1)
		if err != nil {
			return nil, err
		}
		if !child.LastCommit.Empty() {
			c, canonical = lastCommitJSON(child.LastCommit), true
		}
	} else if blk, err := s.b.Blocks.BlockByNumber(n); err == nil {
		seen, err := s.q.SeenCommit(blk)
		if err != nil {
			return nil, err
		}
		if seen != nil {
			c = lastCommitJSON(seen)
		}
	}
	return map[string]any{"signed_header": map[string]any{"header": headerJSON(b.Header), "commit": c}, "canonical": canonical}, nil
}

const (
	defaultPerPage = 30
	maxPerPage     = 100
)

func (s *Server) validators(_ context.Context, _ callInfo, p params) (any, error) {
	n, err := s.heightParam(p, "height")
	if err != nil {
		return nil, err
	}
	if n == 0 {
		n = 1 // no set decides genesis; the set of block 1 stands for it
	}
	if s.b.Consensus == nil {
		return nil, backend.ErrUnavailable
	}
	set, err := s.b.Consensus.ConsensusValidators(n)
	if err != nil {
		return nil, err
	}
	page, _, err := p.int64Param("page")
	if err != nil {
		return nil, err
	}
	per, _, err := p.int64Param("per_page")
	if err != nil {
		return nil, err
	}
	if per <= 0 {
		per = defaultPerPage
	}
	per = min(per, maxPerPage)
	pages := (int64(len(set)) + per - 1) / per
	if page == 0 {
		page = 1
	}
	if page < 1 || (page > max(pages, 1)) {
		return nil, fmt.Errorf("page should be within [1, %d] range, given %d", max(pages, 1), page)
	}
	lo := min((page-1)*per, int64(len(set)))
	hi := min(lo+per, int64(len(set)))
	vs := make([]any, 0, hi-lo)
	for _, v := range set[lo:hi] {
		key := v.PubKey
		if key == nil && v.Address == s.b.Validator {
			key = s.b.ValidatorKey // a set that records no keys: this node knows its own
		}
		vs = append(vs, map[string]any{"address": hexBytes(v.Address[:]), "pub_key": secp256k1Key(key),
			"voting_power": i64(v.VotingPower), "proposer_priority": i64(v.ProposerPriority)})
	}
	return map[string]any{"block_height": i64(n), "validators": vs, "count": i64(len(vs)), "total": i64(len(set))}, nil
}

type blockIDJ struct {
	Hash  hexBytes `json:"hash"`
	Parts struct {
		Total uint32   `json:"total"`
		Hash  hexBytes `json:"hash"`
	} `json:"parts"`
}

func blockIDJSON(id query.BlockID) blockIDJ {
	var j blockIDJ
	j.Hash, j.Parts.Total, j.Parts.Hash = id.Hash, id.PartSetHeader.Total, id.PartSetHeader.Hash
	return j
}

func headerJSON(h query.TMHeader) map[string]any {
	return map[string]any{
		"version":              map[string]any{"block": i64(h.Version.Block), "app": i64(h.Version.App)},
		"chain_id":             h.ChainID,
		"height":               i64(h.Height),
		"time":                 rfc3339(h.Time),
		"last_block_id":        blockIDJSON(h.LastBlockID),
		"last_commit_hash":     hexBytes(h.LastCommitHash),
		"data_hash":            hexBytes(h.DataHash),
		"validators_hash":      hexBytes(h.ValidatorsHash),
		"next_validators_hash": hexBytes(h.NextValidatorsHash),
		"consensus_hash":       hexBytes(h.ConsensusHash),
		"app_hash":             hexBytes(h.AppHash),
		"last_results_hash":    hexBytes(h.LastResultsHash),
		"evidence_hash":        hexBytes(h.EvidenceHash),
		"proposer_address":     hexBytes(h.ProposerAddress),
	}
}
