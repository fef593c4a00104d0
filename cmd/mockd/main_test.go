package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine to write while
// the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// server is a mockd started in process by run.
type server struct {
	t      *testing.T
	addr   string
	base   string
	stdout *syncBuffer
	stderr *syncBuffer
	cancel context.CancelFunc
	code   chan int
	client *http.Client
}

// env builds a getenv function from name, value pairs.
func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// startServer runs mockd with args and getenv until the test ends (or
// stop is called) and waits until it listens.
func startServer(t *testing.T, args []string, getenv func(string) string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tr := &http.Transport{}
	s := &server{t: t, stdout: &syncBuffer{}, stderr: &syncBuffer{}, cancel: cancel, code: make(chan int, 1),
		client: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
	ready := make(chan string, 1)
	go func() {
		s.code <- run(ctx, args, s.stdout, s.stderr, getenv, func(addr string) { ready <- addr })
	}()
	select {
	case s.addr = <-ready:
	case code := <-s.code:
		cancel()
		t.Fatalf("mockd exited with %d before listening; stderr:\n%s", code, s.stderr)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("mockd did not start")
	}
	s.base = "http://" + s.addr
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		s.stop()
	})
	return s
}

// stop cancels the server's context and returns run's exit code.
func (s *server) stop() int {
	s.t.Helper()
	s.cancel()
	select {
	case code := <-s.code:
		s.code <- code // later calls see it too
		return code
	case <-time.After(30 * time.Second):
		s.t.Fatal("mockd did not stop")
		return -1
	}
}

// do sends a request to the server and returns status and body.
func (s *server) do(method, path, body string, headers ...string) (int, string) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

var chatHeaders = []string{"X-API-KEY", "test-chat-key", "X-TOKEN", "test-connector-token", "Content-Type", "application/json"}

const chatPath = "/runtime/us-1/v1/acme/support/chat"

