package query

import (
	"context"
	"strconv"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/types"
)

// The consensus ("tendermint") service: node info, sync status, blocks
// and validator sets in the shapes of cosmos.base.tendermint.v1beta1 and
// tendermint.types, so dashboards written for CometBFT chains read them.

type GetNodeInfoRequest struct{}

func (GetNodeInfoRequest) ProtoName() string {
	return "cosmos.base.tendermint.v1beta1.GetNodeInfoRequest"
}

type GetNodeInfoResponse struct {
	DefaultNodeInfo    *DefaultNodeInfo `pb:"1,default_node_info"`
	ApplicationVersion *VersionInfo     `pb:"2,application_version"`
}

func (GetNodeInfoResponse) ProtoName() string {
	return "cosmos.base.tendermint.v1beta1.GetNodeInfoResponse"
}

type VersionInfo struct {
	Name             string   `pb:"1,name"`
	AppName          string   `pb:"2,app_name"`
	Version          string   `pb:"3,version"`
	GitCommit        string   `pb:"4,git_commit"`
	BuildTags        string   `pb:"5,build_tags"`
	GoVersion        string   `pb:"6,go_version"`
	BuildDeps        []Module `pb:"7,build_deps"`
	CosmosSDKVersion string   `pb:"8,cosmos_sdk_version"`
}

func (VersionInfo) ProtoName() string { return "cosmos.base.tendermint.v1beta1.VersionInfo" }

type Module struct {
	Path    string `pb:"1,path"`
	Version string `pb:"2,version"`
	Sum     string `pb:"3,sum"`
}

func (Module) ProtoName() string { return "cosmos.base.tendermint.v1beta1.Module" }

type ProtocolVersion struct {
	P2P   uint64 `pb:"1,p2p"`
	Block uint64 `pb:"2,block"`
	App   uint64 `pb:"3,app"`
}

func (ProtocolVersion) ProtoName() string { return "tendermint.p2p.ProtocolVersion" }

type DefaultNodeInfo struct {
	ProtocolVersion ProtocolVersion      `pb:"1,protocol_version"`
	DefaultNodeID   string               `pb:"2,default_node_id"`
	ListenAddr      string               `pb:"3,listen_addr"`
	Network         string               `pb:"4,network"`
	Version         string               `pb:"5,version"`
	Channels        []byte               `pb:"6,channels"`
	Moniker         string               `pb:"7,moniker"`
	Other           DefaultNodeInfoOther `pb:"8,other"`
}

func (DefaultNodeInfo) ProtoName() string { return "tendermint.p2p.DefaultNodeInfo" }

type DefaultNodeInfoOther struct {
	TxIndex    string `pb:"1,tx_index"`
	RPCAddress string `pb:"2,rpc_address"`
}

func (DefaultNodeInfoOther) ProtoName() string { return "tendermint.p2p.DefaultNodeInfoOther" }

type GetSyncingRequest struct{}

func (GetSyncingRequest) ProtoName() string {
	return "cosmos.base.tendermint.v1beta1.GetSyncingRequest"
}

type GetSyncingResponse struct {
	Syncing bool `pb:"1,syncing"`
}

func (GetSyncingResponse) ProtoName() string {
	return "cosmos.base.tendermint.v1beta1.GetSyncingResponse"
}

type GetLatestBlockRequest struct{}

func (GetLatestBlockRequest) ProtoName() string {
	return "cosmos.base.tendermint.v1beta1.GetLatestBlockRequest"
}

type GetLatestBlockResponse struct {
	BlockID  *BlockID  `pb:"1,block_id"`
	Block    *TMBlock  `pb:"2,block"`
	SDKBlock *SDKBlock `pb:"3,sdk_block"`
}

func (GetLatestBlockResponse) ProtoName() string {
	return "cosmos.base.tendermint.v1beta1.GetLatestBlockResponse"
}

type GetBlockByHeightRequest struct {
	Height int64 `pb:"1,height"`
}

func (GetBlockByHeightRequest) ProtoName() string {
	return "cosmos.base.tendermint.v1beta1.GetBlockByHeightRequest"
}

