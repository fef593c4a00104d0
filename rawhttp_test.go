package mockplatform

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Requests no Go client sends: a body announced and never sent, no Host
// header. They go over a raw loopback connection to the platform's
// listener.

// rawDo sends request (headers, and the body if any) on a new loopback
// connection to the platform and reads one answer. It fails the test
// when no answer comes within a minute (a guard against a hang, not a
// measure: the answers it waits for come at once).
func rawDo(t *testing.T, p *Platform, request string) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to %.60q: %v", request, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// TestOversizeContentLength: a request whose Content-Length is over its
// route's limit is answered 413 before its body is read: the mock gets
// the headers only (the body never comes) and answers what a body over
// the limit gets, in the family's error shape, on the API's families, on
// the control plane and in a world; nothing changes.
func TestOversizeContentLength(t *testing.T) {
	t.Parallel()
	p := guardPlatform(t)
	w, err := p.NewWorld()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	wpath := strings.TrimPrefix(w.URL(), p.URL())
	builder := []string{"x-api-key", "test-builder-key", "Content-Type", jsonType}
	jsonCT := []string{"Content-Type", jsonType}
	for _, tc := range []struct {
		name, path string
		headers    []string
		limit      int64
	}{
		{"chat", "/runtime/us-1/v1/acme/support/chat/create", chatHeaders, 1 << 20},
		{"alert rules", "/builder/us/v1/alert-rules", builder, 1 << 20},
		{"agents", "/builder/us/v1/agents", builder, 1 << 20},
		{"external events", "/runtime/us-1/v1/external-events/webhook?event_id_location=payload&event_id_path=ref&account_id=acme&project_id=support",
			[]string{"X-Api-Key", "test-external-events-key", "Content-Type", jsonType}, 1 << 20},
		{"no such route", "/runtime/us-1/v1/nothing-here", jsonCT, 1 << 20},
		{"clock advance", "/_mock/clock/advance", jsonCT, maxControlSmall},
		{"fault rule", "/_mock/faults", jsonCT, maxControlFault},
		{"scenario", "/_mock/scenario", []string{"Content-Type", "application/yaml"}, maxControlBody},
		{"world", "/_mock/worlds", jsonCT, maxControlBody},
		{"a world's chat", wpath + "/runtime/us-1/v1/acme/support/chat/create", chatHeaders, 1 << 20},
		{"a world's clock advance", wpath + "/_mock/clock/advance", jsonCT, maxControlSmall},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := guardState(t, p)
			worlds := len(p.Worlds())
			// What a body one byte over the limit, sent whole, gets.
			want := send(t, p.Client(), "POST", p.URL()+tc.path, strings.Repeat(" ", int(tc.limit)+1), tc.headers...)
			for _, declared := range []int64{tc.limit + 1, 1e18} {
				var req strings.Builder
				fmt.Fprintf(&req, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n", tc.path, declared)
				for i := 0; i+1 < len(tc.headers); i += 2 {
					fmt.Fprintf(&req, "%s: %s\r\n", tc.headers[i], tc.headers[i+1])
				}
				req.WriteString("\r\n")
				resp, body := rawDo(t, p, req.String())
				if resp.StatusCode != want.Status || !sameShape(t, body, want.Body) {
					t.Errorf("Content-Length %d, no body: %d %s; want %d %s", declared, resp.StatusCode, body, want.Status, want.Body)
				}
			}
			if want.Status != http.StatusRequestEntityTooLarge && tc.name != "no such route" {
				t.Errorf("a body over the limit: %d %s", want.Status, want.Body)
			}
			if diff := cmp.Diff(before, guardState(t, p)); diff != "" || len(p.Worlds()) != worlds {
				t.Errorf("state changed (-before +after):\n%s", diff)
			}
		})
	}
}

// sameShape reports whether two JSON error bodies have the same fields,
// and the same values but for those that name the request (error_id) or
// the length it declared ("error" of the control plane).
func sameShape(t *testing.T, got, want []byte) bool {
	t.Helper()
	var g, w map[string]any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Errorf("not a JSON object: %s", got)
		return false
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("not a JSON object: %s", want)
	}
	for _, k := range []string{"error_id", "error"} {
		if _, ok := g[k]; ok && w[k] != nil {
			g[k], w[k] = "", ""
		}
	}
	return cmp.Equal(g, w)
}

// TestControlGuardNoHost: a control call without a Host header (HTTP/1.0;
// no browser sends one) may read but not change the mock, unless a
// control token is set: then the token decides.
func TestControlGuardNoHost(t *testing.T) {
	t.Parallel()
	const noHost = "a control call that changes the mock needs a Host header: it answers loopback hosts (localhost, " +
		"127.0.0.1, ::1) and the hosts it is told to allow, or any request with the control token (mockd --control-token, " +
		"MOCKD_CONTROL_TOKEN) (docs/security.md)"
	for _, tc := range []struct {
		name    string
		opts    []Option
		request string
		status  int
		err     string
	}{
		{"reset", nil, "POST /_mock/reset HTTP/1.0\r\nContent-Type: application/json\r\n\r\n", 403, noHost},
		{"advance", nil, "POST /_mock/clock/advance HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n{\"duration\":\"1h\"}", 403, noHost},
		{"delete faults", nil, "DELETE /_mock/faults HTTP/1.0\r\n\r\n", 403, noHost},
		{"a world's reset", nil, "POST /w/{world}/_mock/reset HTTP/1.0\r\nContent-Type: application/json\r\n\r\n", 403, noHost},
		{"read the clock", nil, "GET /_mock/clock HTTP/1.0\r\n\r\n", 200, ""},
		{"any host allowed", []Option{WithAllowedHosts("*")}, "POST /_mock/reset HTTP/1.0\r\nContent-Type: application/json\r\n\r\n", 200, ""},
		{"token", []Option{WithControlToken("s3cret-token")},
			"POST /_mock/reset HTTP/1.0\r\nContent-Type: application/json\r\nAuthorization: Bearer s3cret-token\r\n\r\n", 200, ""},
		{"no token", []Option{WithControlToken("s3cret-token")}, "POST /_mock/reset HTTP/1.0\r\nContent-Type: application/json\r\n\r\n", 401, tokenMissing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := guardPlatform(t, tc.opts...)
			w, err := p.NewWorld()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			w.Advance(time.Hour)
			before, wBefore := guardState(t, p), w.Now()
			req := strings.ReplaceAll(tc.request, "{world}", strings.TrimPrefix(w.URL(), p.URL()+"/w/"))
			resp, body := rawDo(t, p, req)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if tc.err == "" {
				return
			}
			var got struct{ Error string }
			if err := json.Unmarshal(body, &got); err != nil || got.Error != tc.err {
				t.Errorf("answer %s (%v), want the error %q", body, err, tc.err)
			}
			if diff := cmp.Diff(before, guardState(t, p)); diff != "" || !w.Now().Equal(wBefore) {
				t.Errorf("a refused call changed the mock (-before +after):\n%s", diff)
			}
		})
	}
}
