package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/store"
)

func TestServeDefault(t *testing.T) {
	t.Parallel()
	s := startServer(t, []string{"--addr", "127.0.0.1:0"}, env())
	want := strings.Join([]string{
		`mockd serving scenario "default" (clock real)`,
		"  runtime:   " + s.base + "/runtime/{us-1|uk-1|euw-1}",
		"  builder:   " + s.base + "/builder/{us|uk|eu}",
		"  messaging: " + s.base + "/messaging",
		"  control:   " + s.base + "/_mock",
		"  console:   " + s.base + "/_mock/ui",
		"  worlds:    " + s.base + "/_mock/worlds (isolated copies, each under " + s.base + "/w/{id}/; up to 200)",
		"",
	}, "\n")
	if diff := cmp.Diff(want, s.stdout.String()); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	if status, body := s.do("GET", "/_mock/health", ""); status != 200 || body != `{"status":"ok","worlds":0}` {
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
			s.do("GET", "/messaging/ws?session_id=x&access_token=query-secret-2", "")
			s.do("GET", "/runtime/us-1/v1/acme/support/conversations?api_key=query-secret-3", "", "Authorization", "Bearer header-secret-4")
			s.stop()
			out := s.stdout.String() + s.stderr.String()
			sc := mockplatform.Vocabulary().Default()
			secrets := []string{"tok-secret-1", "wrong-key-secret", "query-secret-2", "query-secret-3", "header-secret-4"}
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

// TestDebugRequestLog: --log-level debug logs one line per request, the
// control plane's too: method, path, family, status and latency.
func TestDebugRequestLog(t *testing.T) {
	t.Parallel()
	s := startServer(t, []string{"--addr", "127.0.0.1:0", "--log-level", "debug", "--log-format", "json"}, env())
	s.chatCreate()
	s.do("POST", chatPath+"/create", "", "X-API-KEY", "wrong", "X-TOKEN", "test-connector-token")
	s.do("GET", "/builder/us/v1/alert-rules", "", "x-api-key", "test-builder-key")
	s.do("GET", "/_mock/clock", "")
	s.do("GET", "/nowhere", "")
	s.stop()
	type line struct {
		Level, Msg, Method, Path, Family string
		Status                           int
		Latency                          *float64
	}
	var got []line
	for _, l := range strings.Split(strings.TrimSpace(s.stderr.String()), "\n") {
		var v line
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if v.Msg != "request" {
			continue
		}
		if v.Latency == nil || *v.Latency <= 0 {
			t.Errorf("no latency: %s", l)
		}
		v.Latency = nil
		got = append(got, v)
	}
	want := []line{
		{"DEBUG", "request", "POST", chatPath + "/create", "chat", 200, nil},
		{"DEBUG", "request", "POST", chatPath + "/create", "chat", 401, nil},
		{"DEBUG", "request", "GET", "/builder/us/v1/alert-rules", "alerts", 200, nil},
		{"DEBUG", "request", "GET", "/_mock/clock", "control", 200, nil},
		{"DEBUG", "request", "GET", "/nowhere", "", 404, nil},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request log (-want +got):\n%s", diff)
	}
}

// TestServeLayer: a scenario file without accounts goes on top of the
// built-in scenario, alone or after --scenario default.
func TestServeLayer(t *testing.T) {
	t.Parallel()
	layer := filepath.Join(t.TempDir(), "flaky.yaml")
	if err := os.WriteFile(layer, []byte("name: flaky\nfaults:\n  - {id: f1, match: {family: chat, path: /v1/*/*/chat/respond}, action: {status: 503}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--scenario", layer}, {"--scenario", "default", "--scenario", layer}} {
		s := startServer(t, append([]string{"--addr", "127.0.0.1:0"}, args...), env())
		if !strings.HasPrefix(s.stdout.String(), `mockd serving scenario "flaky"`) {
			t.Errorf("%v: stdout %s", args, s.stdout)
		}
		s.chatCreate() // the built-in scenario's account and keys
		if status, body := s.do("GET", "/_mock/faults", ""); status != 200 || !strings.Contains(body, `"id":"f1"`) {
			t.Errorf("%v: faults %d %s", args, status, body)
		}
	}
}
