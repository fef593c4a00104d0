// Command mockd serves the agent platform mock (CONTRACT section 4).
//
//	mockd [flags]            serve (default scenario on 127.0.0.1:8080)
//	mockd validate FILE...   check scenario files
//	mockd healthcheck        exit 0 when the server at --addr is healthy
//
// Every flag has an environment variable (MOCKD_ADDR, MOCKD_SCENARIO,
// MOCKD_DATA, MOCKD_CLOCK, MOCKD_LOG_FORMAT, MOCKD_LOG_LEVEL).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/scenario"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, os.Getenv, nil))
}

// options are mockd's settings.
type options struct {
	addr      string
	scenarios []string
	data      string
	clock     string
	logFormat string
	logLevel  string
}

// listFlag is a repeatable flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	*l = append(*l, v)
	return nil
}

func parseFlags(name string, args []string, stderr io.Writer, getenv func(string) string) (*options, *flag.FlagSet, error) {
	o := &options{}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	env := func(key, def string) string {
		if v := getenv(key); v != "" {
			return v
		}
		return def
	}
	fs.StringVar(&o.addr, "addr", env("MOCKD_ADDR", "127.0.0.1:8080"), "listen address (env MOCKD_ADDR)")
	var sc listFlag
	fs.Var(&sc, "scenario", "scenario file; repeat to merge several (env MOCKD_SCENARIO, comma-separated)")
	fs.StringVar(&o.data, "data", env("MOCKD_DATA", ""), "data file for persistence; default in memory (env MOCKD_DATA)")
	fs.StringVar(&o.clock, "clock", env("MOCKD_CLOCK", "real"), "clock mode: real or manual (env MOCKD_CLOCK)")
	fs.StringVar(&o.logFormat, "log-format", env("MOCKD_LOG_FORMAT", "text"), "log format: text or json (env MOCKD_LOG_FORMAT)")
	fs.StringVar(&o.logLevel, "log-level", env("MOCKD_LOG_LEVEL", "info"), "log level: debug, info, warn, error (env MOCKD_LOG_LEVEL)")
	if err := fs.Parse(args); err != nil {
		return nil, fs, err
	}
	o.scenarios = sc
	if len(o.scenarios) == 0 && getenv("MOCKD_SCENARIO") != "" {
		for _, s := range strings.Split(getenv("MOCKD_SCENARIO"), ",") {
			if s = strings.TrimSpace(s); s != "" {
				o.scenarios = append(o.scenarios, s)
			}
		}
	}
	return o, fs, nil
}

// run is mockd: it returns the exit code. ready, when not nil, is called
// with the bound address once the server listens (tests start on port 0).
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string, ready func(addr string)) int {
	if len(args) > 0 {
		switch args[0] {
		case "validate":
			return validate(args[1:], stdout, stderr)
		case "healthcheck":
			return healthcheck(args[1:], stderr, getenv)
		}
	}
	o, _, err := parseFlags("mockd", args, stderr, getenv)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	log, err := newLogger(stderr, o.logFormat, o.logLevel)
	if err != nil {
		fmt.Fprintln(stderr, "mockd:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, o, log, stdout, ready); err != nil {
		log.Error("mockd stopped", "err", err)
		return 1
	}
	return 0
}

func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log level %q: want debug, info, warn or error", level)
	}
	hopts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, hopts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, hopts)), nil
	}
	return nil, fmt.Errorf("log format %q: want text or json", format)
}

// serve runs the server until ctx ends, then shuts down gracefully.
func serve(ctx context.Context, o *options, log *slog.Logger, stdout io.Writer, ready func(addr string)) error {
	gin.SetMode(gin.ReleaseMode)
	mode, err := clock.ParseMode(o.clock)
	if err != nil {
		return err
	}
	opts := []mockplatform.Option{mockplatform.WithClock(mode), mockplatform.WithLogger(log)}
	if len(o.scenarios) > 0 {
		sc, err := loadScenarios(o.scenarios)
		if err != nil {
			return err
		}
		opts = append(opts, mockplatform.WithScenario(sc))
	}
	if o.data != "" {
		opts = append(opts, mockplatform.WithDataFile(o.data))
	}
	p, err := mockplatform.New(opts...)
	if err != nil {
		return err
	}
	defer p.Close()

	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	base := "http://" + displayAddr(ln.Addr())
	fmt.Fprintf(stdout, "mockd serving scenario %q (clock %s)\n", p.Scenario().Name, mode)
	fmt.Fprintf(stdout, "  runtime:   %s/runtime/{us-1|uk-1|euw-1}\n", base)
	fmt.Fprintf(stdout, "  builder:   %s/builder/{us|uk|eu}\n", base)
	fmt.Fprintf(stdout, "  messaging: %s/messaging\n", base)
	fmt.Fprintf(stdout, "  control:   %s/_mock\n", base)
	log.Info("listening", "addr", ln.Addr().String())
	if ready != nil {
		ready(ln.Addr().String())
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func loadScenarios(paths []string) (*scenario.Scenario, error) {
	var list []*scenario.Scenario
	var errs []error
	for _, path := range paths {
		sc, err := scenario.Load(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		list = append(list, sc)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(list) == 1 {
		return list[0], nil
	}
	return scenario.Merge(list...)
}

// validate checks scenario files, printing file:line:column: message for
// each problem; it exits non-zero when any file has one.
func validate(files []string, stdout, stderr io.Writer) int {
	if len(files) == 0 {
		fmt.Fprintln(stderr, "usage: mockd validate FILE...")
		return 2
	}
	bad := 0
	for _, f := range files {
		sc, err := scenario.Load(f)
		if err == nil {
			err = mockplatform.ValidateScenario(sc)
		}
		if err != nil {
			bad++
			fmt.Fprintln(stderr, err)
			continue
		}
		fmt.Fprintf(stdout, "%s: ok\n", f)
	}
	if bad > 0 {
		return 1
	}
	return 0
}

// healthcheck asks a running mockd for its health (for the container's
// HEALTHCHECK, which has no shell).
func healthcheck(args []string, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	def := getenv("MOCKD_ADDR")
	if def == "" {
		def = "127.0.0.1:8080"
	}
	addr := fs.String("addr", def, "address of the server (env MOCKD_ADDR)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	host, port, err := net.SplitHostPort(*addr)
	if err != nil {
		fmt.Fprintln(stderr, "healthcheck:", err)
		return 1
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	client := &http.Client{Timeout: 3 * time.Second}
	resp, err := client.Get("http://" + net.JoinHostPort(host, port) + "/_mock/health")
	if err != nil {
		fmt.Fprintln(stderr, "healthcheck:", err)
		return 1
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintln(stderr, "healthcheck: status", resp.StatusCode)
		return 1
	}
	return 0
}

// displayAddr is the address to print: an unspecified host (0.0.0.0, ::)
// becomes localhost, which a user can paste.
func displayAddr(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}