type GetBlockByHeightResponse struct {
	BlockID  *BlockID  `pb:"1,block_id"`
	Block    *TMBlock  `pb:"2,block"`
	SDKBlock *SDKBlock `pb:"3,sdk_block"`
}

func (GetBlockByHeightResponse) ProtoName() string {
	return "cosmos.base.tendermint.v1beta1.GetBlockByHeightResponse"
}

type PartSetHeader struct {
	Total uint32 `pb:"1,total"`
	Hash  []byte `pb:"2,hash"`
}

func (PartSetHeader) ProtoName() string { return "tendermint.types.PartSetHeader" }

type BlockID struct {
	Hash          []byte        `pb:"1,hash"`
	PartSetHeader PartSetHeader `pb:"2,part_set_header"`
}

func (BlockID) ProtoName() string { return "tendermint.types.BlockID" }

type ConsensusVersion struct {
	Block uint64 `pb:"1,block"`
	App   uint64 `pb:"2,app"`
}

func (ConsensusVersion) ProtoName() string { return "tendermint.version.Consensus" }

// TMHeader is a block header in CometBFT's shape: the parent as
// last_block_id, the transactions root as data_hash, the state root as
// app_hash, the receipts root as last_results_hash, the proposer's
// address in bytes; the other hashes as commit.go computes them.
type TMHeader struct {
	Version            ConsensusVersion `pb:"1,version"`
	ChainID            string           `pb:"2,chain_id"`
	Height             int64            `pb:"3,height"`
	Time               time.Time        `pb:"4,time"`
	LastBlockID        BlockID          `pb:"5,last_block_id"`
	LastCommitHash     []byte           `pb:"6,last_commit_hash"`
	DataHash           []byte           `pb:"7,data_hash"`
	ValidatorsHash     []byte           `pb:"8,validators_hash"`
	NextValidatorsHash []byte           `pb:"9,next_validators_hash"`
	ConsensusHash      []byte           `pb:"10,consensus_hash"`
	AppHash            []byte           `pb:"11,app_hash"`
	LastResultsHash    []byte           `pb:"12,last_results_hash"`
	EvidenceHash       []byte           `pb:"13,evidence_hash"`
	ProposerAddress    []byte           `pb:"14,proposer_address"`
}

func (TMHeader) ProtoName() string { return "tendermint.types.Header" }

// SDKHeader is TMHeader with the proposer as a bech32 consensus address.
type SDKHeader struct {
	Version            ConsensusVersion `pb:"1,version"`
	ChainID            string           `pb:"2,chain_id"`
	Height             int64            `pb:"3,height"`
	Time               time.Time        `pb:"4,time"`
	LastBlockID        BlockID          `pb:"5,last_block_id"`
	LastCommitHash     []byte           `pb:"6,last_commit_hash"`
	DataHash           []byte           `pb:"7,data_hash"`
	ValidatorsHash     []byte           `pb:"8,validators_hash"`
	NextValidatorsHash []byte           `pb:"9,next_validators_hash"`
	ConsensusHash      []byte           `pb:"10,consensus_hash"`
	AppHash            []byte           `pb:"11,app_hash"`
	LastResultsHash    []byte           `pb:"12,last_results_hash"`
	EvidenceHash       []byte           `pb:"13,evidence_hash"`
	ProposerAddress    string           `pb:"14,proposer_address"`
}

func (SDKHeader) ProtoName() string { return "cosmos.base.tendermint.v1beta1.Header" }

// Data holds a block's transactions as CometBFT carries them: each one
// Cosmos EVM's TxRaw around the Ethereum transaction (CosmosTx).
type Data struct {
	Txs [][]byte `pb:"1,txs"`
}

func (Data) ProtoName() string { return "tendermint.types.Data" }

// EvidenceList is the misbehaviour evidence a block carries: chaind's
// double-sign evidence, from the header's consensus data.
type EvidenceList struct {
	Evidence []Evidence `pb:"1,evidence"`
}

func (EvidenceList) ProtoName() string { return "tendermint.types.EvidenceList" }

