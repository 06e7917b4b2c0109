package conformance

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
)

// Kind is how a case ended.
type Kind int

// The kinds of outcome. The zero value is not a pass, so an Outcome whose
// kind was never set is recorded as a failure.
const (
	Fail Kind = iota
	Pass
	Skip
)

// Outcome is one case's result as a runner's worker produces it; Why says
// why it failed or was skipped.
type Outcome struct {
	Name string
	Kind Kind
	Why  string
}

// Passed, Failed and Skipped make Outcomes.
func Passed(name string) Outcome { return Outcome{Name: name, Kind: Pass} }
func Failed(name, format string, a ...any) Outcome {
	return Outcome{Name: name, Kind: Fail, Why: fmt.Sprintf(format, a...)}
}
func Skipped(name, reason string) Outcome { return Outcome{Name: name, Kind: Skip, Why: reason} }

func (r *Report) record(o Outcome) {
	switch o.Kind {
	case Pass:
		r.Pass(o.Name)
	case Skip:
		r.Skip(o.Name, o.Why)
	default:
		r.Fail(o.Name, "%s", o.Why)
	}
}

// RunFiles runs each file on workers goroutines (0: one per CPU), handing
// them out in the order given (nil: file order; long files first lets them
// overlap the rest), and records the outcomes in file order, so a run's
// output is the same whatever the scheduling.
func RunFiles(files []string, workers int, order []int, run func(path string) []Outcome, r *Report) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if order == nil {
		order = make([]int, len(files))
		for i := range order {
			order[i] = i
		}
	}
	results := make([]chan []Outcome, len(files))
	for i := range results {
		results[i] = make(chan []Outcome, 1)
	}
	next := make(chan int)
	for w := 0; w < workers; w++ {
		go func() {
			for i := range next {
				results[i] <- run(files[i])
			}
		}()
	}
	go func() {
		for _, i := range order {
			next <- i
		}
		close(next)
	}()
	for i := range files {
		for _, o := range <-results[i] {
			r.record(o)
		}
	}
}

// EachCase calls fn for every case of every .json file below dir (or dir
// itself if it is a file): the format of the ethereum/tests folders, one
// object of named cases per file. Files come in lexical order and the
// cases of a file in name order, so a run's output is reproducible. A
// folder without such files is an error, not an empty pass.
func EachCase[T any](dir string, fn func(path, name string, tc T) error) error {
	files, err := JSONFiles(dir)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no .json files in %s", dir)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var cases map[string]T
		if err := json.Unmarshal(raw, &cases); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		for _, name := range slices.Sorted(maps.Keys(cases)) {
			if err := fn(f, name, cases[name]); err != nil {
				return err
			}
		}
	}
	return nil
}
