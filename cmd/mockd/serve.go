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
	"syscall"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/scenario"
)

// cmdServe serves the mock until a signal (or the invocation's context)
// stops it.
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
	p, ln, err := start(o, mode, log)
	if err != nil {
		// Printed as lines, not a log record: a scenario's problems are
		// one per line, file:line:column: message, as validate prints them.
		for _, line := range problemLines(err) {
			fmt.Fprintln(inv.stderr, line)
		}
		fmt.Fprintln(inv.stderr, "mockd: not started")
		return 1
	}
	return serve(inv, o, log, mode, p, ln)
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

// start builds the platform and binds the listener.
func start(o *options, mode clock.Mode, log *slog.Logger) (*mockplatform.Platform, net.Listener, error) {
	gin.SetMode(gin.ReleaseMode)
	opts := []mockplatform.Option{mockplatform.WithClock(mode), mockplatform.WithLogger(log)}
	if len(o.scenarios) > 0 {
		sc, err := loadScenarios(o.scenarios)
		if err != nil {
			return nil, nil, err
		}
		opts = append(opts, mockplatform.WithScenario(sc))
	}
	if o.data != "" {
		opts = append(opts, mockplatform.WithDataFile(o.data))
	}
	p, err := mockplatform.New(opts...)
	if err != nil {
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		p.Close()
		return nil, nil, err
	}
	return p, ln, nil
}

// serve runs the server until the invocation's context ends or a signal
// comes, then shuts down.
func serve(inv *invocation, o *options, log *slog.Logger, mode clock.Mode, p *mockplatform.Platform, ln net.Listener) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	requests, cancelRequests := context.WithCancel(context.Background())
	defer cancelRequests()
	srv := newHTTPServer(o, p, requests, log)
	base := "http://" + displayAddr(ln.Addr())
	fmt.Fprintf(inv.stdout, "mockd serving scenario %q (clock %s)\n", p.Scenario().Name, mode)
	fmt.Fprintf(inv.stdout, "  runtime:   %s/runtime/{us-1|uk-1|euw-1}\n", base)
	fmt.Fprintf(inv.stdout, "  builder:   %s/builder/{us|uk|eu}\n", base)
	fmt.Fprintf(inv.stdout, "  messaging: %s/messaging\n", base)
	fmt.Fprintf(inv.stdout, "  control:   %s/_mock\n", base)
	log.Info("listening", "addr", ln.Addr().String())
	if inv.ready != nil {
		inv.ready(ln.Addr().String())
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(jsonErrorListener{Listener: ln, maxHeaderBytes: o.maxHeaderBytes}) }()
	select {
	case err := <-errc:
		log.Error("serve", "err", err)
		p.Close()
		return 1
	case <-inv.ctx.Done():
	case <-sigs:
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), o.shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Error("shutdown", "err", err)
		return 1
	}
	p.Close()
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		log.Error("serve", "err", err)
		return 1
	}
	return 0
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
