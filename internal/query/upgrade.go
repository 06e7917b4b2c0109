package query

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/protobuf"
)

// What a proposal changes, as the Cosmos SDK shows it in a proposal's
// content: a parameter change (and a software version proposal, which
// sets a version parameter) as cosmos.params.v1beta1's
// ParameterChangeProposal, a software upgrade as cosmos.upgrade.v1beta1's
// SoftwareUpgradeProposal with its plan; the upgrade module's queries
// serve the scheduled and applied plans. A change's value is JSON, as the
// SDK's params module keeps values: the governance contract's value as a
// JSON string ("\"7\"", "\"1.3.0\"").

type ParamChange struct {
	Subspace string `pb:"1,subspace"`
	Key      string `pb:"2,key"`
	Value    string `pb:"3,value"`
}

func (ParamChange) ProtoName() string { return "cosmos.params.v1beta1.ParamChange" }

type ParameterChangeProposal struct {
	Title       string        `pb:"1,title"`
	Description string        `pb:"2,description"`
	Changes     []ParamChange `pb:"3,changes"`
}

func (ParameterChangeProposal) ProtoName() string {
	return "cosmos.params.v1beta1.ParameterChangeProposal"
}

type Plan struct {
	Name                string        `pb:"1,name"`
	Time                time.Time     `pb:"2,time"` // deprecated in the SDK; always the zero time
	Height              int64         `pb:"3,height"`
	Info                string        `pb:"4,info"`
	UpgradedClientState *protobuf.Any `pb:"5,upgraded_client_state"`
}

func (Plan) ProtoName() string { return "cosmos.upgrade.v1beta1.Plan" }

type SoftwareUpgradeProposal struct {
	Title       string `pb:"1,title"`
	Description string `pb:"2,description"`
	Plan        Plan   `pb:"3,plan"`
}

func (SoftwareUpgradeProposal) ProtoName() string {
	return "cosmos.upgrade.v1beta1.SoftwareUpgradeProposal"
}

type QueryCurrentPlanRequest struct{}

func (QueryCurrentPlanRequest) ProtoName() string {
	return "cosmos.upgrade.v1beta1.QueryCurrentPlanRequest"
}

type QueryCurrentPlanResponse struct {
	Plan *Plan `pb:"1,plan"`
}

func (QueryCurrentPlanResponse) ProtoName() string {
	return "cosmos.upgrade.v1beta1.QueryCurrentPlanResponse"
}

type QueryAppliedPlanRequest struct {
	Name string `pb:"1,name"`
}

func (QueryAppliedPlanRequest) ProtoName() string {
	return "cosmos.upgrade.v1beta1.QueryAppliedPlanRequest"
}

type QueryAppliedPlanResponse struct {
	Height int64 `pb:"1,height"`
}

func (QueryAppliedPlanResponse) ProtoName() string {
	return "cosmos.upgrade.v1beta1.QueryAppliedPlanResponse"
}

type QueryAuthorityRequest struct{}

func (QueryAuthorityRequest) ProtoName() string {
	return "cosmos.upgrade.v1beta1.QueryAuthorityRequest"
}

type QueryAuthorityResponse struct {
	Address string `pb:"1,address"`
}

func (QueryAuthorityResponse) ProtoName() string {
	return "cosmos.upgrade.v1beta1.QueryAuthorityResponse"
}

type QueryModuleVersionsRequest struct {
	ModuleName string `pb:"1,module_name"`
}

func (QueryModuleVersionsRequest) ProtoName() string {
	return "cosmos.upgrade.v1beta1.QueryModuleVersionsRequest"
}

type QueryModuleVersionsResponse struct {
	ModuleVersions []ModuleVersion `pb:"1,module_versions"`
}

func (QueryModuleVersionsResponse) ProtoName() string {
	return "cosmos.upgrade.v1beta1.QueryModuleVersionsResponse"
}

type ModuleVersion struct {
	Name    string `pb:"1,name"`
	Version uint64 `pb:"2,version"`
}

