package query

import (
	"context"
	"time"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/holiman/uint256"
)

// cosmos.gov.v1, the SDK v0.50 governance service, beside v1beta1 and
// from the same lookups. A proposal's messages are what it changes as
// v1 wraps a legacy proposal: one MsgExecLegacyContent carrying the
// v1beta1 content (text, parameter change or upgrade) with the
// governance contract as its authority. Decimals are plain strings in
// v1, and unset times are null. The parameters v1 adds are the
// governance contract's rules: no initial deposit share is required, no
// proposal can be cancelled or expedited, deposits are refunded below
// quorum and when a proposal is dropped, and burned on a veto.

// ProposalStatusV1 is cosmos.gov.v1.ProposalStatus.
type ProposalStatusV1 int32

func (ProposalStatusV1) EnumDescriptor() (string, []string) {
	_, names := ProposalStatus(0).EnumDescriptor()
	return "cosmos.gov.v1.ProposalStatus", names
}

// VoteOptionV1 is cosmos.gov.v1.VoteOption.
type VoteOptionV1 int32

func (VoteOptionV1) EnumDescriptor() (string, []string) {
	_, names := VoteOption(0).EnumDescriptor()
	return "cosmos.gov.v1.VoteOption", names
}

type MsgExecLegacyContent struct {
	Content   *protobuf.Any `pb:"1,content"`
	Authority string        `pb:"2,authority"`
}

func (MsgExecLegacyContent) ProtoName() string { return "cosmos.gov.v1.MsgExecLegacyContent" }

type TallyResultV1 struct {
	YesCount        Int `pb:"1,yes_count"`
	AbstainCount    Int `pb:"2,abstain_count"`
	NoCount         Int `pb:"3,no_count"`
	NoWithVetoCount Int `pb:"4,no_with_veto_count"`
}

func (TallyResultV1) ProtoName() string { return "cosmos.gov.v1.TallyResult" }

type ProposalV1 struct {
	ID               uint64           `pb:"1,id"`
	Messages         []*protobuf.Any  `pb:"2,messages"`
	Status           ProposalStatusV1 `pb:"3,status"`
	FinalTallyResult *TallyResultV1   `pb:"4,final_tally_result"`
	SubmitTime       *time.Time       `pb:"5,submit_time"`
	DepositEndTime   *time.Time       `pb:"6,deposit_end_time"`
	TotalDeposit     []Coin           `pb:"7,total_deposit"`
	VotingStartTime  *time.Time       `pb:"8,voting_start_time"`
	VotingEndTime    *time.Time       `pb:"9,voting_end_time"`
	Metadata         string           `pb:"10,metadata"`
	Title            string           `pb:"11,title"`
	Summary          string           `pb:"12,summary"`
	Proposer         string           `pb:"13,proposer"`
	Expedited        bool             `pb:"14,expedited"`
	FailedReason     string           `pb:"15,failed_reason"`
}

func (ProposalV1) ProtoName() string { return "cosmos.gov.v1.Proposal" }

type WeightedVoteOptionV1 struct {
	Option VoteOptionV1 `pb:"1,option"`
	Weight string       `pb:"2,weight"`
}

func (WeightedVoteOptionV1) ProtoName() string { return "cosmos.gov.v1.WeightedVoteOption" }

type VoteV1 struct {
	ProposalID uint64                 `pb:"1,proposal_id"`
	Voter      string                 `pb:"2,voter"`
	Options    []WeightedVoteOptionV1 `pb:"4,options"`
	Metadata   string                 `pb:"5,metadata"`
}

func (VoteV1) ProtoName() string { return "cosmos.gov.v1.Vote" }

type DepositV1 struct {
	ProposalID uint64 `pb:"1,proposal_id"`
	Depositor  string `pb:"2,depositor"`
	Amount     []Coin `pb:"3,amount"`
}

func (DepositV1) ProtoName() string { return "cosmos.gov.v1.Deposit" }

type VotingParamsV1 struct {
	VotingPeriod *time.Duration `pb:"1,voting_period"`
}

