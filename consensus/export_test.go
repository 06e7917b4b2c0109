package consensus

// Rule names a safety rule for the tests that switch it off.
type Rule = rule

// The rules, for tests outside this package's own files.
const (
	RuleDedup        = ruleDedup
	RuleMembership   = ruleMembership
	RuleSignature    = ruleSignature
	RuleProposer     = ruleProposer
	RulePersistFirst = rulePersistFirst
	RuleQuorum       = ruleQuorum
	RuleLocking      = ruleLocking
	RulePolka        = rulePolka
	RuleValidRound   = ruleValidRound
)

// SwitchOff turns rules off in cfg. It exists only in test builds.
func SwitchOff(cfg *Config, rules Rule) { cfg.off |= rules }