func (ModuleVersion) ProtoName() string { return "cosmos.upgrade.v1beta1.ModuleVersion" }

type QueryUpgradedConsensusStateRequest struct {
	LastHeight int64 `pb:"1,last_height"`
}

func (QueryUpgradedConsensusStateRequest) ProtoName() string {
	return "cosmos.upgrade.v1beta1.QueryUpgradedConsensusStateRequest"
}

// QueryUpgradedConsensusStateResponse has the SDK's field number 2 (1 is
// reserved there).
type QueryUpgradedConsensusStateResponse struct {
	UpgradedConsensusState []byte `pb:"2,upgraded_consensus_state"`
}

func (QueryUpgradedConsensusStateResponse) ProtoName() string {
	return "cosmos.upgrade.v1beta1.QueryUpgradedConsensusStateResponse"
}

// consensusVersions are the consensus versions of chaind's modules, as
// each SDK module declares its own in code (AppModule.ConsensusVersion):
// the version of the state layout and rules the binary runs the module
// with, raised by a software upgrade that migrates the module's state.
// chaind has migrated none of its modules' state, so each is at 1. A
// module is one whose Query service chaind serves (New checks that each
// has an entry).
var consensusVersions = map[string]uint64{
	"auth": 1, "bank": 1, "distribution": 1, "gov": 1, "mint": 1, "slashing": 1, "staking": 1, "upgrade": 1,
}