func (VotingParamsV1) ProtoName() string { return "cosmos.gov.v1.VotingParams" }

type DepositParamsV1 struct {
	MinDeposit       []Coin         `pb:"1,min_deposit"`
	MaxDepositPeriod *time.Duration `pb:"2,max_deposit_period"`
}

func (DepositParamsV1) ProtoName() string { return "cosmos.gov.v1.DepositParams" }

type TallyParamsV1 struct {
	Quorum        string `pb:"1,quorum"`
	Threshold     string `pb:"2,threshold"`
	VetoThreshold string `pb:"3,veto_threshold"`
}

func (TallyParamsV1) ProtoName() string { return "cosmos.gov.v1.TallyParams" }

type GovParamsV1 struct {
	MinDeposit                 []Coin         `pb:"1,min_deposit"`
	MaxDepositPeriod           *time.Duration `pb:"2,max_deposit_period"`
	VotingPeriod               *time.Duration `pb:"3,voting_period"`
	Quorum                     string         `pb:"4,quorum"`
	Threshold                  string         `pb:"5,threshold"`
	VetoThreshold              string         `pb:"6,veto_threshold"`
	MinInitialDepositRatio     string         `pb:"7,min_initial_deposit_ratio"`
	ProposalCancelRatio        string         `pb:"8,proposal_cancel_ratio"`
	ProposalCancelDest         string         `pb:"9,proposal_cancel_dest"`
	ExpeditedVotingPeriod      *time.Duration `pb:"10,expedited_voting_period"`
	ExpeditedThreshold         string         `pb:"11,expedited_threshold"`
	ExpeditedMinDeposit        []Coin         `pb:"12,expedited_min_deposit"`
	BurnVoteQuorum             bool           `pb:"13,burn_vote_quorum"`
	BurnProposalDepositPrevote bool           `pb:"14,burn_proposal_deposit_prevote"`
	BurnVoteVeto               bool           `pb:"15,burn_vote_veto"`
	MinDepositRatio            string         `pb:"16,min_deposit_ratio"`
}

func (GovParamsV1) ProtoName() string { return "cosmos.gov.v1.Params" }

type QueryConstitutionRequestV1 struct{}

func (QueryConstitutionRequestV1) ProtoName() string { return "cosmos.gov.v1.QueryConstitutionRequest" }

type QueryConstitutionResponseV1 struct {
	Constitution string `pb:"1,constitution"`
}

func (QueryConstitutionResponseV1) ProtoName() string {
	return "cosmos.gov.v1.QueryConstitutionResponse"
}

type QueryProposalRequestV1 struct {
	ProposalID uint64 `pb:"1,proposal_id"`
}

func (QueryProposalRequestV1) ProtoName() string { return "cosmos.gov.v1.QueryProposalRequest" }

type QueryProposalResponseV1 struct {
	Proposal *ProposalV1 `pb:"1,proposal"`
}

func (QueryProposalResponseV1) ProtoName() string { return "cosmos.gov.v1.QueryProposalResponse" }

type QueryProposalsRequestV1 struct {
	ProposalStatus ProposalStatusV1 `pb:"1,proposal_status"`
	Voter          string           `pb:"2,voter"`
	Depositor      string           `pb:"3,depositor"`
	Pagination     *PageRequest     `pb:"4,pagination"`
}

func (QueryProposalsRequestV1) ProtoName() string { return "cosmos.gov.v1.QueryProposalsRequest" }

type QueryProposalsResponseV1 struct {
	Proposals  []ProposalV1  `pb:"1,proposals"`
	Pagination *PageResponse `pb:"2,pagination"`
}

func (QueryProposalsResponseV1) ProtoName() string { return "cosmos.gov.v1.QueryProposalsResponse" }

type QueryVoteRequestV1 struct {
	ProposalID uint64 `pb:"1,proposal_id"`
	Voter      string `pb:"2,voter"`
}

func (QueryVoteRequestV1) ProtoName() string { return "cosmos.gov.v1.QueryVoteRequest" }

type QueryVoteResponseV1 struct {
	Vote *VoteV1 `pb:"1,vote"`
}

