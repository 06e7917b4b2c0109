package opslog

import (
	"cmp"
	"net/http"
	"slices"
)

// isSubmit reports whether a JSON-RPC method submits a transaction.
func isSubmit(method string) bool {
	return method == "eth_sendRawTransaction" || method == "eth_sendTransaction"
}

// MethodStats are the captured calls of one method.
type MethodStats struct {
	APIName string  `json:"api_name"`
	Calls   int     `json:"calls"`
	Failed  int     `json:"failed"`
	AvgMs   float64 `json:"avgMs"` // mean time a call took
	MaxMs   float64 `json:"maxMs"`
}

// Summary is what /log/api-stats answers: call counts per method and the
// rate of transactions submitted, over the calls captured in a window.
type Summary struct {
	Success bool `json:"success"`
	// From and To (ms since the epoch) are the window the rates are over:
	// the part of the asked start..end during which calls were captured
	// (since capture started or the table was last cleaned, until capture
	// stopped or now).
	From    int64   `json:"from"`
	To      int64   `json:"to"`
	Seconds float64 `json:"seconds"`
	Calls   int     `json:"calls"`
	Failed  int     `json:"failed"`
	// Transactions counts the successful submissions
	// (eth_sendRawTransaction, eth_sendTransaction) among the calls kept.
	Transactions   int           `json:"transactions"`
	TxPerSecond    float64       `json:"txPerSecond"`
	CallsPerSecond float64       `json:"callsPerSecond"`
	Methods        []MethodStats `json:"methods"` // most called first
}

// serveSummary answers /log/api-stats; the calls themselves are on
// /log/api-calls.
func (l *Log) serveSummary(w http.ResponseWriter, r *http.Request) {
	keep, start, end, err := callFilter(r)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, message{err.Error()})
		return
	}
	sum := Summary{Success: true, Methods: []MethodStats{}}
	byName := map[string]*MethodStats{}
	var first, last int64
	l.stats.each(keep, func(s *StatRow) {
		m := byName[s.APIName]
		if m == nil {
			m = &MethodStats{APIName: s.APIName}
			byName[s.APIName] = m
		}
		m.Calls++
		m.AvgMs += s.TFinal // a sum until the end
		m.MaxMs = max(m.MaxMs, s.TFinal)
		sum.Calls++
		if s.Success != 1 {
			m.Failed++
			sum.Failed++
		} else if isSubmit(s.APIName) {
			sum.Transactions++
		}
		if first == 0 {
			first = s.Timestamp
		}
		last = s.Timestamp
	})
	for _, m := range byName {
		m.AvgMs /= float64(m.Calls)
		sum.Methods = append(sum.Methods, *m)
	}
	slices.SortFunc(sum.Methods, func(a, b MethodStats) int {
		return cmp.Or(cmp.Compare(b.Calls, a.Calls), cmp.Compare(a.APIName, b.APIName))
	})
	sum.From, sum.To = l.window(start, end, first, last)
	if sum.To > sum.From {
		sum.Seconds = float64(sum.To-sum.From) / 1000
		sum.TxPerSecond = float64(sum.Transactions) / sum.Seconds
		sum.CallsPerSecond = float64(sum.Calls) / sum.Seconds
	}
	writeJSON(w, http.StatusOK, sum)
}

// window is the part of start..end (ms) during which calls were being
// captured into the table as it is now. Without a recorded capture start
// (a table from before the status was kept) the first and last rows kept
// bound it.
func (l *Log) window(start, end, first, last int64) (from, to int64) {
	st := l.Status()
	from = max(start, st.InterfaceRecordingStartTime, st.InterfaceDBCleanTime)
	if st.InterfaceRecordingStartTime == 0 {
		from = max(start, first)
	}
	to = st.InterfaceRecordingEndTime
	switch {
	case st.IsRecordingInterface:
		to = l.nowMs()
	case to == 0:
		to = last
	}
	return from, min(end, to)
}
