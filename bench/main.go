// Command bench is mockplatform's load benchmark. It builds and starts
// mockd with a generated world, and next to it a bare net/http server that
// answers each request with exactly the bytes mockd answered for it. It
// loads the two alternately with wrk, in short paired slices, on the same
// CPU (the generator on another one), and prints for each load the ratio
// of their throughputs, the p50 and p99 latencies of wrk's histogram (and,
// for the loads the targets name, both servers' latencies at one fixed
// rate: paced.go), and mockd's resident memory. docs/performance.md
// explains how to read it.
//
//	cd bench && go run .                 quick run (about two minutes)
//	cd bench && go run . -mode full      1k, 100k and 1M records (minutes, several GB)
//	cd bench && go run . -mode smoke     a few seconds: keeps the benchmark working
//
// Every request goes to 127.0.0.1. The benchmark lives in its own module so
// that users of mockplatform never see it; it needs wrk and taskset on PATH.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// bareEnv, when set in the environment, makes the binary the bare server
// (bare.go) instead of the benchmark: the benchmark starts itself again
// with it, so the bare server is one process that can be pinned.
const bareEnv = "MOCKBENCH_BARE"

func main() {
	if os.Getenv(bareEnv) != "" {
		os.Exit(bareMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// config is one run's settings.
type config struct {
	mode         string
	repo         string        // the mockplatform checkout mockd is built from
	mockd        string        // a mockd binary to use instead of building one
	wrk          string        // the wrk binary
	records      []int         // generated records, one mockd per count
	loads        []string      // names of the loads to run; empty: all
	pairs        int           // measured slice pairs per load
	slice        time.Duration // length of one slice (whole seconds: wrk's unit)
	warmup       time.Duration // one unmeasured slice per server before the pairs; 0: none
	conns        int           // wrk connections
	convs        int           // conversations the chat respond load spreads over
	serverCPUs   string        // taskset list for mockd and the bare server
	loadCPUs     string        // taskset list for wrk
	pin          bool          // pin with taskset
	format       string        // text or markdown
	readyTimeout time.Duration // how long mockd may take to load its records
}

// presets are the modes' defaults; flags given on the command line win.
var presets = map[string]config{
	"smoke": {records: []int{200}, pairs: 1, slice: time.Second, conns: 8, convs: 20},
	"quick": {records: []int{10_000}, pairs: 3, slice: time.Second, conns: 50, convs: 2_000},
	"full": {records: []int{1_000, 100_000, 1_000_000}, pairs: 5, slice: 3 * time.Second, warmup: time.Second,
		conns: 50, convs: 10_000},
}

func parseConfig(args []string, stderr io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: go run . [flags]   (in bench/ of a mockplatform checkout)\n\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&c.mode, "mode", "quick", "preset: smoke, quick or full (the flags below override it)")
	fs.StringVar(&c.repo, "repo", "", "mockplatform checkout to build mockd from (default: the one around the working directory)")
	fs.StringVar(&c.mockd, "mockd", "", "use this mockd binary instead of building one")
	fs.StringVar(&c.wrk, "wrk", "wrk", "wrk binary")
	records := fs.String("records", "", "generated records, comma-separated; one mockd per count (smoke 200, quick 10000, full 1000,100000,1000000)")
	loads := fs.String("loads", "", "loads to run, comma-separated (default all): "+strings.Join(loadNames(), ", "))
	fs.IntVar(&c.pairs, "pairs", 0, "measured slice pairs per load (smoke 1, quick 3, full 5)")
	fs.DurationVar(&c.slice, "slice", 0, "length of one slice, whole seconds (smoke and quick 1s, full 3s)")
	fs.DurationVar(&c.warmup, "warmup", 0, "one unmeasured slice per server before the pairs (full 1s)")
	fs.IntVar(&c.conns, "conns", 0, "wrk connections (smoke 8, otherwise 50)")
	fs.IntVar(&c.convs, "convs", 0, "conversations the chat respond load spreads over (smoke 20, quick 2000, full 10000)")
	fs.StringVar(&c.serverCPUs, "server-cpus", "0", "CPUs (taskset list) for mockd and the bare server")
	fs.StringVar(&c.loadCPUs, "load-cpus", "1", "CPUs (taskset list) for wrk; one wrk thread per CPU")
	fs.BoolVar(&c.pin, "pin", true, "pin the servers and wrk with taskset")
	fs.StringVar(&c.format, "format", "text", "report format: text or markdown")
	fs.DurationVar(&c.readyTimeout, "ready-timeout", 15*time.Minute, "how long mockd may take to load its records")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	p, ok := presets[c.mode]
	if !ok {
		return nil, fmt.Errorf("-mode %q: want smoke, quick or full", c.mode)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["pairs"] {
		c.pairs = p.pairs
	}
	if !set["slice"] {
		c.slice = p.slice
	}
	if !set["warmup"] {
		c.warmup = p.warmup
	}
	if !set["conns"] {
		c.conns = p.conns
	}
	if !set["convs"] {
		c.convs = p.convs
	}
	c.records = p.records
	if set["records"] {
		var err error
		if c.records, err = parseInts(*records); err != nil {
			return nil, fmt.Errorf("-records: %w", err)
		}
	}
	if *loads != "" {
		for _, name := range strings.Split(*loads, ",") {
			name = strings.TrimSpace(name)
			if findLoad(name) == nil {
				return nil, fmt.Errorf("-loads: unknown load %q (known: %s)", name, strings.Join(loadNames(), ", "))
			}
			c.loads = append(c.loads, name)
		}
	}
	return c, c.check()
}

func (c *config) check() error {
	switch {
	case c.pairs < 1:
		return errors.New("-pairs must be at least 1")
	case c.slice < time.Second || c.slice%time.Second != 0:
		return errors.New("-slice must be a whole number of seconds (wrk's unit)")
	case c.warmup < 0 || c.warmup%time.Second != 0:
		return errors.New("-warmup must be 0 or a whole number of seconds")
	case c.conns < c.loadThreads():
		return fmt.Errorf("-conns must be at least the number of load CPUs (%d)", c.loadThreads())
	case c.convs < 1:
		return errors.New("-convs must be at least 1")
	case c.format != "text" && c.format != "markdown":
		return errors.New("-format must be text or markdown")
	}
	for _, n := range c.records {
		if n < 0 || n > 2_000_000 {
			return fmt.Errorf("-records: %d is not in 0 to 2,000,000 (the generate block's bound)", n)
		}
	}
	return nil
}

// loadThreads is wrk's thread count: one per load CPU.
func (c *config) loadThreads() int {
	if !c.pin {
		return 1
	}
	n, err := countCPUs(c.loadCPUs)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.ReplaceAll(strings.TrimSpace(f), "_", "")
		mult := 1
		switch {
		case strings.HasSuffix(f, "k"):
			f, mult = strings.TrimSuffix(f, "k"), 1_000
		case strings.HasSuffix(f, "M"):
			f, mult = strings.TrimSuffix(f, "M"), 1_000_000
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not a count", f)
		}
		out = append(out, n*mult)
	}
	return out, nil
}

// run is the benchmark; it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseConfig(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "bench:", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	rep, err := benchmark(ctx, cfg, log)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	if err := rep.write(stdout, cfg.format); err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	return 0
}