// Evidence is one piece of evidence; chaind has double signs only.
type Evidence struct {
	DuplicateVoteEvidence *DuplicateVoteEvidence `pb:"1,duplicate_vote_evidence"`
}

func (Evidence) ProtoName() string { return "tendermint.types.Evidence" }

// DuplicateVoteEvidence is two conflicting votes of one validator, with
// the powers of the set of their height and that block's time.
type DuplicateVoteEvidence struct {
	VoteA            *TMVote   `pb:"1,vote_a"`
	VoteB            *TMVote   `pb:"2,vote_b"`
	TotalVotingPower int64     `pb:"3,total_voting_power"`
	ValidatorPower   int64     `pb:"4,validator_power"`
	Timestamp        time.Time `pb:"5,timestamp"`
}

func (DuplicateVoteEvidence) ProtoName() string { return "tendermint.types.DuplicateVoteEvidence" }

// SignedMsgType is tendermint.types.SignedMsgType.
type SignedMsgType int32

func (SignedMsgType) EnumDescriptor() (string, []string) {
	return "tendermint.types.SignedMsgType",
		[]string{"SIGNED_MSG_TYPE_UNKNOWN", "SIGNED_MSG_TYPE_PREVOTE", "SIGNED_MSG_TYPE_PRECOMMIT"}
}

// TMVote is a signed prevote or precommit. chaind's votes carry no time:
// the evidence's block time stands for it.
type TMVote struct {
	Type             SignedMsgType `pb:"1,type"`
	Height           int64         `pb:"2,height"`
	Round            int32         `pb:"3,round"`
	BlockID          BlockID       `pb:"4,block_id"`
	Timestamp        time.Time     `pb:"5,timestamp"`
	ValidatorAddress []byte        `pb:"6,validator_address"`
	ValidatorIndex   int32         `pb:"7,validator_index"`
	Signature        []byte        `pb:"8,signature"`
	// Vote extensions (ABCI 2.0) are CometBFT v0.38's; chaind's
	// consensus has none, so both stay empty.
	Extension          []byte `pb:"9,extension"`
	ExtensionSignature []byte `pb:"10,extension_signature"`
}

func (TMVote) ProtoName() string { return "tendermint.types.Vote" }

type TMBlock struct {
	Header     TMHeader     `pb:"1,header"`
	Data       Data         `pb:"2,data"`
	Evidence   EvidenceList `pb:"3,evidence"`
	LastCommit *Commit      `pb:"4,last_commit"`
}

func (TMBlock) ProtoName() string { return "tendermint.types.Block" }

type SDKBlock struct {
	Header     SDKHeader    `pb:"1,header"`
	Data       Data         `pb:"2,data"`
	Evidence   EvidenceList `pb:"3,evidence"`
	LastCommit *Commit      `pb:"4,last_commit"`
}

func (SDKBlock) ProtoName() string { return "cosmos.base.tendermint.v1beta1.Block" }

type GetLatestValidatorSetRequest struct {
	Pagination *PageRequest `pb:"1,pagination"`
}

func (GetLatestValidatorSetRequest) ProtoName() string {
	return "cosmos.base.tendermint.v1beta1.GetLatestValidatorSetRequest"
}

type GetLatestValidatorSetResponse struct {
	BlockHeight int64         `pb:"1,block_height"`
	Validators  []TMValidator `pb:"2,validators"`
	Pagination  *PageResponse `pb:"3,pagination"`
}

func (GetLatestValidatorSetResponse) ProtoName() string {
	return "cosmos.base.tendermint.v1beta1.GetLatestValidatorSetResponse"
}

type GetValidatorSetByHeightRequest struct {
	Height     int64        `pb:"1,height"`
	Pagination *PageRequest `pb:"2,pagination"`
}

func (GetValidatorSetByHeightRequest) ProtoName() string {
	return "cosmos.base.tendermint.v1beta1.GetValidatorSetByHeightRequest"
}

type GetValidatorSetByHeightResponse struct {
	BlockHeight int64         `pb:"1,block_height"`
	Validators  []TMValidator `pb:"2,validators"`
	Pagination  *PageResponse `pb:"3,pagination"`
}