func (s *server) chatCreate() string {
	s.t.Helper()
	status, body := s.do("POST", chatPath+"/create", "", chatHeaders...)
	if status != http.StatusOK {
		s.t.Fatalf("chat create: %d %s", status, body)
	}
	var v struct {
		ConversationID string `json:"conversation_id"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil || v.ConversationID == "" {
		s.t.Fatalf("chat create body %s: %v", body, err)
	}
	return v.ConversationID
}

func (s *server) clock() map[string]any {
	s.t.Helper()
	status, body := s.do("GET", "/_mock/clock", "")
	if status != http.StatusOK {
		s.t.Fatalf("clock: %d %s", status, body)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		s.t.Fatal(err)
	}
	return m
}

func fixture(name string) string { return filepath.Join("..", "..", "fixtures", name) }

func TestServeDefault(t *testing.T) {
	t.Parallel()
	s := startServer(t, []string{"--addr", "127.0.0.1:0"}, env())
	want := strings.Join([]string{
		`mockd serving scenario "default" (clock real)`,
		"  runtime:   " + s.base + "/runtime/{us-1|uk-1|euw-1}",
		"  builder:   " + s.base + "/builder/{us|uk|eu}",
		"  messaging: " + s.base + "/messaging",
		"  control:   " + s.base + "/_mock",
		"",
	}, "\n")
	if diff := cmp.Diff(want, s.stdout.String()); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	if status, body := s.do("GET", "/_mock/health", ""); status != 200 || body != `{"status":"ok"}` {
		t.Fatalf("health: %d %s", status, body)
	}
	if m := s.clock(); m["mode"] != "real" {
		t.Errorf("clock mode = %v, want real (mockd's default)", m["mode"])
	}
	s.chatCreate()
	if code := s.stop(); code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", code, s.stderr)
	}
	logs := s.stderr.String()
	for _, want := range []string{"level=INFO msg=listening addr=" + s.addr, "level=INFO msg=\"shutting down\""} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
	}
}

func TestServeFlagsAndEnv(t *testing.T) {
	t.Parallel()
	t.Run("env", func(t *testing.T) {
		t.Parallel()
		s := startServer(t, nil, env("MOCKD_ADDR", "127.0.0.1:0", "MOCKD_SCENARIO", fixture("support-bot.yaml"),
			"MOCKD_CLOCK", "manual", "MOCKD_LOG_FORMAT", "json", "MOCKD_LOG_LEVEL", "warn"))
		if m := s.clock(); m["mode"] != "manual" || m["now"] != "2026-03-02T09:00:00Z" {
			t.Errorf("clock = %v, want manual at the scenario's start", m)
		}
		if !strings.HasPrefix(s.stdout.String(), `mockd serving scenario "support-bot" (clock manual)`) {
			t.Errorf("stdout = %s", s.stdout)
		}
		s.stop()
		if logs := s.stderr.String(); logs != "" {
			t.Errorf("log level warn still logged:\n%s", logs)
		}
	})
	t.Run("flags win over env", func(t *testing.T) {
		t.Parallel()
		s := startServer(t, []string{"--addr", "127.0.0.1:0", "--clock", "manual", "--log-format", "json",
			"--scenario", fixture("multi-project.yaml")},
			env("MOCKD_ADDR", "127.0.0.1:1", "MOCKD_CLOCK", "real", "MOCKD_LOG_FORMAT", "text", "MOCKD_SCENARIO", fixture("support-bot.yaml")))
		if m := s.clock(); m["mode"] != "manual" || m["now"] != "2026-02-01T00:00:00Z" {
			t.Errorf("clock = %v", m)
		}
		s.stop()
		lines := strings.Split(strings.TrimSpace(s.stderr.String()), "\n")
		for _, l := range lines {
			var v map[string]any
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				t.Errorf("log line is not JSON: %s", l)
			}
		}
		if len(lines) < 2 {
			t.Errorf("logs: %q", lines)
		}
	})
	t.Run("two scenarios merge", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		extra := filepath.Join(dir, "extra.yaml")
		if err := os.WriteFile(extra, []byte("name: extra\nclock: {start: 2027-01-01T00:00:00Z}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		s := startServer(t, []string{"--addr", "127.0.0.1:0", "--clock=manual", "--scenario", fixture("faults.yaml"), "--scenario", extra}, env())
		if m := s.clock(); m["now"] != "2027-01-01T00:00:00Z" {
			t.Errorf("clock = %v, want the later scenario's start", m)
		}
		if status, body := s.do("GET", "/_mock/faults", ""); status != 200 || !strings.Contains(body, `"chat-timeout"`) {
			t.Errorf("faults of the first scenario: %d %s", status, body)
		}
	})
}

func TestServeDataFile(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "mockd.db")
	s := startServer(t, []string{"--addr", "127.0.0.1:0", "--data", file}, env())
	id := s.chatCreate()
	if code := s.stop(); code != 0 {
		t.Fatalf("exit %d: %s", code, s.stderr)
	}
	// A second mockd on the same file keeps the data (env this time).
	s2 := startServer(t, nil, env("MOCKD_ADDR", "127.0.0.1:0", "MOCKD_DATA", file))
	if id2 := s2.chatCreate(); id2 == id {
		t.Errorf("second server reused id %s", id)
	}
	if code := s2.stop(); code != 0 {
		t.Fatalf("exit %d: %s", code, s2.stderr)
	}
	st, err := store.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, err := st.CountConversations("us"); err != nil || n != 2 {
		t.Fatalf("conversations on file = %d, %v; want 2", n, err)
	}
	if _, err := st.GetConversation("us", id); err != nil {
		t.Fatalf("first conversation: %v", err)
	}
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: bad\nbogus: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, tc := range []struct {
		name   string
		args   []string
		getenv func(string) string
		code   int
		stderr string // a substring
	}{
		{"unknown flag", []string{"--nope"}, env(), 2, "flag provided but not defined: -nope"},
		{"help", []string{"-h"}, env(), 0, "-addr string"},
		{"bad log level", []string{"--log-level", "loud"}, env(), 2, `mockd: log level "loud": want debug, info, warn or error`},
		{"bad log format env", nil, env("MOCKD_LOG_FORMAT", "xml"), 2, `mockd: log format "xml": want text or json`},
		{"bad clock", []string{"--addr", "127.0.0.1:0", "--clock", "fast"}, env(), 1, `clock mode \"fast\": want manual or real`},
		{"bad scenario", []string{"--addr", "127.0.0.1:0", "--scenario", bad}, env(), 1, bad + ":2:1: bogus: unknown field"},
		{"missing scenario", []string{"--addr", "127.0.0.1:0"}, env("MOCKD_SCENARIO", filepath.Join(dir, "none.yaml")), 1, "no such file or directory"},
		{"address in use", []string{"--addr", busy.Addr().String()}, env(), 1, "address already in use"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			code := run(ctx, tc.args, &stdout, &stderr, tc.getenv, func(string) { t.Error("server started") })
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr.String())
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
	fixtures, err := filepath.Glob(fixture("*.yaml"))
	if err != nil || len(fixtures) < 3 {
		t.Fatalf("fixtures: %v %v", fixtures, err)
	}
	_, perr := scenario.Parse("x", []byte("bogus: 1\n"))
	keys := strings.TrimPrefix(fmt.Sprint(perr), "x:1:1: bogus: unknown field ")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"fixtures", fixtures, 0, okLines(fixtures...), ""},
		{"bad file", []string{bad}, 1, "",
			bad + ":2:1: bogus: unknown field " + keys + "\n" +
				bad + ":6:13: accounts[0].region: unknown region \"mars\" (want us, uk or eu)\n"},
		{"mixed", []string{fixtures[0], bad, fixtures[1]}, 1, okLines(fixtures[0], fixtures[1]),
			bad + ":2:1: bogus: unknown field " + keys + "\n" +
				bad + ":6:13: accounts[0].region: unknown region \"mars\" (want us, uk or eu)\n"},
		{"missing file", []string{filepath.Join(dir, "none.yaml")}, 1, "",
			"scenario: open " + filepath.Join(dir, "none.yaml") + ": no such file or directory\n"},
		{"no file", nil, 2, "", "usage: mockd validate FILE...\n"},
		{"unknown preset", []string{preset}, 1, "",
			preset + ":3:46: faults[0].action.preset: unknown fault preset \"messaging.nope\" (docs/scenarios.md lists the presets)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"validate"}, tc.args...), &stdout, &stderr, env(), nil)
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			if diff := cmp.Diff(tc.stdout, stdout.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.stderr, stderr.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
	// The embedded default scenario validates too.
	def := filepath.Join(dir, "default.yaml")
	if err := os.WriteFile(def, scenario.DefaultYAML(), 0o600); err != nil {
		t.Fatal(err)
	}
	if code := run(context.Background(), []string{"validate", def}, io.Discard, io.Discard, env(), nil); code != 0 {
		t.Errorf("default scenario: exit %d", code)
	}
}

func okLines(files ...string) string {
	var b strings.Builder
	for _, f := range files {
		b.WriteString(f + ": ok\n")
	}
	return b.String()
}

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
	for _, tc := range []struct {
		name   string
		args   []string
		getenv func(string) string
		code   int
	}{
		{"flag", []string{"--addr", s.addr}, env(), 0},
		{"env", nil, env("MOCKD_ADDR", s.addr), 0},
		{"wildcard host", []string{"--addr", "0.0.0.0:" + port}, env(), 0},
		{"empty host", []string{"--addr", ":" + port}, env(), 0},
		{"nothing there", []string{"--addr", closedAddr}, env(), 1},
		{"bad address", []string{"--addr", "nonsense"}, env(), 1},
		{"bad flag", []string{"--bogus"}, env(), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if code := run(context.Background(), append([]string{"healthcheck"}, tc.args...), io.Discard, &stderr, tc.getenv, nil); code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, stderr.String())
			}
		})
	}
	// A server that answers but not 200 is unhealthy.
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) })}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"healthcheck", "--addr", ln.Addr().String()}, io.Discard, &stderr, env(), nil); code != 1 ||
		!strings.Contains(stderr.String(), "healthcheck: status 503") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}