func (QueryVoteResponseV1) ProtoName() string { return "cosmos.gov.v1.QueryVoteResponse" }

type QueryVotesRequestV1 struct {
	ProposalID uint64       `pb:"1,proposal_id"`
	Pagination *PageRequest `pb:"2,pagination"`
}

func (QueryVotesRequestV1) ProtoName() string { return "cosmos.gov.v1.QueryVotesRequest" }

type QueryVotesResponseV1 struct {
	Votes      []VoteV1      `pb:"1,votes"`
	Pagination *PageResponse `pb:"2,pagination"`
}

func (QueryVotesResponseV1) ProtoName() string { return "cosmos.gov.v1.QueryVotesResponse" }

type QueryParamsRequestV1 struct {
	ParamsType string `pb:"1,params_type"`
}

func (QueryParamsRequestV1) ProtoName() string { return "cosmos.gov.v1.QueryParamsRequest" }

type QueryParamsResponseV1 struct {
	VotingParams  *VotingParamsV1  `pb:"1,voting_params"`
	DepositParams *DepositParamsV1 `pb:"2,deposit_params"`
	TallyParams   *TallyParamsV1   `pb:"3,tally_params"`
	Params        *GovParamsV1     `pb:"4,params"`
}

func (QueryParamsResponseV1) ProtoName() string { return "cosmos.gov.v1.QueryParamsResponse" }

type QueryDepositRequestV1 struct {
	ProposalID uint64 `pb:"1,proposal_id"`
	Depositor  string `pb:"2,depositor"`
}

func (QueryDepositRequestV1) ProtoName() string { return "cosmos.gov.v1.QueryDepositRequest" }

type QueryDepositResponseV1 struct {
	Deposit *DepositV1 `pb:"1,deposit"`
}

func (QueryDepositResponseV1) ProtoName() string { return "cosmos.gov.v1.QueryDepositResponse" }

type QueryDepositsRequestV1 struct {
	ProposalID uint64       `pb:"1,proposal_id"`
	Pagination *PageRequest `pb:"2,pagination"`
}

func (QueryDepositsRequestV1) ProtoName() string { return "cosmos.gov.v1.QueryDepositsRequest" }

type QueryDepositsResponseV1 struct {
	Deposits   []DepositV1   `pb:"1,deposits"`
	Pagination *PageResponse `pb:"2,pagination"`
}

func (QueryDepositsResponseV1) ProtoName() string { return "cosmos.gov.v1.QueryDepositsResponse" }

type QueryTallyResultRequestV1 struct {
	ProposalID uint64 `pb:"1,proposal_id"`
}

func (QueryTallyResultRequestV1) ProtoName() string { return "cosmos.gov.v1.QueryTallyResultRequest" }

type QueryTallyResultResponseV1 struct {
	Tally *TallyResultV1 `pb:"1,tally"`
}

func (QueryTallyResultResponseV1) ProtoName() string { return "cosmos.gov.v1.QueryTallyResultResponse" }

