package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
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

// do sends a request to the server and returns status and body; the
// pair "Host", h sets the Host header.
func (s *server) do(method, path, body string, headers ...string) (int, string) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
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

func okLines(files ...string) string {
	var b strings.Builder
	for _, f := range files {
		b.WriteString(f + ": ok\n")
	}
	return b.String()
}

// runAsMockd, set in a child's environment, makes the test binary run
// mockd's main instead of the tests: the shutdown tests send real signals
// to a real process without building the binary.
const runAsMockd = "MOCKD_TEST_RUN_AS_MOCKD"

func TestMain(m *testing.M) {
	if os.Getenv(runAsMockd) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// process is mockd running as a child process.
type process struct {
	t      *testing.T
	cmd    *exec.Cmd
	base   string
	stderr syncBuffer
	lines  chan string // stderr, line by line
	exited chan struct{}
	err    error // of Wait, once exited is closed
}

// startProcess runs mockd with args in a child process (its environment
// holds no MOCKD_ variable of the test's) and waits until it listens.
func startProcess(t *testing.T, args ...string) *process {
	t.Helper()
	p := &process{t: t, lines: make(chan string, 100), exited: make(chan struct{})}
	p.cmd = exec.Command(os.Args[0], args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MOCKD_") {
			p.cmd.Env = append(p.cmd.Env, kv)
		}
	}
	p.cmd.Env = append(p.cmd.Env, runAsMockd+"=1")
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
	})
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.stderr.Write([]byte(sc.Text() + "\n"))
			select {
			case p.lines <- sc.Text():
			default: // nobody waits for it
			}
		}
	}()
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "control:"); ok {
			p.base = strings.TrimSuffix(strings.TrimSpace(rest), "/_mock")
			break
		}
	}
	go func() {
		_, _ = io.Copy(io.Discard, stdout)
		<-copied
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	if p.base == "" {
		<-p.exited
		t.Fatalf("mockd did not start: %v\n%s", p.err, p.stderr.String())
	}
	return p
}

// signal sends sig to the process.
func (p *process) signal(sig os.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatal(err)
	}
}

// waitLog waits for a log line that contains s.
func (p *process) waitLog(s string) {
	p.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l := <-p.lines:
			if strings.Contains(l, s) {
				return
			}
		case <-timeout:
			p.t.Fatalf("no log line with %q:\n%s", s, p.stderr.String())
		}
	}
}

// wait waits for the process to exit and returns its exit code.
func (p *process) wait() int {
	p.t.Helper()
	select {
	case <-p.exited:
	case <-time.After(60 * time.Second):
		p.t.Fatalf("mockd did not exit:\n%s", p.stderr.String())
	}
	var ee *exec.ExitError
	if p.err != nil && !errors.As(p.err, &ee) {
		p.t.Fatalf("wait: %v", p.err)
	}
	return p.cmd.ProcessState.ExitCode()
}

// buildMockd builds the mockd binary for a benchmark that runs it.
func buildMockd(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "mockd")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		b.Fatalf("go build: %v", err)
	}
	return bin
}

// mockdAddrLine is the start-up line that gives the control plane's URL.
var mockdAddrLine = regexp.MustCompile(`control:\s+(http://\S+)/_mock`)

// execMockd starts the binary with args and returns the process and its
// base URL, read from its start-up output; the caller stops it.
func execMockd(b *testing.B, bin string, args ...string) (*exec.Cmd, string) {
	b.Helper()
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if m := mockdAddrLine.FindStringSubmatch(sc.Text()); m != nil {
			return cmd, m[1]
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	b.Fatal("no address printed")
	return nil, ""
}