func (GetValidatorSetByHeightResponse) ProtoName() string {
	return "cosmos.base.tendermint.v1beta1.GetValidatorSetByHeightResponse"
}

// TMValidator is one member of a consensus validator set.
type TMValidator struct {
	Address          string        `pb:"1,address"`
	PubKey           *protobuf.Any `pb:"2,pub_key"`
	VotingPower      int64         `pb:"3,voting_power"`
	ProposerPriority int64         `pb:"4,proposer_priority"`
}

func (TMValidator) ProtoName() string { return "cosmos.base.tendermint.v1beta1.Validator" }

func tendermintService() *Service {
	return serviceFile("cosmos/base/tendermint/v1beta1/query.proto", "cosmos.base.tendermint.v1beta1.Service",
		[]protobuf.Message{GetNodeInfoRequest{}, GetNodeInfoResponse{}, VersionInfo{}, Module{},
			GetSyncingRequest{}, GetSyncingResponse{}, GetLatestBlockRequest{}, GetLatestBlockResponse{},
			GetBlockByHeightRequest{}, GetBlockByHeightResponse{}, SDKHeader{}, SDKBlock{},
			GetLatestValidatorSetRequest{}, GetLatestValidatorSetResponse{},
			GetValidatorSetByHeightRequest{}, GetValidatorSetByHeightResponse{}, TMValidator{},
			ABCIQueryRequest{}, ABCIQueryResponse{}, ProofOp{}, ProofOps{}},
		nil,
		[]*Method{
			method("GetNodeInfo", "/cosmos/base/tendermint/v1beta1/node_info", (*Querier).GetNodeInfo),
			volatile(method("GetSyncing", "/cosmos/base/tendermint/v1beta1/syncing", (*Querier).GetSyncing)),
			method("GetLatestBlock", "/cosmos/base/tendermint/v1beta1/blocks/latest", (*Querier).GetLatestBlock),
			method("GetBlockByHeight", "/cosmos/base/tendermint/v1beta1/blocks/{height}", (*Querier).GetBlockByHeight),
			method("GetLatestValidatorSet", "/cosmos/base/tendermint/v1beta1/validatorsets/latest", (*Querier).GetLatestValidatorSet),
			method("GetValidatorSetByHeight", "/cosmos/base/tendermint/v1beta1/validatorsets/{height}", (*Querier).GetValidatorSetByHeight),
			method("ABCIQuery", "/cosmos/base/tendermint/v1beta1/abci_query", (*Querier).ABCIQuery),
		})
}

func init() {
	typeFiles = append(typeFiles,
		protobuf.File{Name: "tendermint/p2p/types.proto", Package: "tendermint.p2p",
			Messages: []protobuf.Message{ProtocolVersion{}, DefaultNodeInfo{}, DefaultNodeInfoOther{}}},
		protobuf.File{Name: "tendermint/version/types.proto", Package: "tendermint.version",
			Messages: []protobuf.Message{ConsensusVersion{}}},
		protobuf.File{Name: "tendermint/types/types.proto", Package: "tendermint.types",
			Messages: []protobuf.Message{PartSetHeader{}, BlockID{}, TMHeader{}, Data{}, TMVote{}, DuplicateVoteEvidence{}, Evidence{}, EvidenceList{}, CommitSig{}, Commit{}, TMBlock{}},
			Enums:    []protobuf.Enum{BlockIDFlag(0), SignedMsgType(0)}},
	)
}

func (q *Querier) chainID() string {
	if q.b.Config == nil {
		return ""
	}
	return strconv.FormatUint(q.b.Config.ChainID(), 10)
}

// GetNodeInfo describes the node.
func (q *Querier) GetNodeInfo(context.Context, *GetNodeInfoRequest) (*GetNodeInfoResponse, error) {
	return &GetNodeInfoResponse{
		DefaultNodeInfo: &DefaultNodeInfo{
			DefaultNodeID: q.b.NodeID, ListenAddr: q.b.ListenAddr, Network: q.chainID(),
			Version: q.b.Version, Moniker: q.b.Moniker,
		},
		ApplicationVersion: &VersionInfo{
			Name: "chaind", AppName: "chaind", Version: q.b.Version, GoVersion: q.b.GoVersion, BuildDeps: []Module{},
		},
	}, nil
}