func govV1Service() *Service {
	return serviceFile("cosmos/gov/v1/query.proto", "cosmos.gov.v1.Query",
		[]protobuf.Message{MsgExecLegacyContent{}, TallyResultV1{}, ProposalV1{}, WeightedVoteOptionV1{}, VoteV1{}, DepositV1{},
			VotingParamsV1{}, DepositParamsV1{}, TallyParamsV1{}, GovParamsV1{},
			QueryConstitutionRequestV1{}, QueryConstitutionResponseV1{}, QueryProposalRequestV1{}, QueryProposalResponseV1{},
			QueryProposalsRequestV1{}, QueryProposalsResponseV1{}, QueryVoteRequestV1{}, QueryVoteResponseV1{},
			QueryVotesRequestV1{}, QueryVotesResponseV1{}, QueryParamsRequestV1{}, QueryParamsResponseV1{},
			QueryDepositRequestV1{}, QueryDepositResponseV1{}, QueryDepositsRequestV1{}, QueryDepositsResponseV1{},
			QueryTallyResultRequestV1{}, QueryTallyResultResponseV1{}},
		[]protobuf.Enum{ProposalStatusV1(0), VoteOptionV1(0)},
		[]*Method{
			method("Constitution", "/cosmos/gov/v1/constitution", (*Querier).ConstitutionV1),
			method("Proposal", "/cosmos/gov/v1/proposals/{proposal_id}", (*Querier).ProposalV1),
			method("Proposals", "/cosmos/gov/v1/proposals", (*Querier).ProposalsV1),
			method("Vote", "/cosmos/gov/v1/proposals/{proposal_id}/votes/{voter}", (*Querier).VoteV1),
			method("Votes", "/cosmos/gov/v1/proposals/{proposal_id}/votes", (*Querier).VotesV1),
			method("Params", "/cosmos/gov/v1/params/{params_type}", (*Querier).GovParamsV1),
			method("Deposit", "/cosmos/gov/v1/proposals/{proposal_id}/deposits/{depositor}", (*Querier).DepositV1),
			method("Deposits", "/cosmos/gov/v1/proposals/{proposal_id}/deposits", (*Querier).DepositsV1),
			method("TallyResult", "/cosmos/gov/v1/proposals/{proposal_id}/tally", (*Querier).TallyResultV1),
		})
}

// decText is a Dec as v1's plain decimal strings hold it.
func decText(x *uint256.Int) string { return DecOf(x).JSONText() }

func optTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

func tallyV1(t vTally) *TallyResultV1 {
	return &TallyResultV1{YesCount: IntOf(t.Yes), AbstainCount: IntOf(t.Abstain), NoCount: IntOf(t.No), NoWithVetoCount: IntOf(t.NoWithVeto)}
}

func (q *Querier) proposalV1(p vProposal) ProposalV1 {
	return ProposalV1{
		ID: p.ID, Status: ProposalStatusV1(p.Status), FinalTallyResult: tallyV1(p.FinalTally),
		Messages:   []*protobuf.Any{{Msg: MsgExecLegacyContent{Content: proposalContent(p), Authority: accAddr(q.b.Authority)}}},
		SubmitTime: optTime(p.SubmitTime), DepositEndTime: optTime(p.DepositEndTime), TotalDeposit: coins(p.TotalDeposit),
		VotingStartTime: optTime(p.VotingStartTime), VotingEndTime: optTime(p.VotingEndTime),
		Title: p.Title, Summary: p.Description, Proposer: accAddr(p.Proposer),
	}
}

func voteV1(v vVote) VoteV1 {
	out := VoteV1{ProposalID: v.ProposalID, Voter: accAddr(v.Voter), Options: make([]WeightedVoteOptionV1, len(v.Options))}
	for i, o := range v.Options {
		out.Options[i] = WeightedVoteOptionV1{Option: VoteOptionV1(o.Option), Weight: decText(o.Weight)}
	}
	return out
}

func depositV1(d vDeposit) DepositV1 {
	return DepositV1{ProposalID: d.ProposalID, Depositor: accAddr(d.Depositor), Amount: coins(d.Amount)}
}

// ConstitutionV1: the chain adopted no constitution.
func (q *Querier) ConstitutionV1(context.Context, *QueryConstitutionRequestV1) (*QueryConstitutionResponseV1, error) {
	return &QueryConstitutionResponseV1{}, nil
}

// ProposalV1 returns one proposal.
func (q *Querier) ProposalV1(ctx context.Context, r *QueryProposalRequestV1) (*QueryProposalResponseV1, error) {
	p, err := q.proposal(ctx, r.ProposalID)
	if err != nil {
		return nil, err
	}
	out := q.proposalV1(p)
	return &QueryProposalResponseV1{Proposal: &out}, nil
}

// ProposalsV1 lists proposals, filtered as v1beta1's Proposals.
func (q *Querier) ProposalsV1(ctx context.Context, r *QueryProposalsRequestV1) (*QueryProposalsResponseV1, error) {
	page, pr, err := q.proposalPage(ctx, ProposalStatus(r.ProposalStatus), r.Voter, r.Depositor, r.Pagination)
	if err != nil {
		return nil, err
	}
	out := make([]ProposalV1, len(page))
	for i, p := range page {
		out[i] = q.proposalV1(p)
	}
	return &QueryProposalsResponseV1{Proposals: out, Pagination: pr}, nil
}

