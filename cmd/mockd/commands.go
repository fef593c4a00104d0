package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// cmdValidate checks scenario files, printing each problem; it exits 1
// when any file has one.
func cmdValidate(inv *invocation, o *options, files []string) int {
	if len(files) == 0 {
		files = o.scenarios
	}
	if len(files) == 0 {
		fmt.Fprintln(inv.stderr, "usage: mockd validate FILE... (or --scenario FILE, MOCKD_SCENARIO)")
		return 2
	}
	bad := 0
	for _, f := range files {
		sc, err := loadScenario(f)
		if err == nil {
			err = mockplatform.ValidateScenario(sc)
		}
		if err != nil {
			bad++
			for _, line := range problemLines(err) {
				fmt.Fprintln(inv.stderr, line)
			}
			continue
		}
		switch {
		case f == scenario.DefaultAlias:
			fmt.Fprintf(inv.stdout, "%s: ok (the built-in scenario)\n", f)
		case sc.IsLayer():
			fmt.Fprintf(inv.stdout, "%s: ok (a layer: no accounts; alone, it goes on top of the built-in scenario)\n", f)
		default:
			fmt.Fprintf(inv.stdout, "%s: ok\n", f)
		}
	}
	if bad > 0 {
		return 1
	}
	return 0
}

// cmdScenario prints a named scenario: the built-in one (default).
func cmdScenario(inv *invocation, _ *options, args []string) int {
	if len(args) == 1 && args[0] != scenario.DefaultAlias {
		fmt.Fprintf(inv.stderr, "mockd scenario: no built-in scenario %q (there is one: %s)\nusage: mockd scenario [default]\n",
			args[0], scenario.DefaultAlias)
		return 2
	}
	if _, err := inv.stdout.Write(scenario.DefaultYAML()); err != nil {
		fmt.Fprintln(inv.stderr, "mockd scenario:", err)
		return 1
	}
	return 0
}

// problemLines turns an error into lines, one per scenario problem.
func problemLines(err error) []string {
	var lines []string
	var walk func(error)
	walk = func(err error) {
		var list scenario.Errors
		switch e := err.(type) {
		case scenario.Errors:
			list = e
		case interface{ Unwrap() []error }:
			for _, x := range e.Unwrap() {
				walk(x)
			}
			return
		}
		if list != nil {
			for _, p := range list {
				lines = append(lines, p.Error())
			}
			return
		}
		lines = append(lines, strings.Split(err.Error(), "\n")...)
	}
	walk(err)
	return lines
}

// cmdRepair moves a data file's damaged records aside (store.Repair).
func cmdRepair(inv *invocation, o *options, _ []string) int {
	if o.data == "" {
		fmt.Fprintln(inv.stderr, "usage: mockd repair --data FILE (or MOCKD_DATA)")
		return 2
	}
	rep, err := store.Repair(o.data)
	if err != nil {
		fmt.Fprintln(inv.stderr, "mockd repair:", err)
		return 1
	}
	if rep.Tail != nil {
		fmt.Fprintf(inv.stdout, "%s: %s\n", rep.File, rep.Tail)
	}
	if len(rep.Moved) == 0 && len(rep.Rebuilt) == 0 && len(rep.Mended) == 0 {
		fmt.Fprintf(inv.stdout, "%s: no damaged records (%d records)\n", rep.File, rep.Kept)
		return 0
	}
	if len(rep.Moved) > 0 {
		fmt.Fprintf(inv.stdout, "%s: moved %d damaged records into %s:\n", rep.File, len(rep.Moved), rep.Sidecar)
		for _, d := range rep.Moved {
			fmt.Fprintf(inv.stdout, "  %s\n", d)
		}
	}
	for _, m := range rep.Mended {
		fmt.Fprintf(inv.stdout, "  %s\n", m)
	}
	for _, k := range rep.Rebuilt {
		fmt.Fprintf(inv.stdout, "  rebuilt the index %q\n", k)
	}
	fmt.Fprintf(inv.stdout, "%s: %d records kept\n", rep.File, rep.Kept)
	return 0
}

// cmdHealthcheck asks a running mockd for its health (the container's
// HEALTHCHECK, which has no shell).
func cmdHealthcheck(inv *invocation, o *options, _ []string) int {
	host, port, err := net.SplitHostPort(o.addr)
	if err != nil {
		fmt.Fprintln(inv.stderr, "healthcheck:", err)
		return 1
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	client := &http.Client{Timeout: 3 * time.Second}
	resp, err := client.Get("http://" + net.JoinHostPort(host, port) + "/_mock/health")
	if err != nil {
		fmt.Fprintln(inv.stderr, "healthcheck:", err)
		return 1
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintln(inv.stderr, "healthcheck: status", resp.StatusCode)
		return 1
	}
	return 0
}

// version is set at build time (-ldflags "-X main.version=...").
var version = ""

// cmdVersion prints mockd's version, commit and Go version.
func cmdVersion(inv *invocation, _ *options, _ []string) int {
	fmt.Fprintln(inv.stdout, versionString())
	return 0
}

func versionString() string {
	v, rev, dirty := version, "", ""
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = ", modified"
				}
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	build := runtime.Version()
	if rev != "" {
		build = rev + dirty + ", " + build
	}
	return fmt.Sprintf("mockd %s (%s)", v, build)
}
