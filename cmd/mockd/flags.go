package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// options are mockd's settings: flags, each defaulting to an environment
// variable.
type options struct {
	addr              string
	scenarios         listFlag
	data              string
	clock             string
	logFormat         string
	logLevel          string
	allowHosts        listFlag
	controlToken      string
	seed              string
	start             string
	publicURL         string
	maxWorlds         string
	worldIdleTimeout  time.Duration
	webhookAllow      listFlag
	shutdownGrace     time.Duration
	readHeaderTimeout time.Duration
	readTimeout       time.Duration
	writeTimeout      time.Duration
	idleTimeout       time.Duration
	maxHeaderBytes    int

	// coverage's (coverage.go)
	url                string
	format             string
	minOperations      string
	minStatuses        string
	minCodes           string
	minTransitions     string
	minClockEvents     string
	requireTransitions listFlag
}

// listFlag is a repeatable flag; its environment variable is comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// flagSpec describes one flag: its environment variable, its default and
// the options field it sets.
type flagSpec struct {
	name  string
	env   string
	meta  string // the value's placeholder in help
	def   string // the default; "" for none
	usage string
	// secret flags never show their value.
	field func(o *options) any
	// only names the one command that takes the flag ("": serve and those
	// that list it).
	only string
}

// flagSpecs are every flag of every command, in help order.
var flagSpecs = []flagSpec{
	{name: "addr", env: "MOCKD_ADDR", meta: "HOST:PORT", def: "127.0.0.1:8080",
		usage: "listen address (serve); address of the mockd to check (healthcheck)",
		field: func(o *options) any { return &o.addr }},
	{name: "scenario", env: "MOCKD_SCENARIO", meta: "FILE",
		usage: "scenario file; repeat to merge several (env: comma-separated); default: the built-in scenario",
		field: func(o *options) any { return &o.scenarios }},
	{name: "data", env: "MOCKD_DATA", meta: "FILE",
		usage: "data file that keeps the data across restarts; default: in memory",
		field: func(o *options) any { return &o.data }},
	{name: "clock", env: "MOCKD_CLOCK", meta: "real|manual", def: "real",
		usage: "real follows wall time (advancing adds an offset); manual stands still until advanced",
		field: func(o *options) any { return &o.clock }},
	{name: "log-format", env: "MOCKD_LOG_FORMAT", meta: "text|json", def: "text",
		usage: "log format",
		field: func(o *options) any { return &o.logFormat }},
	{name: "log-level", env: "MOCKD_LOG_LEVEL", meta: "LEVEL", def: "info",
		usage: "debug (adds one line per request), info, warn or error",
		field: func(o *options) any { return &o.logLevel }},
	{name: "allow-host", env: "MOCKD_ALLOW_HOST", meta: "HOST",
		usage: "a Host the control plane answers besides loopback ones: a name, .domain (it and its subdomains), an IP, a CIDR, or * (any); repeatable (env: comma-separated)",
		field: func(o *options) any { return &o.allowHosts }},
	{name: "control-token", env: "MOCKD_CONTROL_TOKEN", meta: "TOKEN",
		usage: "require Authorization: Bearer TOKEN on /_mock (except GET /_mock/health); prefer the environment variable, which ps does not show",
		field: func(o *options) any { return &o.controlToken }},
	{name: "seed", env: "MOCKD_SEED", meta: "N",
		usage: "seed of generated ids and data; default: the scenario's",
		field: func(o *options) any { return &o.seed }},
	{name: "start", env: "MOCKD_START", meta: "TIME",
		usage: "clock start, RFC 3339 (2026-01-01T09:00:00Z); default: the scenario's",
		field: func(o *options) any { return &o.start }},
	{name: "public-url", env: "MOCKD_PUBLIC_URL", meta: "URL",
		usage: "the address clients reach mockd at when it differs from --addr (a proxy, a container's published port): printed at start and used in the addresses the worlds' control plane answers with",
		field: func(o *options) any { return &o.publicURL }},
	{name: "max-worlds", env: "MOCKD_MAX_WORLDS", meta: "N", def: "200",
		usage: "most worlds (POST /_mock/worlds, docs/worlds.md) alive at once; 0 turns worlds off",
		field: func(o *options) any { return &o.maxWorlds }},
	{name: "world-idle-timeout", env: "MOCKD_WORLD_IDLE_TIMEOUT", meta: "DURATION", def: "30m",
		usage: "delete a world after this long without a request; 0: never",
		field: func(o *options) any { return &o.worldIdleTimeout }},
	{name: "webhook-allow", env: "MOCKD_WEBHOOK_ALLOW", meta: "HOST",
		usage: "restrict webhook deliveries to this target: a name, .domain (it and its subdomains), an IP or a CIDR; repeatable (env: comma-separated); default: any target but link-local, metadata and control-plane ones",
		field: func(o *options) any { return &o.webhookAllow }},
	{name: "shutdown-grace", env: "MOCKD_SHUTDOWN_GRACE", meta: "DURATION", def: "10s",
		usage: "on SIGTERM or SIGINT, how long requests in flight may take; then mockd abandons them and exits 1",
		field: func(o *options) any { return &o.shutdownGrace }},
	{name: "read-header-timeout", env: "MOCKD_READ_HEADER_TIMEOUT", meta: "DURATION", def: "10s",
		usage: "time a client has to send a request's headers",
		field: func(o *options) any { return &o.readHeaderTimeout }},
	{name: "read-timeout", env: "MOCKD_READ_TIMEOUT", meta: "DURATION", def: "1m",
		usage: "time a client has to send a whole request, body included",
		field: func(o *options) any { return &o.readTimeout }},
	{name: "write-timeout", env: "MOCKD_WRITE_TIMEOUT", meta: "DURATION", def: "5m",
		usage: "time to answer a request, from the end of its headers (a longer fault delay is cut); WebSockets are not bound by it",
		field: func(o *options) any { return &o.writeTimeout }},
	{name: "idle-timeout", env: "MOCKD_IDLE_TIMEOUT", meta: "DURATION", def: "2m",
		usage: "how long an idle keep-alive connection stays open",
		field: func(o *options) any { return &o.idleTimeout }},
	{name: "max-header-bytes", env: "MOCKD_MAX_HEADER_BYTES", meta: "BYTES", def: "65536",
		usage: "largest request line and headers; a larger request gets a JSON 431",
		field: func(o *options) any { return &o.maxHeaderBytes }},
	{name: "url", env: "MOCKD_URL", meta: "URL", only: "coverage",
		usage: "the base address of a running mockd, or of a world (…/w/ID), to read the coverage report of",
		field: func(o *options) any { return &o.url }},
	{name: "format", env: "MOCKD_COVERAGE_FORMAT", meta: "markdown|json|junit", def: "markdown", only: "coverage",
		usage: "how to print the report",
		field: func(o *options) any { return &o.format }},
	{name: "min-operations", env: "MOCKD_MIN_OPERATIONS", meta: "PERCENT", only: "coverage",
		usage: "exit 1 when fewer than PERCENT of the operations were called",
		field: func(o *options) any { return &o.minOperations }},
	{name: "min-statuses", env: "MOCKD_MIN_STATUSES", meta: "PERCENT", only: "coverage",
		usage: "exit 1 when fewer than PERCENT of the operations' statuses were answered",
		field: func(o *options) any { return &o.minStatuses }},
	{name: "min-codes", env: "MOCKD_MIN_CODES", meta: "PERCENT", only: "coverage",
		usage: "exit 1 when fewer than PERCENT of the operations' error codes were answered",
		field: func(o *options) any { return &o.minCodes }},
	{name: "min-transitions", env: "MOCKD_MIN_TRANSITIONS", meta: "PERCENT", only: "coverage",
		usage: "exit 1 when fewer than PERCENT of the state machines' transitions were taken",
		field: func(o *options) any { return &o.minTransitions }},
	{name: "min-clock-events", env: "MOCKD_MIN_CLOCK_EVENTS", meta: "PERCENT", only: "coverage",
		usage: "exit 1 when fewer than PERCENT of the clock-driven event kinds ran",
		field: func(o *options) any { return &o.minClockEvents }},
	{name: "require-transition", env: "MOCKD_REQUIRE_TRANSITION", meta: "MACHINE:FROM->TO", only: "coverage",
		usage: "exit 1 when this transition never happened (outbound_call:calling->busy; new->TO for a creation); repeatable (env: comma-separated)",
		field: func(o *options) any { return &o.requireTransitions }},
}

