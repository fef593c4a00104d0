package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// cmdServe serves the mock until a signal or the invocation's context
// stops it. It listens before the world loads (boot.go).
func cmdServe(inv *invocation, o *options, _ []string) int {
	log, err := newLogger(inv.stderr, o.logFormat, o.logLevel)
	if err != nil {
		fmt.Fprintln(inv.stderr, "mockd:", err)
		return 2
	}
	mode, err := clock.ParseMode(o.clock)
	if err != nil {
		fmt.Fprintln(inv.stderr, "mockd:", err)
		return 2
	}
	opts, err := startOptions(o, mode, log)
	var ln net.Listener
	if err == nil {
		ln, err = net.Listen("tcp", o.addr)
	}
	if err != nil {
		notStarted(inv, err)
		return 1
	}
	// Requests' contexts end when shutdown begins, so a fault delay or a
	// long advance does not hold it up.
	requests, cancelRequests := context.WithCancel(context.Background())
	defer cancelRequests()
	b := &boot{}
	var inflight atomic.Int64
	srv := newHTTPServer(o, countRequests(b, &inflight), requests, log)
	srv.RegisterOnShutdown(cancelRequests)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(jsonErrorListener{Listener: ln, maxHeaderBytes: o.maxHeaderBytes}) }()
	log.Debug("starting", "addr", ln.Addr().String())
	if inv.starting != nil {
		inv.starting(ln.Addr().String())
	}
	p, err := mockplatform.New(append(opts, mockplatform.WithProgress(b.report))...)
	if err != nil {
		_ = srv.Close()
		notStarted(inv, err)
		return 1
	}
	b.ready(p)
	return serve(inv, o, log, mode, p, ln, srv, errc, &inflight)
}

// notStarted prints why mockd did not start, as lines (a scenario's
// problems as validate prints them), not a log record.
func notStarted(inv *invocation, err error) {
	for _, line := range problemLines(err) {
		fmt.Fprintln(inv.stderr, line)
	}
	var de *store.DamageError
	if errors.As(err, &de) {
		fmt.Fprintf(inv.stderr, "mockd: run 'mockd repair --data %s' to move the damaged records aside (into %s.damaged) and keep the rest\n",
			de.File, de.File)
	}
	fmt.Fprintln(inv.stderr, "mockd: not started")
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

// startOptions are the platform's options from the flags.
func startOptions(o *options, mode clock.Mode, log *slog.Logger) ([]mockplatform.Option, error) {
	gin.SetMode(gin.ReleaseMode)
	opts, err := o.platformOptions()
	if err != nil {
		return nil, err
	}
	opts = append(opts, mockplatform.WithClock(mode), mockplatform.WithLogger(log))
	if len(o.scenarios) > 0 {
		sc, err := loadScenarios(o.scenarios)
		if err != nil {
			return nil, err
		}
		opts = append(opts, mockplatform.WithScenario(sc))
	}
	if o.data != "" {
		opts = append(opts, mockplatform.WithDataFile(o.data))
	}
	if len(o.allowHosts) > 0 {
		opts = append(opts, mockplatform.WithAllowedHosts(o.allowHosts...))
	}
	if o.controlToken != "" {
		opts = append(opts, mockplatform.WithControlToken(o.controlToken))
	}
	if len(o.webhookAllow) > 0 {
		opts = append(opts, mockplatform.WithWebhookTargets(o.webhookAllow...))
	}
	return opts, nil
}

// serve runs the server until the context ends or a signal comes.
func serve(inv *invocation, o *options, log *slog.Logger, mode clock.Mode, p *mockplatform.Platform, ln net.Listener,
	srv *http.Server, errc <-chan error, inflight *atomic.Int64) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	printBanner(inv.stdout, p, o, mode, ln.Addr())
	log.Info("listening", "addr", ln.Addr().String())
	if msg := exposure(ln.Addr(), o); msg != "" {
		log.Warn(msg, "addr", ln.Addr().String())
	}
	if inv.ready != nil {
		inv.ready(ln.Addr().String())
	}

	var cause any = "stopped"
	select {
	case err := <-errc:
		log.Error("serve", "err", err)
		p.Close()
		return 1
	case <-inv.ctx.Done():
	case sig := <-sigs:
		cause = sig
	}
	return shutdown(o, log, srv, p, sigs, inflight, cause)
}