// GetSyncing reports whether the node is catching up.
func (q *Querier) GetSyncing(context.Context, *GetSyncingRequest) (*GetSyncingResponse, error) {
	if q.b.Network == nil {
		return &GetSyncingResponse{}, nil
	}
	_, syncing := q.b.Network.Syncing()
	return &GetSyncingResponse{Syncing: syncing}, nil
}

// GetLatestBlock returns the head block.
func (q *Querier) GetLatestBlock(context.Context, *GetLatestBlockRequest) (*GetLatestBlockResponse, error) {
	if q.b.Blocks == nil {
		return nil, backend.ErrUnavailable
	}
	id, tm, sdk, err := q.block(q.b.Blocks.Head())
	if err != nil {
		return nil, err
	}
	return &GetLatestBlockResponse{BlockID: id, Block: tm, SDKBlock: sdk}, nil
}

// GetBlockByHeight returns a canonical block.
func (q *Querier) GetBlockByHeight(_ context.Context, r *GetBlockByHeightRequest) (*GetBlockByHeightResponse, error) {
	if q.b.Blocks == nil {
		return nil, backend.ErrUnavailable
	}
	if r.Height < 0 {
		return nil, Errorf(InvalidArgument, "height must not be negative")
	}
	head := q.b.Blocks.Head().Number()
	if uint64(r.Height) > head {
		return nil, Errorf(InvalidArgument, "requested block height is bigger then the chain length")
	}
	b, err := q.b.Blocks.BlockByNumber(uint64(r.Height))
	if err != nil {
		return nil, err
	}
	id, tm, sdk, err := q.block(b)
	if err != nil {
		return nil, err
	}
	return &GetBlockByHeightResponse{BlockID: id, Block: tm, SDKBlock: sdk}, nil
}

// BlockTime is a block's time as CometBFT and the SDK show it: to the
// millisecond that chaind's consensus data records (backend.Signing's
// TimeMs), else the header's whole seconds. Every Cosmos-facing time of a
// block reads it: the header's time, the commit's and evidence's times,
// the tx service's timestamps and the CometBFT RPC's status.
func (q *Querier) BlockTime(h *types.Header) time.Time {
	if q.b.Signing != nil {
		return time.UnixMilli(int64(q.b.Signing.TimeMs(h))).UTC()
	}
	return time.Unix(int64(h.Time), 0).UTC()
}

// BlockProtocol is the block protocol version CometBFT v0.38 reports
// (header.version.block); chaind renders its blocks in that protocol's
// shapes.
const BlockProtocol = 11

func (q *Querier) block(b *types.Block) (*BlockID, *TMBlock, *SDKBlock, error) {
	h := b.HeaderRef()
	id := blockID(b)
	data := Data{Txs: BlockTxs(b)}
	txHashes := make([][]byte, len(data.Txs))
	for i, tx := range data.Txs {
		th := CometHash(tx)
		txHashes[i] = th[:]
	}
	tm := TMHeader{
		Version: ConsensusVersion{Block: BlockProtocol},
		ChainID: q.chainID(), Height: int64(h.Number), Time: q.BlockTime(h),
		DataHash: MerkleRoot(txHashes), ValidatorsHash: q.validatorsHash(h.Number), NextValidatorsHash: q.validatorsHash(h.Number + 1),
		ConsensusHash: q.consensusHash(h.GasLimit), AppHash: h.Root[:], LastResultsHash: h.ReceiptHash[:],
		ProposerAddress: h.Coinbase[:],
	}
	ev, evHash, err := q.evidence(h.Number)
	if err != nil {
		return nil, nil, nil, err
	}
	tm.EvidenceHash = evHash
	if h.Number > 0 {
		parent, err := q.b.Blocks.BlockByNumber(h.Number - 1)
		if err != nil {
			return nil, nil, nil, err
		}
		tm.LastBlockID = *blockID(parent)
	}
	lc, err := q.LastCommit(b)
	if err != nil {
		return nil, nil, nil, err
	}
	tm.LastCommitHash = CommitHash(lc)
	sdk := SDKHeader{
		Version: tm.Version, ChainID: tm.ChainID, Height: tm.Height, Time: tm.Time, LastBlockID: tm.LastBlockID,
		LastCommitHash: tm.LastCommitHash, DataHash: tm.DataHash, ValidatorsHash: tm.ValidatorsHash,
		NextValidatorsHash: tm.NextValidatorsHash, ConsensusHash: tm.ConsensusHash, AppHash: tm.AppHash,
		LastResultsHash: tm.LastResultsHash, EvidenceHash: tm.EvidenceHash,
		ProposerAddress: Bech32(ConsensusPrefix, h.Coinbase),
	}
	return id, &TMBlock{Header: tm, Data: data, Evidence: ev, LastCommit: lc}, &SDKBlock{Header: sdk, Data: data, Evidence: ev, LastCommit: lc}, nil
}

