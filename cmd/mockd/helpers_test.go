package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
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

func okLines(files ...string) string {
	var b strings.Builder
	for _, f := range files {
		b.WriteString(f + ": ok\n")
	}
	return b.String()
}