// shutdown stops accepting, cancels the requests in flight and waits, up
// to the grace, for them and the platform. After the grace, or a second
// signal, it abandons what is left and returns 1.
func shutdown(o *options, log *slog.Logger, srv *http.Server, p *mockplatform.Platform, sigs <-chan os.Signal, inflight *atomic.Int64, cause any) int {
	log.Info("shutting down", "cause", fmt.Sprint(cause), "grace", o.shutdownGrace, "requests", inflight.Load())
	grace, cancel := context.WithTimeout(context.Background(), o.shutdownGrace)
	defer cancel()
	hurry := make(chan os.Signal, 1)
	go func() {
		select {
		case sig := <-sigs:
			hurry <- sig
			cancel()
		case <-grace.Done():
		}
	}()
	closed := make(chan struct{})
	closePlatform := func() {
		p.Close()
		close(closed)
	}
	err := srv.Shutdown(grace)
	if err == nil {
		go closePlatform()
		select {
		case <-closed:
			log.Info("stopped")
			return 0
		case <-grace.Done():
		}
		select {
		case <-closed:
			log.Info("stopped")
			return 0
		default:
		}
	}
	n := inflight.Load()
	select {
	case sig := <-hurry:
		log.Error("second signal: exiting now, abandoning the requests in flight", "signal", sig.String(), "requests", n)
	default:
		log.Error("shutdown grace exceeded: abandoning the requests in flight", "grace", o.shutdownGrace, "requests", n)
	}
	_ = srv.Close() // closes every connection but hijacked ones
	if err != nil {
		go closePlatform()
	}
	// A request that ignores its context must not keep mockd alive.
	t := time.NewTimer(500 * time.Millisecond)
	defer t.Stop()
	select {
	case <-closed:
	case <-t.C:
		log.Warn("exiting before the platform closed")
	}
	return 1
}

// platformOptions are the platform options of the flags.
func (o *options) platformOptions() ([]mockplatform.Option, error) {
	var opts []mockplatform.Option
	if o.seed != "" {
		seed, err := strconv.ParseInt(o.seed, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("seed %q: want an integer", o.seed)
		}
		opts = append(opts, mockplatform.WithSeed(seed))
	}
	if o.start != "" {
		t, err := time.Parse(time.RFC3339Nano, o.start)
		if err != nil {
			return nil, fmt.Errorf("start %q: want an RFC 3339 time such as 2026-01-01T09:00:00Z", o.start)
		}
		opts = append(opts, mockplatform.WithStartTime(t))
	}
	if o.publicURL != "" {
		opts = append(opts, mockplatform.WithPublicURL(o.publicURL))
	}
	n, err := strconv.Atoi(o.maxWorlds)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("max-worlds %q: want a number, 0 or more", o.maxWorlds)
	}
	return append(opts, mockplatform.WithMaxWorlds(n), mockplatform.WithWorldIdleTimeout(o.worldIdleTimeout)), nil
}

// printBanner prints the addresses clients use: --public-url's, else the
// listen address (localhost for every interface, with a note that a
// published port may differ).
func printBanner(w io.Writer, p *mockplatform.Platform, o *options, mode clock.Mode, addr net.Addr) {
	base := strings.TrimRight(o.publicURL, "/")
	if base == "" {
		base = "http://" + displayAddr(addr)
	}
	fmt.Fprintf(w, "mockd serving scenario %q (clock %s)\n", p.Scenario().Name, mode)
	fmt.Fprintf(w, "  runtime:   %s/runtime/{us-1|uk-1|euw-1}\n", base)
	fmt.Fprintf(w, "  builder:   %s/builder/{us|uk|eu}\n", base)
	fmt.Fprintf(w, "  messaging: %s/messaging\n", base)
	fmt.Fprintf(w, "  control:   %s/_mock\n", base)
	fmt.Fprintf(w, "  console:   %s/_mock/ui\n", base)
	fmt.Fprintf(w, "  worlds:    %s/_mock/worlds (isolated copies, each under %s/w/{id}/; up to %s)\n", base, base, o.maxWorlds)
	if host, port, err := net.SplitHostPort(addr.String()); o.publicURL == "" && err == nil {
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			fmt.Fprintf(w, "  listening on every interface, port %s: from elsewhere (another host, or a container's published port) use that address instead; --public-url (MOCKD_PUBLIC_URL) prints it here\n", port)
		}
	}
}

// exposure warns of a control plane the network can reach without a token.
func exposure(addr net.Addr, o *options) string {
	if o.controlToken != "" {
		return ""
	}
	if a, ok := addr.(*net.TCPAddr); ok && !a.IP.IsLoopback() {
		return "the control plane is open to the network without a token: anyone who reaches this address can reset, " +
			"replace or sabotage the mock; set a token with --control-token or MOCKD_CONTROL_TOKEN (docs/security.md)"
	}
	if slices.Contains(o.allowHosts, "*") {
		return "--allow-host * without a control token: any web page can reach the control plane through DNS rebinding; " +
			"set a token with --control-token or MOCKD_CONTROL_TOKEN (docs/security.md)"
	}
	return ""
}

func countRequests(h http.Handler, n *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		defer n.Add(-1)
		h.ServeHTTP(w, r)
	})
}

// loadScenarios loads and merges the --scenario files (scenario.Compose).
func loadScenarios(paths []string) (*scenario.Scenario, error) {
	var list []*scenario.Scenario
	var errs []error
	for _, path := range paths {
		sc, err := loadScenario(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		list = append(list, sc)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return mockplatform.Vocabulary().Compose(nil, list...)
}

// loadScenario loads a scenario file, or the built-in one by its alias.
func loadScenario(path string) (*scenario.Scenario, error) {
	if path == scenario.DefaultAlias {
		return mockplatform.Vocabulary().Default(), nil
	}
	return mockplatform.Vocabulary().Load(path)
}

// displayAddr is the address to print: an unspecified host is localhost.
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
