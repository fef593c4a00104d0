package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStartingHealth: mockd listens before its world is loaded; meanwhile
// /_mock/health answers 503 "starting" (with the load's progress) and the
// API 503 with Retry-After; once loaded, both answer as usual, and a load
// of over 100k records logged its progress.
func TestStartingHealth(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(sc, []byte(`
accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
        generate:
          - {count: 150000, from: 2026-02-01T00:00:00Z, to: 2026-02-08T00:00:00Z}
credentials:
  - {kind: conversations, key: conv-key, account: acme}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	client := &http.Client{Timeout: 30 * time.Second}
	get := func(addr, path string) (int, http.Header, map[string]any) {
		t.Helper()
		resp, err := client.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v: %s", path, err, b)
		}
		return resp.StatusCode, resp.Header, m
	}
	const page = "/runtime/us-1/v3/acme/support/conversations?limit=1"
	startingSeen := false
	ready := make(chan string, 1)
	inv := &invocation{ctx: ctx, stdout: stdout, stderr: stderr, getenv: env(),
		ready: func(addr string) { ready <- addr },
		starting: func(addr string) {
			// The world is not loaded while this runs.
			status, _, body := get(addr, "/_mock/health")
			if status != 503 || body["status"] != "starting" {
				t.Errorf("health while starting: %d %v", status, body)
			}
			status, hdr, body := get(addr, page)
			if status != 503 || hdr.Get("Retry-After") != "1" || body["status"] != "starting" || body["error"] == nil {
				t.Errorf("API while starting: %d %v %v", status, hdr, body)
			}
			startingSeen = true
		}}
	code := make(chan int, 1)
	go func() {
		code <- runInvocation(inv, []string{"--addr", "127.0.0.1:0", "--scenario", sc, "--log-level", "info"})
	}()
	var addr string
	select {
	case addr = <-ready:
	case c := <-code:
		t.Fatalf("mockd exited with %d; stderr:\n%s", c, stderr)
	case <-time.After(60 * time.Second):
		t.Fatal("mockd did not start")
	}
	if !startingSeen {
		t.Fatal("starting was not called")
	}
	if status, _, body := get(addr, "/_mock/health"); status != 200 || body["status"] != "ok" {
		t.Fatalf("health when ready: %d %v", status, body)
	}
	req, _ := http.NewRequest("GET", "http://"+addr+page, nil)
	req.Header.Set("x-api-key", "conv-key")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("page when ready: %d", resp.StatusCode)
	}
	cancel()
	<-code
	logs := stderr.String()
	for _, want := range []string{`msg="generating conversations" records=150000 total=150000`, "rate_per_s=", "left="} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}
