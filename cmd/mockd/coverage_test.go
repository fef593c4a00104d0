package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/coverage"
)

// exercise makes a shard's requests: chat creates, and n bad responds.
func exercise(t *testing.T, p *mockplatform.Platform, creates, bad int) {
	t.Helper()
	for i := range creates + bad {
		path, status := "/create", http.StatusOK
		if i >= creates {
			path, status = "/respond", http.StatusBadRequest
		}
		req, err := http.NewRequest("POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat"+path, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-API-KEY", "test-chat-key")
		req.Header.Set("X-TOKEN", "test-connector-token")
		req.Header.Set("Content-Type", "application/json")
		resp, err := p.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != status {
			t.Fatalf("POST %s: %d, want %d", path, resp.StatusCode, status)
		}
	}
}

// saveReport writes a platform's report as GET /_mock/coverage answers it.
func saveReport(t *testing.T, p *mockplatform.Platform, name string) string {
	t.Helper()
	data, err := json.Marshal(p.Coverage())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCoverageCommand reads a running mockd's report (--url), prints it
// in each format and gates on thresholds and transitions.
func TestCoverageCommand(t *testing.T) {
	t.Parallel()
	p := mockplatform.Start(t)
	exercise(t, p, 2, 1)
	var md bytes.Buffer
	if err := p.Coverage().Markdown(&md); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runNoServe(t, []string{"coverage", "--url", p.URL()}, env())
	if code != 0 || stdout != md.String() || stderr != "" {
		t.Fatalf("coverage --url: exit %d, stderr %q, stdout (-want +got):\n%s", code, stderr, cmp.Diff(md.String(), stdout))
	}
	code, stdout, _ = runNoServe(t, []string{"coverage", "--url", p.URL(), "--format", "json"}, env())
	var got coverage.Report
	if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil {
		t.Fatalf("--format json: exit %d, %v: %s", code, err, stdout)
	}
	if diff := cmp.Diff(p.Coverage(), &got); diff != "" {
		t.Errorf("--format json (-want +got):\n%s", diff)
	}
	code, stdout, _ = runNoServe(t, []string{"coverage", "--url", p.URL(), "--format", "junit"}, env())
	if code != 0 || !strings.HasPrefix(stdout, "<?xml") || !strings.Contains(stdout, `name="chatCreate POST`) {
		t.Errorf("--format junit: exit %d:\n%s", code, stdout)
	}

	ops := p.Coverage().Totals.Operations
	below := fmt.Sprintf("mockd coverage: operations: %s%% covered (%d of %d), below 80%%\n",
		strconv.FormatFloat(ops.Percent, 'f', -1, 64), ops.Covered, ops.Total)
	for _, tc := range []struct {
		name   string
		args   []string
		getenv func(string) string
		code   int
		stderr string
	}{
		{"met", []string{"--min-operations", "1", "--min-statuses=0.1%"}, env(), 0, ""},
		{"below", []string{"--min-operations", "80"}, env(), 1, below},
		{"below, from the environment", nil, env("MOCKD_MIN_OPERATIONS", "80"), 1, below},
		{"a transition never taken", []string{"--require-transition", "outbound_call:calling->busy"}, env(), 1,
			"mockd coverage: transition outbound_call calling → busy never happened\n"},
		{"a bad transition", []string{"--require-transition", "busy"}, env(), 2,
			"mockd coverage: --require-transition: transition \"busy\": want machine:from->to (e.g. outbound_call:calling->busy)\n"},
		{"a bad share", []string{"--min-codes", "lots"}, env(), 2, "mockd coverage: --min-codes \"lots\": want a percentage from 0 to 100\n"},
		{"a bad format", []string{"--format", "html"}, env(), 2, "mockd coverage: --format \"html\": want markdown, json or junit\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runNoServe(t, append([]string{"coverage", "--url", p.URL()}, tc.args...), tc.getenv)
			if code != tc.code || stderr != tc.stderr {
				t.Errorf("exit %d, want %d; stderr (-want +got):\n%s", code, tc.code, cmp.Diff(tc.stderr, stderr))
			}
		})
	}
}

// TestCoverageCommandMergesShards: two shards' saved reports (and a
// running mockd) add up to the totals and counts of one run that made all
// their requests.
func TestCoverageCommandMergesShards(t *testing.T) {
	t.Parallel()
	shard1, shard2, one := mockplatform.Start(t), mockplatform.Start(t), mockplatform.Start(t)
	exercise(t, shard1, 2, 0)
	exercise(t, shard2, 1, 3)
	exercise(t, one, 3, 3)
	f1 := saveReport(t, shard1, "shard1.json")
	f2 := saveReport(t, shard2, "shard2.json")
	want := one.Coverage()

	for _, args := range [][]string{
		{"coverage", "--format", "json", f1, f2},
		{"coverage", "--format", "json", "--url", shard1.URL(), f2},
	} {
		code, stdout, stderr := runNoServe(t, args, env())
		var got coverage.Report
		if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil {
			t.Fatalf("%v: exit %d, %v, stderr %s", args, code, err, stderr)
		}
		if diff := cmp.Diff(want, &got); diff != "" {
			t.Errorf("%v: merged shards differ from one run (-want +got):\n%s", args, diff)
		}
	}
}

// TestCoverageCommandErrors: nothing to read is a usage error (2); a
// report that cannot be read fails (1).
func TestCoverageCommandErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notReport := filepath.Join(dir, "x.json")
	if err := os.WriteFile(notReport, []byte(`{"version":7}`), 0o600); err != nil {
		t.Fatal(err)
	}
	notJSON := filepath.Join(dir, "y.json")
	if err := os.WriteFile(notJSON, []byte(`<xml/>`), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.json")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"nothing to read", []string{"coverage"}, 2, "usage: mockd coverage [--url URL] [FILE...]: a running mockd (--url) or saved reports, or both\n"},
		{"another version", []string{"coverage", notReport}, 1, "mockd coverage: " + notReport + ": not a coverage report of version 1 (GET /_mock/coverage saves one)\n"},
		{"not JSON", []string{"coverage", notJSON}, 1, "mockd coverage: " + notJSON + ": not a coverage report: invalid character '<' looking for beginning of value\n"},
		{"missing", []string{"coverage", missing}, 1, "mockd coverage: open " + missing + ": no such file or directory\n"},
		{"a serve flag", []string{"coverage", "--clock", "manual", notReport}, 2, "mockd coverage: --clock does not apply to coverage\nusage: mockd coverage [--url URL] [FILE...]\n"},
		{"a coverage flag for serve", []string{"--min-operations", "5"}, 2, "mockd serve: --min-operations does not apply to serve\nusage: mockd serve [flags]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runNoServe(t, tc.args, env())
			if code != tc.code || stderr != tc.stderr || stdout != "" {
				t.Errorf("exit %d (want %d), stdout %q; stderr (-want +got):\n%s", code, tc.code, stdout, cmp.Diff(tc.stderr, stderr))
			}
		})
	}
}

