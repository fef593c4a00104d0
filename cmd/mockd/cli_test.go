package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/scenario"
)

// runNoServe runs mockd with args and fails the test if it starts a server.
func runNoServe(t *testing.T, args []string, getenv func(string) string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code = run(ctx, args, &out, &errOut, getenv, func(string) {
		t.Error("a server started")
		cancel()
	})
	return code, out.String(), errOut.String()
}

// usageText is what follows a usage error.
var usageText = `Usage:
  mockd serve [flags]                   serve the mock (the default command)
  mockd validate [FILE...]              check scenario files (file:line:column: message)
  mockd scenario [default]              print the built-in scenario (YAML)
  mockd healthcheck [--addr HOST:PORT]  exit 0 when the mockd at --addr is healthy
  mockd repair --data FILE              move a data file's damaged records aside
  mockd coverage [--url URL] [FILE...]  print the API coverage report; gate CI on it
  mockd version                         print mockd's version
  mockd help [COMMAND]                  show a command's help
Run 'mockd --help' for the flags.
`

// TestUsageErrors: misused command lines exit 2 with a message and the
// usage on stderr, print nothing on stdout and never start a server.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		getenv func(string) string
		stderr string
	}{
		{"misspelt command", []string{"valdiate", "x.yaml"}, env(),
			"mockd: unknown command \"valdiate\"; did you mean \"validate\"?\n" + usageText},
		{"misspelt after flags", []string{"--addr", "127.0.0.1:0", "healtcheck"}, env(),
			"mockd: unknown command \"healtcheck\"; did you mean \"healthcheck\"?\n" + usageText},
		{"a file for a command", []string{"x.yaml"}, env(),
			"mockd: unknown command \"x.yaml\" (to serve a scenario: mockd --scenario x.yaml; to check it: mockd validate x.yaml)\n" + usageText},
		{"a word for a command", []string{"start"}, env(), "mockd: unknown command \"start\"\n" + usageText},
		{"serve with an argument", []string{"serve", "--addr", "127.0.0.1:0", "x.yml"}, env(),
			"mockd serve: unexpected argument \"x.yml\" (to serve a scenario: mockd --scenario x.yml; to check it: mockd validate x.yml)\nusage: mockd serve [flags]\n"},
		{"version with an argument", []string{"version", "now"}, env(),
			"mockd version: unexpected argument \"now\"\nusage: mockd version\n"},
		{"a flag of another command", []string{"--clock", "manual", "healthcheck"}, env(),
			"mockd healthcheck: --clock does not apply to healthcheck\nusage: mockd healthcheck [--addr HOST:PORT]\n"},
		{"flags of another command after it", []string{"validate", "--addr", "x:1", "--data=d", "f.yaml"}, env(),
			"mockd validate: --addr, --data does not apply to validate\nusage: mockd validate [FILE...]\n"},
		{"unknown flag", []string{"--nope"}, env(), "flag provided but not defined: -nope\n" + usageText},
		{"misspelt flag", []string{"--adr", "127.0.0.1:0"}, env(),
			"flag provided but not defined: -adr\nmockd: did you mean --addr?\n" + usageText},
		{"misspelt flag of a command", []string{"validate", "--scenaro", "x.yaml"}, env(),
			"flag provided but not defined: -scenaro\nmockd: did you mean --scenario?\nusage: mockd validate [FILE...]\nRun 'mockd validate --help' for its flags.\n"},
		{"unknown scenario name", []string{"scenario", "tiny"}, env(),
			"mockd scenario: no built-in scenario \"tiny\" (there is one: default)\nusage: mockd scenario [default]\n"},
		{"unknown flag of a command", []string{"healthcheck", "--bogus"}, env(),
			"flag provided but not defined: -bogus\nusage: mockd healthcheck [--addr HOST:PORT]\nRun 'mockd healthcheck --help' for its flags.\n"},
		{"bad duration", []string{"--shutdown-grace", "soon"}, env(),
			"invalid value \"soon\" for flag -shutdown-grace: parse error\n" + usageText},
		{"bad duration env", nil, env("MOCKD_READ_TIMEOUT", "soon"),
			"mockd: MOCKD_READ_TIMEOUT=\"soon\": want a duration such as 10s or 2m\n"},
		{"bad number env", nil, env("MOCKD_MAX_HEADER_BYTES", "-1"),
			"mockd: MOCKD_MAX_HEADER_BYTES=\"-1\": want a positive number\n"},
		{"bad log level", []string{"--log-level", "loud"}, env(), "mockd: log level \"loud\": want debug, info, warn or error\n"},
		{"bad log format env", nil, env("MOCKD_LOG_FORMAT", "xml"), "mockd: log format \"xml\": want text or json\n"},
		{"bad clock", []string{"--addr", "127.0.0.1:0", "--clock", "fast"}, env(), "mockd: clock mode \"fast\": want manual or real\n"},
		{"help of nothing", []string{"help", "nope"}, env(), "mockd: unknown command \"nope\"\n" + usageText},
		{"validate without files", []string{"validate"}, env(), "usage: mockd validate FILE... (or --scenario FILE, MOCKD_SCENARIO)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runNoServe(t, tc.args, tc.getenv)
			if code != 2 {
				t.Errorf("exit code %d, want 2", code)
			}
			if stdout != "" {
				t.Errorf("stdout: %q", stdout)
			}
			if diff := cmp.Diff(tc.stderr, stderr); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHelp: help goes to stdout with exit 0; the main help lists every
// command and serve's flags with their environment variables, a command's
// help its own flags.
func TestHelp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		has  []string
		not  []string
	}{
		{"--help", []string{"--help"}, []string{"Usage:\n", "  mockd validate [FILE...]", "  mockd healthcheck [--addr HOST:PORT]",
			"  mockd version", "  mockd serve [flags]", "  --addr HOST:PORT\n", "env MOCKD_ADDR; default 127.0.0.1:8080",
			"  --shutdown-grace DURATION\n", "env MOCKD_SHUTDOWN_GRACE; default 10s", "env MOCKD_CONTROL_TOKEN)", "env MOCKD_ALLOW_HOST)"}, nil},
		{"-h", []string{"-h"}, []string{"Usage:\n", "  mockd validate [FILE...]"}, nil},
		{"help", []string{"help"}, []string{"Usage:\n", "  mockd healthcheck"}, nil},
		{"validate -h", []string{"validate", "-h"}, []string{"usage: mockd validate [FILE...]\n", "  --scenario FILE\n"}, []string{"--addr", "Usage:"}},
		{"validate --help after a file", []string{"validate", "x.yaml", "--help"}, []string{"usage: mockd validate [FILE...]\n"}, nil},
		{"help validate", []string{"help", "validate"}, []string{"usage: mockd validate [FILE...]\n"}, nil},
		{"healthcheck --help", []string{"healthcheck", "--help"}, []string{"usage: mockd healthcheck [--addr HOST:PORT]\n", "  --addr HOST:PORT\n"}, []string{"--scenario"}},
		{"serve -h", []string{"serve", "-h"}, []string{"usage: mockd serve [flags]\n", "  --max-header-bytes BYTES\n"}, nil},
		{"version -h", []string{"version", "-h"}, []string{"usage: mockd version\n"}, []string{"Flags"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runNoServe(t, tc.args, env("MOCKD_CONTROL_TOKEN", "secret-token-in-env"))
			if code != 0 || stderr != "" {
				t.Errorf("exit %d, stderr %q", code, stderr)
			}
			words := strings.Join(strings.Fields(stdout), " ") // help wraps lines
			for _, want := range tc.has {
				if !strings.Contains(stdout, want) && !strings.Contains(words, strings.Join(strings.Fields(want), " ")) {
					t.Errorf("help lacks %q:\n%s", want, stdout)
				}
			}
			for _, not := range append(tc.not, "secret-token-in-env") {
				if strings.Contains(stdout, not) {
					t.Errorf("help has %q:\n%s", not, stdout)
				}
			}
		})
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runNoServe(t, []string{"version"}, env())
	want := regexp.MustCompile(`^mockd \S+ \(([0-9a-f]{12}(, modified)?, )?` + regexp.QuoteMeta(runtime.Version()) + `\)\n$`)
	if code != 0 || stderr != "" || !want.MatchString(stdout) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestStartErrors: a server that cannot start exits 1; a scenario's
// problems are printed one per line, as validate prints them.
func TestStartErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: bad\nbogus: true\naccounts:\n  - slug: a\n    id: \"1\"\n    region: mars\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, perr := mockplatform.Vocabulary().Parse("x", []byte("bogus: 1\n"))
	keys := strings.TrimPrefix(fmt.Sprint(perr), "x:1:1: bogus: unknown field ")
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { busy.Close() })
	none := filepath.Join(dir, "none.yaml")
	for _, tc := range []struct {
		name   string
		args   []string
		getenv func(string) string
		stderr string
	}{
		{"bad scenario", []string{"--addr", "127.0.0.1:0", "--scenario", bad}, env(),
			bad + ":2:1: bogus: unknown field " + keys + "\n" +
				bad + ":6:13: accounts[0].region: unknown region \"mars\" (want us, uk or eu)\n" +
				"mockd: not started\n"},
		{"two bad files", []string{"--addr", "127.0.0.1:0", "--scenario", bad, "--scenario", none}, env(),
			bad + ":2:1: bogus: unknown field " + keys + "\n" +
				bad + ":6:13: accounts[0].region: unknown region \"mars\" (want us, uk or eu)\n" +
				"scenario: open " + none + ": no such file or directory\n" +
				"mockd: not started\n"},
		{"missing scenario", []string{"--addr", "127.0.0.1:0"}, env("MOCKD_SCENARIO", none),
			"scenario: open " + none + ": no such file or directory\nmockd: not started\n"},
		{"address in use", []string{"--addr", busy.Addr().String()}, env(),
			"listen tcp " + busy.Addr().String() + ": bind: address already in use\nmockd: not started\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runNoServe(t, tc.args, tc.getenv)
			if code != 1 || stdout != "" {
				t.Errorf("exit code %d (want 1), stdout %q", code, stdout)
			}
			if diff := cmp.Diff(tc.stderr, stderr); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: bad\nbogus: true\naccounts:\n  - slug: a\n    id: \"1\"\n    region: mars\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	preset := filepath.Join(dir, "preset.yaml")
	if err := os.WriteFile(preset, []byte("name: p\nfaults:\n  - {match: {family: chat}, action: {preset: messaging.nope}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	layer := filepath.Join(dir, "layer.yaml")
	if err := os.WriteFile(layer, []byte("name: flaky\nfaults:\n  - {match: {family: chat}, action: {status: 503}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fixtures, err := filepath.Glob(fixture("*.yaml"))
	if err != nil || len(fixtures) < 3 {
		t.Fatalf("fixtures: %v %v", fixtures, err)
	}
	_, perr := mockplatform.Vocabulary().Parse("x", []byte("bogus: 1\n"))
	keys := strings.TrimPrefix(fmt.Sprint(perr), "x:1:1: bogus: unknown field ")
	for _, tc := range []struct {
		name   string
		args   []string
		getenv func(string) string
		code   int
		stdout string
		stderr string
	}{
		{"fixtures", fixtures, env(), 0, okLines(fixtures...), ""},
		{"bad file", []string{bad}, env(), 1, "",
			bad + ":2:1: bogus: unknown field " + keys + "\n" +
				bad + ":6:13: accounts[0].region: unknown region \"mars\" (want us, uk or eu)\n"},
		{"mixed", []string{fixtures[0], bad, fixtures[1]}, env(), 1, okLines(fixtures[0], fixtures[1]),
			bad + ":2:1: bogus: unknown field " + keys + "\n" +
				bad + ":6:13: accounts[0].region: unknown region \"mars\" (want us, uk or eu)\n"},
		{"missing file", []string{filepath.Join(dir, "none.yaml")}, env(), 1, "",
			"scenario: open " + filepath.Join(dir, "none.yaml") + ": no such file or directory\n"},
		{"no file", nil, env(), 2, "", "usage: mockd validate FILE... (or --scenario FILE, MOCKD_SCENARIO)\n"},
		{"the --scenario files", []string{"--scenario", fixtures[0], "--scenario=" + fixtures[1]}, env(), 0, okLines(fixtures[0], fixtures[1]), ""},
		{"the MOCKD_SCENARIO files", nil, env("MOCKD_SCENARIO", fixtures[0]+","+bad), 1, okLines(fixtures[0]),
			bad + ":2:1: bogus: unknown field " + keys + "\n" +
				bad + ":6:13: accounts[0].region: unknown region \"mars\" (want us, uk or eu)\n"},
		{"files win over MOCKD_SCENARIO", []string{fixtures[1]}, env("MOCKD_SCENARIO", bad), 0, okLines(fixtures[1]), ""},
		{"a layer", []string{layer}, env(), 0, layer + ": ok (a layer: no accounts; alone, it goes on top of the built-in scenario)\n", ""},
		{"the built-in scenario by name", []string{"default"}, env(), 0, "default: ok (the built-in scenario)\n", ""},
		{"unknown preset", []string{preset}, env(), 1, "",
			preset + ":3:46: faults[0].action.preset: unknown fault preset \"messaging.nope\" (docs/scenarios.md lists the presets)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runNoServe(t, append([]string{"validate"}, tc.args...), tc.getenv)
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			if diff := cmp.Diff(tc.stdout, stdout); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.stderr, stderr); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
	// The embedded default scenario validates too.
	def := filepath.Join(dir, "default.yaml")
	if err := os.WriteFile(def, scenario.DefaultYAML(), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runNoServe(t, []string{"validate", def}, env()); code != 0 {
		t.Errorf("default scenario: exit %d: %s", code, stderr)
	}
}

// TestScenarioCommand: mockd scenario (default) prints the built-in
// scenario as embedded.
func TestScenarioCommand(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"scenario"}, {"scenario", "default"}} {
		code, stdout, stderr := runNoServe(t, args, env())
		if code != 0 || stdout != string(scenario.DefaultYAML()) || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %d bytes (want the built-in scenario's %d)", args, code, stderr, len(stdout), len(scenario.DefaultYAML()))
		}
	}
}

// TestHealthcheck: healthcheck asks the mockd at --addr (given before or
// after the command, or in MOCKD_ADDR) and never starts a server itself.
func TestHealthcheck(t *testing.T) {
	t.Parallel()
	s := startServer(t, []string{"--addr", "127.0.0.1:0"}, env())
	_, port, _ := net.SplitHostPort(s.addr)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	unhealthy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
	t.Cleanup(unhealthy.Close)
	unhealthyAddr := strings.TrimPrefix(unhealthy.URL, "http://")
	for _, tc := range []struct {
		name   string
		args   []string
		getenv func(string) string
		code   int
		stderr string // a prefix
	}{
		{"flag", []string{"healthcheck", "--addr", s.addr}, env(), 0, ""},
		{"flag before the command", []string{"--addr", s.addr, "healthcheck"}, env(), 0, ""},
		{"flag before the command, nothing there", []string{"--addr", closedAddr, "healthcheck"}, env("MOCKD_ADDR", s.addr), 1, "healthcheck: Get "},
		{"env", []string{"healthcheck"}, env("MOCKD_ADDR", s.addr), 0, ""},
		{"wildcard host", []string{"healthcheck", "--addr", "0.0.0.0:" + port}, env(), 0, ""},
		{"empty host", []string{"healthcheck", "--addr", ":" + port}, env(), 0, ""},
		{"nothing there", []string{"healthcheck", "--addr", closedAddr}, env(), 1, "healthcheck: Get "},
		{"not 200", []string{"healthcheck", "--addr", unhealthyAddr}, env(), 1, "healthcheck: status 503\n"},
		{"bad address", []string{"healthcheck", "--addr", "nonsense"}, env(), 1, "healthcheck: address nonsense: missing port in address\n"},
		{"bad flag", []string{"healthcheck", "--bogus"}, env(), 2, "flag provided but not defined: -bogus\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runNoServe(t, tc.args, tc.getenv)
			if code != tc.code || !strings.HasPrefix(stderr, tc.stderr) || tc.stderr == "" && stderr != "" {
				t.Fatalf("exit %d (want %d); stderr %q (want a prefix %q)", code, tc.code, stderr, tc.stderr)
			}
		})
	}
}