// VoteV1 returns one voter's vote.
func (q *Querier) VoteV1(ctx context.Context, r *QueryVoteRequestV1) (*QueryVoteResponseV1, error) {
	v, err := q.vote(ctx, r.ProposalID, r.Voter)
	if err != nil {
		return nil, err
	}
	out := voteV1(v)
	return &QueryVoteResponseV1{Vote: &out}, nil
}

// VotesV1 lists the votes on a proposal.
func (q *Querier) VotesV1(ctx context.Context, r *QueryVotesRequestV1) (*QueryVotesResponseV1, error) {
	page, pr, err := q.votePage(ctx, r.ProposalID, r.Pagination)
	if err != nil {
		return nil, err
	}
	out := make([]VoteV1, len(page))
	for i, v := range page {
		out[i] = voteV1(v)
	}
	return &QueryVotesResponseV1{Votes: out, Pagination: pr}, nil
}

// GovParamsV1 returns every parameter, and the group asked for in its
// deprecated form.
func (q *Querier) GovParamsV1(ctx context.Context, r *QueryParamsRequestV1) (*QueryParamsResponseV1, error) {
	p, err := q.govParams(ctx, r.ParamsType, true)
	if err != nil {
		return nil, err
	}
	zero := decText(nil)
	out := &QueryParamsResponseV1{Params: &GovParamsV1{
		MinDeposit: coins(p.MinDeposit), MaxDepositPeriod: &p.MaxDepositPeriod, VotingPeriod: &p.VotingPeriod,
		Quorum: decText(p.Quorum), Threshold: decText(p.Threshold), VetoThreshold: decText(p.VetoThreshold),
		MinInitialDepositRatio: zero, ProposalCancelRatio: zero, ExpeditedThreshold: zero, ExpeditedMinDeposit: []Coin{},
		BurnVoteVeto: true, MinDepositRatio: zero,
	}}
	switch r.ParamsType {
	case "voting":
		out.VotingParams = &VotingParamsV1{VotingPeriod: &p.VotingPeriod}
	case "deposit":
		out.DepositParams = &DepositParamsV1{MinDeposit: coins(p.MinDeposit), MaxDepositPeriod: &p.MaxDepositPeriod}
	case "tallying":
		out.TallyParams = &TallyParamsV1{Quorum: decText(p.Quorum), Threshold: decText(p.Threshold), VetoThreshold: decText(p.VetoThreshold)}
	}
	return out, nil
}

// DepositV1 returns one depositor's deposit.
func (q *Querier) DepositV1(ctx context.Context, r *QueryDepositRequestV1) (*QueryDepositResponseV1, error) {
	d, err := q.deposit(ctx, r.ProposalID, r.Depositor)
	if err != nil {
		return nil, err
	}
	out := depositV1(d)
	return &QueryDepositResponseV1{Deposit: &out}, nil
}

// DepositsV1 lists the deposits on a proposal.
func (q *Querier) DepositsV1(ctx context.Context, r *QueryDepositsRequestV1) (*QueryDepositsResponseV1, error) {
	page, pr, err := q.depositPage(ctx, r.ProposalID, r.Pagination)
	if err != nil {
		return nil, err
	}
	out := make([]DepositV1, len(page))
	for i, d := range page {
		out[i] = depositV1(d)
	}
	return &QueryDepositsResponseV1{Deposits: out, Pagination: pr}, nil
}

// TallyResultV1 counts a proposal's votes.
func (q *Querier) TallyResultV1(ctx context.Context, r *QueryTallyResultRequestV1) (*QueryTallyResultResponseV1, error) {
	t, err := q.tally(ctx, r.ProposalID)
	if err != nil {
		return nil, err
	}
	return &QueryTallyResultResponseV1{Tally: tallyV1(t)}, nil
}