// TestCoverageCommandUnreachable: a mockd that does not answer fails (1).
func TestCoverageCommandUnreachable(t *testing.T) {
	t.Parallel()
	p := mockplatform.Start(t)
	url := p.URL()
	p.Close()
	code, _, stderr := runNoServe(t, []string{"coverage", "--url", url}, env())
	if code != 1 || !strings.HasPrefix(stderr, "mockd coverage: GET "+url+"/_mock/coverage: ") || !strings.Contains(stderr, "refused") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestCoverageCommandToken: with mockd's control token (--control-token,
// MOCKD_CONTROL_TOKEN) the report is read; without it mockd's 401 fails
// the command (1).
func TestCoverageCommandToken(t *testing.T) {
	t.Parallel()
	p := mockplatform.Start(t, mockplatform.WithControlToken("s3cret"))
	if code, _, stderr := runNoServe(t, []string{"coverage", "--url", p.URL()}, env()); code != 1 ||
		!strings.HasPrefix(stderr, "mockd coverage: GET "+p.URL()+"/_mock/coverage: 401 Unauthorized: ") {
		t.Errorf("without the token: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runNoServe(t, []string{"coverage", "--url", p.URL()}, env("MOCKD_CONTROL_TOKEN", "s3cret")); code != 0 {
		t.Errorf("with the token: exit %d, stderr %q", code, stderr)
	}
}