// moduleVersions lists the modules of services (cosmos.<module>.<version>.Query)
// with their consensus versions, by name.
func moduleVersions(services []*Service) []ModuleVersion {
	seen := map[string]bool{}
	var out []ModuleVersion
	for _, s := range services {
		parts := strings.Split(s.Name, ".")
		if len(parts) != 4 || parts[0] != "cosmos" || parts[3] != "Query" || seen[parts[1]] {
			continue
		}
		v, ok := consensusVersions[parts[1]]
		if !ok {
			panic(fmt.Sprintf("query: module %s (%s) has no consensus version", parts[1], s.Name))
		}
		seen[parts[1]] = true
		out = append(out, ModuleVersion{Name: parts[1], Version: v})
	}
	slices.SortFunc(out, func(a, b ModuleVersion) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// proposalTypeFiles declare the proposal contents beside the services'
// own files, so reflection describes every Any a proposal carries.
var proposalTypeFiles = []protobuf.File{
	{Name: "cosmos/params/v1beta1/params.proto", Package: "cosmos.params.v1beta1", Messages: []protobuf.Message{ParameterChangeProposal{}, ParamChange{}}},
	{Name: "cosmos/upgrade/v1beta1/upgrade.proto", Package: "cosmos.upgrade.v1beta1", Messages: []protobuf.Message{Plan{}, SoftwareUpgradeProposal{}}},
}

func upgradeService() *Service {
	return serviceFile("cosmos/upgrade/v1beta1/query.proto", "cosmos.upgrade.v1beta1.Query",
		[]protobuf.Message{QueryCurrentPlanRequest{}, QueryCurrentPlanResponse{}, QueryAppliedPlanRequest{}, QueryAppliedPlanResponse{},
			QueryAuthorityRequest{}, QueryAuthorityResponse{}, QueryModuleVersionsRequest{}, QueryModuleVersionsResponse{}, ModuleVersion{},
			QueryUpgradedConsensusStateRequest{}, QueryUpgradedConsensusStateResponse{}},
		nil,
		[]*Method{
			method("CurrentPlan", "/cosmos/upgrade/v1beta1/current_plan", (*Querier).CurrentPlan),
			method("AppliedPlan", "/cosmos/upgrade/v1beta1/applied_plan/{name}", (*Querier).AppliedPlan),
			method("Authority", "/cosmos/upgrade/v1beta1/authority", (*Querier).Authority),
			method("ModuleVersions", "/cosmos/upgrade/v1beta1/module_versions", (*Querier).ModuleVersions),
			method("UpgradedConsensusState", "/cosmos/upgrade/v1beta1/upgraded_consensus_state/{last_height}", (*Querier).UpgradedConsensusState),
		})
}

func planOf(p backend.UpgradePlan) Plan {
	return Plan{Name: p.Name, Height: int64(p.Height), Info: p.Info}
}

// proposalContent is what a proposal changes, packed in an Any.
func proposalContent(p vProposal) *protobuf.Any {
	switch {
	case p.Plan != nil:
		return &protobuf.Any{Msg: SoftwareUpgradeProposal{Title: p.Title, Description: p.Description, Plan: planOf(*p.Plan)}}
	case len(p.Changes) > 0:
		cs := make([]ParamChange, len(p.Changes))
		for i, c := range p.Changes {
			v, _ := json.Marshal(c.Value) // a string always marshals
			cs[i] = ParamChange{Subspace: c.Subspace, Key: c.Key, Value: string(v)}
		}
		return &protobuf.Any{Msg: ParameterChangeProposal{Title: p.Title, Description: p.Description, Changes: cs}}
	}
	return &protobuf.Any{Msg: TextProposal{Title: p.Title, Description: p.Description}}
}

// CurrentPlan is the scheduled software upgrade, if any.
func (q *Querier) CurrentPlan(ctx context.Context, _ *QueryCurrentPlanRequest) (*QueryCurrentPlanResponse, error) {
	g, err := q.gov(ctx)
	if err != nil {
		return nil, err
	}
	p, err := g.g.UpgradePlan(g.at)
	if err != nil {
		return nil, nativeErr(err)
	}
	if p == nil {
		return &QueryCurrentPlanResponse{}, nil
	}
	plan := planOf(*p)
	return &QueryCurrentPlanResponse{Plan: &plan}, nil
}

// AppliedPlan is the height at which the named plan was applied; 0 when
// it never was, as in the SDK.
func (q *Querier) AppliedPlan(ctx context.Context, r *QueryAppliedPlanRequest) (*QueryAppliedPlanResponse, error) {
	g, err := q.gov(ctx)
	if err != nil {
		return nil, err
	}
	h, err := g.g.AppliedPlan(g.at, r.Name)
	if err != nil {
		return nil, nativeErr(err)
	}
	return &QueryAppliedPlanResponse{Height: int64(h)}, nil
}

// Authority is the account upgrades are decided by: the governance
// contract, which schedules a plan when an upgrade proposal passes.
func (q *Querier) Authority(ctx context.Context, _ *QueryAuthorityRequest) (*QueryAuthorityResponse, error) {
	if _, err := q.gov(ctx); err != nil {
		return nil, err
	}
	return &QueryAuthorityResponse{Address: accAddr(q.b.Authority)}, nil
}

// ModuleVersions lists chaind's modules and their consensus versions, or
// the one named.
func (q *Querier) ModuleVersions(_ context.Context, r *QueryModuleVersionsRequest) (*QueryModuleVersionsResponse, error) {
	if r.ModuleName == "" {
		return &QueryModuleVersionsResponse{ModuleVersions: q.modules}, nil
	}
	for _, m := range q.modules {
		if m.Name == r.ModuleName {
			return &QueryModuleVersionsResponse{ModuleVersions: []ModuleVersion{m}}, nil
		}
	}
	return nil, Errorf(NotFound, "x/upgrade: QueryModuleVersions module %s not found", r.ModuleName)
}

// UpgradedConsensusState is the consensus state an IBC light client of
// this chain upgrades to after a plan applied at last_height. chaind
// serves no IBC, and its upgrade plans carry no upgraded client state
// (Plan.upgraded_client_state stays unset), so none is stored for any
// height: the answer is the SDK's for a height without one, empty.
func (q *Querier) UpgradedConsensusState(_ context.Context, r *QueryUpgradedConsensusStateRequest) (*QueryUpgradedConsensusStateResponse, error) {
	if r.LastHeight < 0 {
		return nil, Errorf(InvalidArgument, "last height must not be negative")
	}
	return &QueryUpgradedConsensusStateResponse{}, nil
}
