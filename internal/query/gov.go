package query

import (
	"context"
	"time"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// ProposalStatus is cosmos.gov.v1beta1.ProposalStatus.
type ProposalStatus int32

func (ProposalStatus) EnumDescriptor() (string, []string) {
	return "cosmos.gov.v1beta1.ProposalStatus", []string{"PROPOSAL_STATUS_UNSPECIFIED", "PROPOSAL_STATUS_DEPOSIT_PERIOD",
		"PROPOSAL_STATUS_VOTING_PERIOD", "PROPOSAL_STATUS_PASSED", "PROPOSAL_STATUS_REJECTED", "PROPOSAL_STATUS_FAILED"}
}

// VoteOption is cosmos.gov.v1beta1.VoteOption.
type VoteOption int32

func (VoteOption) EnumDescriptor() (string, []string) {
	return "cosmos.gov.v1beta1.VoteOption", []string{"VOTE_OPTION_UNSPECIFIED", "VOTE_OPTION_YES",
		"VOTE_OPTION_ABSTAIN", "VOTE_OPTION_NO", "VOTE_OPTION_NO_WITH_VETO"}
}

type TextProposal struct {
	Title       string `pb:"1,title"`
	Description string `pb:"2,description"`
}

func (TextProposal) ProtoName() string { return "cosmos.gov.v1beta1.TextProposal" }

type TallyResult struct {
	Yes        Int `pb:"1,yes"`
	Abstain    Int `pb:"2,abstain"`
	No         Int `pb:"3,no"`
	NoWithVeto Int `pb:"4,no_with_veto"`
}

func (TallyResult) ProtoName() string { return "cosmos.gov.v1beta1.TallyResult" }

type Proposal struct {
	ProposalID       uint64         `pb:"1,proposal_id"`
	Content          *protobuf.Any  `pb:"2,content"`
	Status           ProposalStatus `pb:"3,status"`
	FinalTallyResult TallyResult    `pb:"4,final_tally_result"`
	SubmitTime       time.Time      `pb:"5,submit_time"`
	DepositEndTime   time.Time      `pb:"6,deposit_end_time"`
	TotalDeposit     []Coin         `pb:"7,total_deposit"`
	VotingStartTime  time.Time      `pb:"8,voting_start_time"`
	VotingEndTime    time.Time      `pb:"9,voting_end_time"`
}

func (Proposal) ProtoName() string { return "cosmos.gov.v1beta1.Proposal" }

type WeightedVoteOption struct {
	Option VoteOption `pb:"1,option"`
	Weight Dec        `pb:"2,weight"`
}

func (WeightedVoteOption) ProtoName() string { return "cosmos.gov.v1beta1.WeightedVoteOption" }

type Vote struct {
	ProposalID uint64               `pb:"1,proposal_id"`
	Voter      string               `pb:"2,voter"`
	Option     VoteOption           `pb:"3,option"`
	Options    []WeightedVoteOption `pb:"4,options"`
}

func (Vote) ProtoName() string { return "cosmos.gov.v1beta1.Vote" }

type Deposit struct {
	ProposalID uint64 `pb:"1,proposal_id"`
	Depositor  string `pb:"2,depositor"`
	Amount     []Coin `pb:"3,amount"`
}

func (Deposit) ProtoName() string { return "cosmos.gov.v1beta1.Deposit" }

type VotingParams struct {
	VotingPeriod time.Duration `pb:"1,voting_period"`
}

func (VotingParams) ProtoName() string { return "cosmos.gov.v1beta1.VotingParams" }

type DepositParams struct {
	MinDeposit       []Coin        `pb:"1,min_deposit"`
	MaxDepositPeriod time.Duration `pb:"2,max_deposit_period"`
}

func (DepositParams) ProtoName() string { return "cosmos.gov.v1beta1.DepositParams" }

// TallyParams' decimals are proto bytes holding the decimal's wire text.
type TallyParams struct {
	Quorum        DecBytes `pb:"1,quorum"`
	Threshold     DecBytes `pb:"2,threshold"`
	VetoThreshold DecBytes `pb:"3,veto_threshold"`
}

func (TallyParams) ProtoName() string { return "cosmos.gov.v1beta1.TallyParams" }

type QueryProposalRequest struct {
	ProposalID uint64 `pb:"1,proposal_id"`
}

func (QueryProposalRequest) ProtoName() string { return "cosmos.gov.v1beta1.QueryProposalRequest" }

type QueryProposalResponse struct {
	Proposal Proposal `pb:"1,proposal"`
}

func (QueryProposalResponse) ProtoName() string { return "cosmos.gov.v1beta1.QueryProposalResponse" }

type QueryProposalsRequest struct {
	ProposalStatus ProposalStatus `pb:"1,proposal_status"`
	Voter          string         `pb:"2,voter"`
	Depositor      string         `pb:"3,depositor"`
	Pagination     *PageRequest   `pb:"4,pagination"`
}

func (QueryProposalsRequest) ProtoName() string { return "cosmos.gov.v1beta1.QueryProposalsRequest" }

type QueryProposalsResponse struct {
	Proposals  []Proposal    `pb:"1,proposals"`
	Pagination *PageResponse `pb:"2,pagination"`
}

func (QueryProposalsResponse) ProtoName() string { return "cosmos.gov.v1beta1.QueryProposalsResponse" }

type QueryVoteRequest struct {
	ProposalID uint64 `pb:"1,proposal_id"`
	Voter      string `pb:"2,voter"`
}

func (QueryVoteRequest) ProtoName() string { return "cosmos.gov.v1beta1.QueryVoteRequest" }

type QueryVoteResponse struct {
	Vote Vote `pb:"1,vote"`
}

func (QueryVoteResponse) ProtoName() string { return "cosmos.gov.v1beta1.QueryVoteResponse" }

type QueryVotesRequest struct {
	ProposalID uint64       `pb:"1,proposal_id"`
	Pagination *PageRequest `pb:"2,pagination"`
}

func (QueryVotesRequest) ProtoName() string { return "cosmos.gov.v1beta1.QueryVotesRequest" }

type QueryVotesResponse struct {
	Votes      []Vote        `pb:"1,votes"`
	Pagination *PageResponse `pb:"2,pagination"`
}

func (QueryVotesResponse) ProtoName() string { return "cosmos.gov.v1beta1.QueryVotesResponse" }

type QueryDepositsRequest struct {
	ProposalID uint64       `pb:"1,proposal_id"`
	Pagination *PageRequest `pb:"2,pagination"`
}

func (QueryDepositsRequest) ProtoName() string { return "cosmos.gov.v1beta1.QueryDepositsRequest" }

type QueryDepositsResponse struct {
	Deposits   []Deposit     `pb:"1,deposits"`
	Pagination *PageResponse `pb:"2,pagination"`
}

func (QueryDepositsResponse) ProtoName() string { return "cosmos.gov.v1beta1.QueryDepositsResponse" }

type QueryTallyResultRequest struct {
	ProposalID uint64 `pb:"1,proposal_id"`
}

func (QueryTallyResultRequest) ProtoName() string {
	return "cosmos.gov.v1beta1.QueryTallyResultRequest"
}

type QueryTallyResultResponse struct {
	Tally TallyResult `pb:"1,tally"`
}

func (QueryTallyResultResponse) ProtoName() string {
	return "cosmos.gov.v1beta1.QueryTallyResultResponse"
}

type QueryGovParamsRequest struct {
	ParamsType string `pb:"1,params_type"`
}

func (QueryGovParamsRequest) ProtoName() string { return "cosmos.gov.v1beta1.QueryParamsRequest" }

type QueryGovParamsResponse struct {
	VotingParams  VotingParams  `pb:"1,voting_params"`
	DepositParams DepositParams `pb:"2,deposit_params"`
	TallyParams   TallyParams   `pb:"3,tally_params"`
}

func (QueryGovParamsResponse) ProtoName() string { return "cosmos.gov.v1beta1.QueryParamsResponse" }

func govService() *Service {
	return serviceFile("cosmos/gov/v1beta1/query.proto", "cosmos.gov.v1beta1.Query",
		append([]protobuf.Message{TextProposal{}, TallyResult{}, Proposal{}, WeightedVoteOption{}, Vote{}, Deposit{},
			VotingParams{}, DepositParams{}, TallyParams{},
			QueryProposalRequest{}, QueryProposalResponse{}, QueryProposalsRequest{}, QueryProposalsResponse{},
			QueryVoteRequest{}, QueryVoteResponse{}, QueryVotesRequest{}, QueryVotesResponse{},
			QueryDepositsRequest{}, QueryDepositsResponse{}, QueryTallyResultRequest{}, QueryTallyResultResponse{},
			QueryGovParamsRequest{}, QueryGovParamsResponse{}}, govDepositMessages...),
		[]protobuf.Enum{ProposalStatus(0), VoteOption(0)},
		[]*Method{
			method("Proposal", "/cosmos/gov/v1beta1/proposals/{proposal_id}", (*Querier).Proposal),
			method("Proposals", "/cosmos/gov/v1beta1/proposals", (*Querier).Proposals),
			method("Vote", "/cosmos/gov/v1beta1/proposals/{proposal_id}/votes/{voter}", (*Querier).Vote),
			method("Votes", "/cosmos/gov/v1beta1/proposals/{proposal_id}/votes", (*Querier).Votes),
			method("Params", "/cosmos/gov/v1beta1/params/{params_type}", (*Querier).GovParams),
			method("Deposit", "/cosmos/gov/v1beta1/proposals/{proposal_id}/deposits/{depositor}", (*Querier).Deposit),
			method("Deposits", "/cosmos/gov/v1beta1/proposals/{proposal_id}/deposits", (*Querier).Deposits),
			method("TallyResult", "/cosmos/gov/v1beta1/proposals/{proposal_id}/tally", (*Querier).TallyResult),
		})
}

func tallyOf(t vTally) TallyResult {
	return TallyResult{Yes: IntOf(t.Yes), Abstain: IntOf(t.Abstain), No: IntOf(t.No), NoWithVeto: IntOf(t.NoWithVeto)}
}

func proposalOf(p vProposal) Proposal {
	return Proposal{
		ProposalID: p.ID, Content: proposalContent(p),
		Status: ProposalStatus(p.Status), FinalTallyResult: tallyOf(p.FinalTally),
		SubmitTime: p.SubmitTime.UTC(), DepositEndTime: p.DepositEndTime.UTC(), TotalDeposit: coins(p.TotalDeposit),
		VotingStartTime: p.VotingStartTime.UTC(), VotingEndTime: p.VotingEndTime.UTC(),
	}
}

// oneWeight is the weight 1 as a Dec.
var oneWeight = new(uint256.Int).Exp(uint256.NewInt(10), uint256.NewInt(decimals))

func voteOf(v vVote) Vote {
	out := Vote{ProposalID: v.ProposalID, Voter: accAddr(v.Voter), Options: make([]WeightedVoteOption, len(v.Options))}
	for i, o := range v.Options {
		out.Options[i] = WeightedVoteOption{Option: VoteOption(o.Option), Weight: DecOf(o.Weight)}
	}
	// The deprecated single option is set only for an undivided vote.
	if len(v.Options) == 1 && v.Options[0].Weight != nil && v.Options[0].Weight.Eq(oneWeight) {
		out.Option = VoteOption(v.Options[0].Option)
	}
	return out
}

func proposalID(id uint64) error {
	if id == 0 {
		return Errorf(InvalidArgument, "proposal id can not be 0")
	}
	return nil
}

// proposal reads one proposal: NotFound for an unknown id.
func (q *Querier) proposal(ctx context.Context, id uint64) (vProposal, error) {
	if err := proposalID(id); err != nil {
		return vProposal{}, err
	}
	g, err := q.gov(ctx)
	if err != nil {
		return vProposal{}, err
	}
	p, err := g.Proposal(id)
	if err != nil {
		return vProposal{}, notFound(err, "proposal %d doesn't exist", id)
	}
	return p, nil
}

// Proposal returns one proposal.
func (q *Querier) Proposal(ctx context.Context, r *QueryProposalRequest) (*QueryProposalResponse, error) {
	p, err := q.proposal(ctx, r.ProposalID)
	if err != nil {
		return nil, err
	}
	return &QueryProposalResponse{Proposal: proposalOf(p)}, nil
}

// Proposals lists proposals, filtered by status, by a voter who voted on
// them and by a depositor who deposited on them.
func (q *Querier) Proposals(ctx context.Context, r *QueryProposalsRequest) (*QueryProposalsResponse, error) {
	page, pr, err := q.proposalPage(ctx, r.ProposalStatus, r.Voter, r.Depositor, r.Pagination)
	if err != nil {
		return nil, err
	}
	out := make([]Proposal, len(page))
	for i, p := range page {
		out[i] = proposalOf(p)
	}
	return &QueryProposalsResponse{Proposals: out, Pagination: pr}, nil
}

// proposalPage is the page of proposals with the status asked (0: any)
// that voter voted on and depositor deposited on (each "": anyone); v1
// and v1beta1 number their statuses alike.
func (q *Querier) proposalPage(ctx context.Context, status ProposalStatus, voterAddr, depositorAddr string, pg *PageRequest) ([]vProposal, *PageResponse, error) {
	var voter, depositor types.Address
	var err error
	if voterAddr != "" {
		if voter, err = parseAddress(AccountPrefix, "voter address", voterAddr); err != nil {
			return nil, nil, err
		}
	}
	if depositorAddr != "" {
		if depositor, err = parseAddress(AccountPrefix, "depositor address", depositorAddr); err != nil {
			return nil, nil, err
		}
	}
	g, err := q.gov(ctx)
	if err != nil {
		return nil, nil, err
	}
	all, err := g.Proposals()
	if err != nil {
		return nil, nil, err
	}
	var ps []vProposal
	for _, p := range all {
		if status != 0 && ProposalStatus(p.Status) != status {
			continue
		}
		if voterAddr != "" {
			votes, err := g.Votes(p.ID)
			if err != nil {
				return nil, nil, err
			}
			if !hasAddr(votes, voter, func(v vVote) types.Address { return v.Voter }) {
				continue
			}
		}
		if depositorAddr != "" {
			deps, err := g.Deposits(p.ID)
			if err != nil {
				return nil, nil, err
			}
			if !hasAddr(deps, depositor, func(d vDeposit) types.Address { return d.Depositor }) {
				continue
			}
		}
		ps = append(ps, p)
	}
	return paginate(ps, func(p vProposal) []byte { return uint64Key(p.ID) }, pg)
}

func hasAddr[T any](items []T, a types.Address, addr func(T) types.Address) bool {
	for _, it := range items {
		if addr(it) == a {
			return true
		}
	}
	return false
}

// uint64Key is the paging key of an item listed by number: big-endian,
// so keys sort as the numbers do.
func uint64Key(n uint64) []byte {
	return []byte{byte(n >> 56), byte(n >> 48), byte(n >> 40), byte(n >> 32), byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
}

// votes reads the votes on a proposal: NotFound for an unknown one.
func (q *Querier) votes(ctx context.Context, id uint64) ([]vVote, error) {
	if err := proposalID(id); err != nil {
		return nil, err
	}
	g, err := q.gov(ctx)
	if err != nil {
		return nil, err
	}
	votes, err := g.Votes(id)
	if err != nil {
		return nil, notFound(err, "proposal %d doesn't exist", id)
	}
	return votes, nil
}

// vote reads one voter's vote on a proposal.
func (q *Querier) vote(ctx context.Context, id uint64, voterAddr string) (vVote, error) {
	if err := proposalID(id); err != nil {
		return vVote{}, err
	}
	voter, err := parseAddress(AccountPrefix, "voter address", voterAddr)
	if err != nil {
		return vVote{}, err
	}
	votes, err := q.votes(ctx, id)
	if err != nil {
		return vVote{}, err
	}
	for _, v := range votes {
		if v.Voter == voter {
			return v, nil
		}
	}
	// The SDK answers a missing vote InvalidArgument (x/gov keeper), not
	// NotFound (testdata/sdk050/golden/gov.v1beta1.Vote_not_found.json).
	return vVote{}, Errorf(InvalidArgument, "voter: %v not found for proposal: %v", voterAddr, id)
}

// votePage is a page of the votes on a proposal, by voter.
func (q *Querier) votePage(ctx context.Context, id uint64, pg *PageRequest) ([]vVote, *PageResponse, error) {
	votes, err := q.votes(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return paginate(votes, func(v vVote) []byte { return addrKey(v.Voter) }, pg)
}

// deposits reads the deposits on a proposal: NotFound for an unknown one.
func (q *Querier) deposits(ctx context.Context, id uint64) ([]vDeposit, error) {
	if err := proposalID(id); err != nil {
		return nil, err
	}
	g, err := q.gov(ctx)
	if err != nil {
		return nil, err
	}
	deps, err := g.Deposits(id)
	if err != nil {
		return nil, notFound(err, "proposal %d doesn't exist", id)
	}
	return deps, nil
}

// depositPage is a page of the deposits on a proposal, by depositor.
func (q *Querier) depositPage(ctx context.Context, id uint64, pg *PageRequest) ([]vDeposit, *PageResponse, error) {
	deps, err := q.deposits(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return paginate(deps, func(d vDeposit) []byte { return addrKey(d.Depositor) }, pg)
}

// tally counts a proposal's votes.
func (q *Querier) tally(ctx context.Context, id uint64) (vTally, error) {
	if err := proposalID(id); err != nil {
		return vTally{}, err
	}
	g, err := q.gov(ctx)
	if err != nil {
		return vTally{}, err
	}
	t, err := g.Tally(id)
	if err != nil {
		return vTally{}, notFound(err, "proposal %d doesn't exist", id)
	}
	return t, nil
}

// Vote returns one voter's vote on a proposal.
func (q *Querier) Vote(ctx context.Context, r *QueryVoteRequest) (*QueryVoteResponse, error) {
	v, err := q.vote(ctx, r.ProposalID, r.Voter)
	if err != nil {
		return nil, err
	}
	return &QueryVoteResponse{Vote: voteOf(v)}, nil
}

// Votes lists the votes on a proposal.
func (q *Querier) Votes(ctx context.Context, r *QueryVotesRequest) (*QueryVotesResponse, error) {
	page, pr, err := q.votePage(ctx, r.ProposalID, r.Pagination)
	if err != nil {
		return nil, err
	}
	out := make([]Vote, len(page))
	for i, v := range page {
		out[i] = voteOf(v)
	}
	return &QueryVotesResponse{Votes: out, Pagination: pr}, nil
}

func depositOf(d vDeposit) Deposit {
	return Deposit{ProposalID: d.ProposalID, Depositor: accAddr(d.Depositor), Amount: coins(d.Amount)}
}

// Deposits lists the deposits on a proposal.
func (q *Querier) Deposits(ctx context.Context, r *QueryDepositsRequest) (*QueryDepositsResponse, error) {
	page, pr, err := q.depositPage(ctx, r.ProposalID, r.Pagination)
	if err != nil {
		return nil, err
	}
	out := make([]Deposit, len(page))
	for i, d := range page {
		out[i] = depositOf(d)
	}
	return &QueryDepositsResponse{Deposits: out, Pagination: pr}, nil
}

// TallyResult counts a proposal's votes.
func (q *Querier) TallyResult(ctx context.Context, r *QueryTallyResultRequest) (*QueryTallyResultResponse, error) {
	t, err := q.tally(ctx, r.ProposalID)
	if err != nil {
		return nil, err
	}
	return &QueryTallyResultResponse{Tally: tallyOf(t)}, nil
}

// govParams reads the governance parameters, after checking the group
// asked for ("voting", "deposit" or "tallying"; "" too when any is
// allowed, as v1 allows it).
func (q *Querier) govParams(ctx context.Context, paramsType string, anyType bool) (vGovParams, error) {
	switch paramsType {
	case "voting", "deposit", "tallying":
	default:
		if !anyType || paramsType != "" {
			return vGovParams{}, Errorf(InvalidArgument, "%s is not a valid parameter type", paramsType)
		}
	}
	g, err := q.gov(ctx)
	if err != nil {
		return vGovParams{}, err
	}
	return g.GovParams()
}

// GovParams returns one group of governance parameters ("voting",
// "deposit" or "tallying"); the other groups are left zero, as the Cosmos
// SDK answers.
func (q *Querier) GovParams(ctx context.Context, r *QueryGovParamsRequest) (*QueryGovParamsResponse, error) {
	p, err := q.govParams(ctx, r.ParamsType, false)
	if err != nil {
		return nil, err
	}
	out := &QueryGovParamsResponse{DepositParams: DepositParams{MinDeposit: []Coin{}}}
	switch r.ParamsType {
	case "voting":
		out.VotingParams.VotingPeriod = p.VotingPeriod
	case "deposit":
		out.DepositParams = DepositParams{MinDeposit: coins(p.MinDeposit), MaxDepositPeriod: p.MaxDepositPeriod}
	case "tallying":
		out.TallyParams = TallyParams{Quorum: DecBytes{DecOf(p.Quorum)}, Threshold: DecBytes{DecOf(p.Threshold)}, VetoThreshold: DecBytes{DecOf(p.VetoThreshold)}}
	}
	return out, nil
}