func specOf(name string) *flagSpec {
	for i := range flagSpecs {
		if flagSpecs[i].name == name {
			return &flagSpecs[i]
		}
	}
	return nil
}

// newFlagSet defines every flag on o, defaulting to its environment
// variable, else its spec's default; the caller prints help and errors.
func newFlagSet(o *options, stderr io.Writer, getenv func(string) string) (*flag.FlagSet, error) {
	fs := flag.NewFlagSet("mockd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	var errs []error
	for _, s := range flagSpecs {
		def := s.def
		if v := getenv(s.env); v != "" {
			def = v
		}
		switch p := s.field(o).(type) {
		case *string:
			fs.StringVar(p, s.name, def, s.usage)
		case *time.Duration:
			d, err := time.ParseDuration(def)
			if err != nil || d < 0 {
				errs = append(errs, fmt.Errorf("%s=%q: want a duration such as 10s or 2m", s.env, def))
			}
			fs.DurationVar(p, s.name, d, s.usage)
		case *int:
			n, err := strconv.Atoi(def)
			if err != nil || n <= 0 {
				errs = append(errs, fmt.Errorf("%s=%q: want a positive number", s.env, def))
			}
			fs.IntVar(p, s.name, n, s.usage)
		case *listFlag:
			fs.Var(p, s.name, s.usage)
		}
	}
	return fs, errors.Join(errs...)
}

// parseArgs parses flags and positional arguments in any order; "--" ends
// the flags.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// applyListEnv fills repeatable flags not given from their environment.
func applyListEnv(fs *flag.FlagSet, o *options, getenv func(string) string) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, s := range flagSpecs {
		p, ok := s.field(o).(*listFlag)
		if !ok || set[s.name] {
			continue
		}
		for _, v := range strings.Split(getenv(s.env), ",") {
			if v = strings.TrimSpace(v); v != "" {
				*p = append(*p, v)
			}
		}
	}
}

func printFlags(w io.Writer, names []string) {
	for _, n := range names {
		s := specOf(n)
		fmt.Fprintf(w, "  --%s %s\n", s.name, s.meta)
		note := "env " + s.env
		if s.def != "" {
			note += "; default " + s.def
		}
		fmt.Fprint(w, wrap(s.usage+" ("+note+")", "        ", 80))
	}
}

// wrap breaks text into indented lines of at most width columns.
func wrap(text, indent string, width int) string {
	var b strings.Builder
	line := indent
	for _, word := range strings.Fields(text) {
		if line != indent && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
	return b.String()
}
