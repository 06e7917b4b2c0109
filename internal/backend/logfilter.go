package backend

import "github.com/chaind/chaind/internal/types"

// LogFilter selects logs by the account that emitted them and by their
// topics. Topics holds one set per position; an empty set accepts any
// topic there, and a log with fewer topics than positions is refused.
type LogFilter struct {
	Addresses []types.Address
	Topics    [][]types.Hash
}

// Match reports whether a log passes the filter.
func (f *LogFilter) Match(l *types.Log) bool {
	if len(f.Addresses) > 0 && !contains(f.Addresses, l.Address) {
		return false
	}
	if len(f.Topics) > len(l.Topics) {
		return false
	}
	for i, set := range f.Topics {
		if len(set) > 0 && !contains(set, l.Topics[i]) {
			return false
		}
	}
	return true
}

func contains[T comparable](list []T, x T) bool {
	for _, y := range list {
		if x == y {
			return true
		}
	}
	return false
}

// LogMatcher is a filter with its bloom bit positions computed once, for
// scanning many blocks.
type LogMatcher struct {
	LogFilter
	addrs  []types.BloomKey
	topics [][]types.BloomKey
}

// NewLogMatcher prepares f for scanning.
func NewLogMatcher(f LogFilter) *LogMatcher {
	m := &LogMatcher{LogFilter: f}
	for _, a := range f.Addresses {
		m.addrs = append(m.addrs, types.NewBloomKey(a[:]))
	}
	for _, set := range f.Topics {
		var ks []types.BloomKey
		for _, t := range set {
			ks = append(ks, types.NewBloomKey(t[:]))
		}
		m.topics = append(m.topics, ks)
	}
	return m
}

// MayMatch is the bloom pre-check: false means the block surely holds no
// matching log.
func (m *LogMatcher) MayMatch(bloom *types.Bloom) bool {
	if !anyKey(bloom, m.addrs) {
		return false
	}
	for _, set := range m.topics {
		if !anyKey(bloom, set) {
			return false
		}
	}
	return true
}

func anyKey(bloom *types.Bloom, keys []types.BloomKey) bool {
	if len(keys) == 0 {
		return true
	}
	for i := range keys {
		if bloom.TestKey(&keys[i]) {
			return true
		}
	}
	return false
}

// BlockLogs appends the logs of blk that m matches to out, reading the
// receipts only when the block's bloom says they may hold one.
func BlockLogs(r Receipts, blk *types.Block, m *LogMatcher, out []*types.Log) ([]*types.Log, error) {
	if len(blk.Transactions()) == 0 || !m.MayMatch(&blk.HeaderRef().Bloom) {
		return out, nil
	}
	rs, err := r.Receipts(blk)
	if err != nil {
		return nil, err
	}
	for _, rc := range rs {
		for _, l := range rc.Logs {
			if m.Match(l) {
				out = append(out, l)
			}
		}
	}
	return out, nil
}