func (q *Querier) validatorSet(height uint64, p *PageRequest) ([]TMValidator, *PageResponse, error) {
	if q.b.Consensus == nil {
		return nil, nil, backend.ErrUnavailable
	}
	set, err := q.b.Consensus.ConsensusValidators(height)
	if err != nil {
		return nil, nil, err
	}
	page, pr, err := paginate(set, func(v backend.ConsensusValidator) []byte { return v.Address[:] }, p)
	if err != nil {
		return nil, nil, err
	}
	out := make([]TMValidator, len(page))
	for i, v := range page {
		out[i] = TMValidator{Address: Bech32(ConsensusPrefix, v.Address), PubKey: pubKeyAny(v.PubKey),
			VotingPower: v.VotingPower, ProposerPriority: v.ProposerPriority}
	}
	return out, pr, nil
}

// GetLatestValidatorSet returns the set that decided the head block.
func (q *Querier) GetLatestValidatorSet(_ context.Context, r *GetLatestValidatorSetRequest) (*GetLatestValidatorSetResponse, error) {
	if q.b.Blocks == nil {
		return nil, backend.ErrUnavailable
	}
	h := q.b.Blocks.Head().Number()
	if h == 0 {
		// No set decides the genesis block; at genesis the latest set is
		// the one that decides block 1.
		h = 1
	}
	vs, pr, err := q.validatorSet(h, r.Pagination)
	if err != nil {
		return nil, err
	}
	return &GetLatestValidatorSetResponse{BlockHeight: int64(h), Validators: vs, Pagination: pr}, nil
}

// GetValidatorSetByHeight returns the set that decided block height.
func (q *Querier) GetValidatorSetByHeight(_ context.Context, r *GetValidatorSetByHeightRequest) (*GetValidatorSetByHeightResponse, error) {
	if q.b.Blocks == nil {
		return nil, backend.ErrUnavailable
	}
	if r.Height < 1 {
		return nil, Errorf(InvalidArgument, "height must be greater than 0")
	}
	if uint64(r.Height) > q.b.Blocks.Head().Number() {
		return nil, Errorf(InvalidArgument, "requested block height is bigger then the chain length")
	}
	vs, pr, err := q.validatorSet(uint64(r.Height), r.Pagination)
	if err != nil {
		return nil, err
	}
	return &GetValidatorSetByHeightResponse{BlockHeight: r.Height, Validators: vs, Pagination: pr}, nil
}

// BlockTxs renders b's transactions as CometBFT block data (CosmosTx). A
// transaction whose sender cannot be recovered, or that cannot be encoded,
// cannot be in a valid block; it is left out rather than fail the block.
func BlockTxs(b *types.Block) [][]byte {
	out := make([][]byte, 0, len(b.Transactions()))
	for _, tx := range b.Transactions() {
		from, err := types.Sender(tx)
		if err != nil {
			continue
		}
		if enc, err := CosmosTx(tx, from); err == nil {
			out = append(out, enc)
		}
	}
	return out
}
