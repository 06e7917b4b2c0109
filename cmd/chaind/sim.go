package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chaind/chaind/consensus/sim"
)

func init() {
	register(command{"sim", "run the deterministic consensus simulator", runSim})
}

func runSim(args []string) int {
	fs := flag.NewFlagSet("chaind sim", flag.ContinueOnError)
	validators := fs.Int("validators", 7, "number of validators")
	byzantine := fs.Int("byzantine", 0, "number of Byzantine validators (the last ones)")
	behaviour := fs.String("behaviour", "mixed", "Byzantine behaviour: "+behaviourList)
	equivocate := fs.Bool("equivocate", false, "shorthand for --behaviour equivocate")
	drop := fs.Float64("drop", 0, "message drop probability before GST")
	dup := fs.Float64("dup", 0, "message duplication probability")
	seed := fs.Uint64("seed", 1, "scheduler seed (same seed, same run)")
	seeds := fs.Int("seeds", 1, "run this many consecutive seeds starting at --seed")
	heights := fs.Uint64("heights", 100, "heights every honest validator must decide")
	stakes := fs.String("stakes", "", "comma-separated stakes, one per validator (default all 1)")
	gst := fs.Duration("gst", 10*time.Second, "virtual global stabilisation time: no drops or partitions after it")
	partitions := fs.Bool("partitions", false, "random network partitions before GST")
	crashes := fs.Int("crashes", 0, "crash/restart episodes of honest validators before GST")
	torn := fs.Int("torn-crashes", 0, "crashes of honest validators part way through a step (after its first signed message), before GST")
	maxDelay := fs.Duration("max-delay", 50*time.Millisecond, "largest message delay")
	trace := fs.Bool("trace", false, "print every event (single seed only)")
	if code, ok := parseFlags(fs, fs.Name()+" [flags]", args); !ok {
		return code
	}
	for _, c := range []struct {
		bad bool
		msg string
	}{
		{*validators < 1 || *validators > 1000, "--validators must be 1..1000"},
		{*byzantine < 0 || *byzantine >= *validators, "--byzantine must be 0..validators-1"},
		{*drop < 0 || *drop >= 1, "--drop must be in [0, 1)"},
		{*dup < 0 || *dup >= 1, "--dup must be in [0, 1)"},
		{*seeds < 1, "--seeds must be at least 1"},
		{*heights < 1, "--heights must be at least 1"},
		{*crashes < 0, "--crashes must not be negative"},
		{*torn < 0, "--torn-crashes must not be negative"},
		{*gst < 0, "--gst must not be negative"},
		{*maxDelay < time.Millisecond, "--max-delay must be at least 1ms"},
		{fs.NArg() > 0, fmt.Sprintf("unexpected argument %q", fs.Arg(0))},
	} {
		if c.bad {
			return usageError(fs.Name(), c.msg)
		}
	}
	cfg := sim.Config{Byzantine: *byzantine, Heights: *heights, Drop: *drop, Dup: *dup, GST: *gst,
		Partitions: *partitions, Crashes: *crashes, TornCrashes: *torn, MinDelay: time.Millisecond, MaxDelay: *maxDelay}
	if *stakes != "" {
		for _, s := range strings.Split(*stakes, ",") {
			v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			if err != nil || v <= 0 {
				return usageError(fs.Name(), fmt.Sprintf("bad stake %q: want a positive whole number", s))
			}
			cfg.Stakes = append(cfg.Stakes, v)
		}
		if len(cfg.Stakes) != *validators && isFlagSet(fs, "validators") {
			return usageError(fs.Name(), fmt.Sprintf("%d stakes for %d validators", len(cfg.Stakes), *validators))
		}
	} else {
		for range *validators {
			cfg.Stakes = append(cfg.Stakes, 1)
		}
	}
	if cfg.Byzantine >= len(cfg.Stakes) {
		return usageError(fs.Name(), "--byzantine must be below the number of validators")
	}
	if *equivocate {
		*behaviour = "equivocate"
	}
	b, ok := sim.ParseBehaviour(*behaviour)
	if !ok {
		return usageError(fs.Name(), fmt.Sprintf("unknown behaviour %q (%s)", *behaviour, behaviourList))
	}
	cfg.Behaviour = b
	var total, byz int64
	for i, s := range cfg.Stakes {
		total += s
		if i >= len(cfg.Stakes)-cfg.Byzantine {
			byz += s
		}
	}
	fmt.Printf("validators %d, stakes %v, Byzantine %d (%s, %.1f%% of power), drop %.2f, dup %.2f, GST %v, heights %d\n",
		len(cfg.Stakes), cfg.Stakes, cfg.Byzantine, b, 100*float64(byz)/float64(total), *drop, *dup, *gst, *heights)
	failed := 0
	for i := range *seeds {
		cfg.Seed = *seed + uint64(i)
		if *trace && *seeds == 1 {
			cfg.Trace = func(line string) { fmt.Println(line) }
		}
		r := sim.Run(cfg)
		minDecided := r.Decided[0]
		for j, d := range r.Decided {
			if j < len(r.Decided)-cfg.Byzantine {
				minDecided = min(minDecided, d)
			}
		}
		fmt.Printf("seed %d: decided ≥ %d heights by every honest validator in %v virtual; rounds per height mean %.3f max %d; "+
			"messages sent %d delivered %d dropped %d duplicated %d rejected %d; evidence %d; events %d; trace %x\n",
			cfg.Seed, minDecided, r.EndTime.Round(time.Millisecond), r.RoundsMean, r.RoundsMax,
			r.Sent, r.Delivered, r.Dropped, r.Duplicated, r.Rejected, r.Evidence, r.Events, r.TraceHash[:8])
		for _, v := range r.Violations {
			fmt.Printf("  VIOLATION %s\n", v)
		}
		if !r.OK() {
			failed++
		}
	}
	fmt.Printf("%d runs, %d with violations\n", *seeds, failed)
	if failed > 0 {
		return 1
	}
	return 0
}

// behaviourList names the simulator's Byzantine behaviours for help and errors.
var behaviourList = func() string {
	var names []string
	for b := sim.Silent; b <= sim.Mixed; b++ {
		names = append(names, b.String())
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}()

func isFlagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
