package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestServeWorlds: the worlds flags, the seed and start, and a public URL
// in the banner and in the worlds' addresses.
func TestServeWorlds(t *testing.T) {
	t.Parallel()
	s := startServer(t, []string{"--addr", "127.0.0.1:0", "--max-worlds", "1", "--public-url", "http://mock.test:9999/",
		"--seed", "5", "--start", "2030-01-01T00:00:00Z", "--clock", "manual"}, env("MOCKD_WORLD_IDLE_TIMEOUT", "5m"))
	if out := s.stdout.String(); !strings.Contains(out, "  control:   http://mock.test:9999/_mock\n") ||
		!strings.Contains(out, "up to 1)") || strings.Contains(out, "every interface") {
		t.Errorf("banner:\n%s", out)
	}
	status, body := s.do("POST", "/_mock/worlds", "{}", "Content-Type", "application/json")
	var w struct {
		ID    string `json:"id"`
		URL   string `json:"url"`
		Clock struct {
			Now string `json:"now"`
		} `json:"clock"`
	}
	if err := json.Unmarshal([]byte(body), &w); status != 201 || err != nil {
		t.Fatalf("create world: %d %s", status, body)
	}
	if w.Clock.Now != "2030-01-01T00:00:00Z" {
		t.Errorf("world clock %q, want the --start", w.Clock.Now)
	}
	if w.URL != "http://mock.test:9999/w/"+w.ID {
		t.Errorf("world url %q", w.URL)
	}
	if status, body := s.do("POST", "/_mock/worlds", "{}", "Content-Type", "application/json"); status != 429 {
		t.Errorf("second world past --max-worlds 1: %d %s", status, body)
	}
	if status, body := s.do("GET", "/_mock/worlds", ""); status != 200 || !strings.Contains(body, `"idle_timeout":"5m0s"`) {
		t.Errorf("list: %d %s", status, body)
	}
	if status, body := s.do("GET", "/w/"+w.ID+"/_mock/health", ""); status != 200 || body != `{"status":"ok","world":"`+w.ID+`"}` {
		t.Errorf("world health: %d %s", status, body)
	}
}

// TestServeWorldsGuarded: the worlds' control plane, the root's and each
// world's, sits behind the control token.
func TestServeWorldsGuarded(t *testing.T) {
	t.Parallel()
	s := startServer(t, []string{"--addr", "127.0.0.1:0"}, env("MOCKD_CONTROL_TOKEN", "tok"))
	if status, _ := s.do("POST", "/_mock/worlds", "{}", "Content-Type", "application/json"); status != 401 {
		t.Errorf("create without the token: %d, want 401", status)
	}
	status, body := s.do("POST", "/_mock/worlds", "{}", "Content-Type", "application/json", "Authorization", "Bearer tok")
	var w struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(body), &w); status != 201 || err != nil {
		t.Fatalf("create with the token: %d %s", status, body)
	}
	if status, _ := s.do("GET", "/w/"+w.ID+"/_mock/clock", ""); status != 401 {
		t.Errorf("a world's control plane without the token: %d, want 401", status)
	}
	if status, _ := s.do("GET", "/w/"+w.ID+"/_mock/clock", "", "Authorization", "Bearer tok"); status != 200 {
		t.Errorf("a world's control plane with the token: %d, want 200", status)
	}
	if status, _ := s.do("DELETE", "/_mock/worlds/"+w.ID, "", "Authorization", "Bearer tok"); status != 204 {
		t.Errorf("delete with the token: %d, want 204", status)
	}
}

// TestServeEveryInterface: bound to 0.0.0.0 (as in the container) without
// --public-url, the banner says the address it prints may not be the
// client's.
func TestServeEveryInterface(t *testing.T) {
	t.Parallel()
	s := startServer(t, []string{"--addr", "0.0.0.0:0"}, env("MOCKD_CONTROL_TOKEN", "tok"))
	if out := s.stdout.String(); !strings.Contains(out, "listening on every interface, port ") ||
		!strings.Contains(out, "--public-url (MOCKD_PUBLIC_URL) prints it here") {
		t.Errorf("banner:\n%s", out)
	}
}

// TestStartErrorsWorlds: bad values of the worlds, seed, start and public
// URL flags stop mockd before it listens.
func TestStartErrorsWorlds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		getenv func(string) string
		stderr string
	}{
		{"seed", []string{"--addr", "127.0.0.1:0", "--seed", "x"}, env(), "seed \"x\": want an integer\n"},
		{"start", []string{"--addr", "127.0.0.1:0"}, env("MOCKD_START", "today"), "start \"today\": want an RFC 3339 time such as 2026-01-01T09:00:00Z\n"},
		{"max worlds", []string{"--addr", "127.0.0.1:0", "--max-worlds", "-1"}, env(), "max-worlds \"-1\": want a number, 0 or more\n"},
		{"public url", []string{"--addr", "127.0.0.1:0", "--public-url", "localhost:9"}, env(), "mockplatform: WithPublicURL: want an http:// or https:// address, got localhost:9\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runNoServe(t, tc.args, tc.getenv)
			if code != 1 || stdout != "" {
				t.Errorf("exit code %d (want 1), stdout %q", code, stdout)
			}
			if diff := cmp.Diff(tc.stderr+"mockd: not started\n", stderr); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}