// TestGracefulShutdown holds a request in a fault's real delay, cancels the
// server's context, and checks the request is answered and run returns 0.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	s := startServer(t, []string{"--addr", "127.0.0.1:0", "--clock", "manual"}, env())
	status, body := s.do("POST", "/_mock/faults", `{"match":{"family":"chat"},"action":{"delay":"300ms"}}`, "Content-Type", "application/json")
	if status != http.StatusCreated {
		t.Fatalf("add fault: %d %s", status, body)
	}
	answered := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest("POST", s.base+chatPath+"/create", nil)
		for i := 0; i < len(chatHeaders); i += 2 {
			req.Header.Set(chatHeaders[i], chatHeaders[i+1])
		}
		resp, err := s.client.Do(req)
		if err != nil {
			answered <- err.Error()
			return
		}
		defer resp.Body.Close()
		answered <- resp.Status
	}()
	// Wait, without sleeping, until the request is inside the delay.
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, body := s.do("GET", "/_mock/faults", "")
		if strings.Contains(body, `"fired":1`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the request never reached the fault: %s", body)
		}
		runtime.Gosched()
	}
	if code := s.stop(); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, s.stderr)
	}
	select {
	case got := <-answered:
		if got != "200 OK" {
			t.Fatalf("request in flight during shutdown: %s", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the request in flight was never answered")
	}
	// The server no longer listens.
	if _, err := net.DialTimeout("tcp", s.addr, time.Second); err == nil {
		t.Error("still listening after shutdown")
	}
}

// TestNeverLogsSecrets runs chat traffic (good and bad keys) with debug
// logging and looks for every credential of the default scenario in the
// output.
func TestNeverLogsSecrets(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			s := startServer(t, []string{"--addr", "127.0.0.1:0", "--log-level", "debug", "--log-format", format}, env())
			id := s.chatCreate()
			s.do("POST", chatPath+"/respond", `{"conversation_id":"`+id+`","message":"I want a human agent","integration_attributes":{"token":"tok-secret-1"}}`, chatHeaders...)
			s.do("POST", chatPath+"/create", "", "X-API-KEY", "wrong-key-secret", "X-TOKEN", "test-connector-token-sandbox")
			s.do("GET", "/runtime/us-1/handoff_state?id="+id, "", "x-api-key", "test-handoff-key")
			s.do("POST", "/messaging/api/v1/access-token", `{}`, "X-Token", "test-connector-token", "X-Host", "localhost")
			s.do("GET", "/_mock/requests", "")
			s.do("GET", "/_mock/scenario", "")
			s.stop()
			out := s.stdout.String() + s.stderr.String()
			sc := scenario.Default()
			secrets := []string{"tok-secret-1", "wrong-key-secret"}
			for _, c := range sc.Credentials {
				secrets = append(secrets, c.Key)
			}
			for _, secret := range secrets {
				if strings.Contains(out, secret) {
					t.Errorf("the output holds the secret %q:\n%s", secret, out)
				}
			}
		})
	}
}

// TestStartupTime builds the mockd binary and measures, five times, the
// time from exec to the first 200 on /_mock/health (the target:
// under 100 ms). It also checks that SIGTERM shuts it down with exit 0.
func TestStartupTime(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "mockd")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("go build: %v", err)
	}
	addrLine := regexp.MustCompile(`control:\s+(http://\S+)/_mock`)
	var times []time.Duration
	for i := range 5 {
		cmd := exec.Command(bin, "--addr", "127.0.0.1:0")
		cmd.Env = append(os.Environ(), "MOCKD_LOG_LEVEL=info")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr syncBuffer
		cmd.Stderr = &stderr
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		base := ""
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := addrLine.FindStringSubmatch(sc.Text()); m != nil {
				base = m[1]
				break
			}
		}
		if base == "" {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("no address printed; stderr:\n%s", stderr.String())
		}
		resp, err := http.Get(base + "/_mock/health")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		elapsed := time.Since(start)
		if resp.StatusCode != 200 {
			t.Fatalf("health: %d", resp.StatusCode)
		}
		times = append(times, elapsed)
		go io.Copy(io.Discard, stdout)
		sig := syscall.SIGTERM
		if i%2 == 1 {
			sig = syscall.SIGINT
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("after %v: %v; stderr:\n%s", sig, err, stderr.String())
		}
		if !strings.Contains(stderr.String(), `msg="shutting down"`) {
			t.Errorf("no graceful shutdown logged after %v:\n%s", sig, stderr.String())
		}
	}
	http.DefaultClient.CloseIdleConnections()
	slices.Sort(times)
	median := times[len(times)/2]
	t.Logf("mockd start to first 200 on /_mock/health: median %v of %v", median, times)
	if median > time.Second {
		t.Errorf("median startup %v; the target is under 100 ms", median)
	}
}
