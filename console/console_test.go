package console_test

import (
	"bufio"
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/console"
	"github.com/agentplatform/mockplatform/store"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction(store.LeakIgnoreFunction))
}

// world is a platform with something on every page: conversations (one
// handed off), an alert rule in the alert state, a fault rule that fired,
// an outbound call, a reserved number and a call to it, an unknown field.
func world(t *testing.T) (*mockplatform.Platform, string) {
	t.Helper()
	p := mockplatform.Start(t)
	id := chat(t, p, "order #123", "I want a human")
	chat(t, p)
	do(t, "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/create", `{"chanel":"webchat"}`, chatHeaders...)
	do(t, "POST", p.BuilderURL("us")+"/v1/alert-rules", map[string]any{"name": "Busy", "project_id": "support",
		"metric": "call_volume", "operator": ">=", "threshold_value": 2, "window_duration": "5m"},
		"x-api-key", "test-builder-key", "Content-Type", "application/json")
	if _, err := p.AddFault(mockplatform.Fault{ID: "slow-respond", Match: mockplatform.FaultMatch{Family: "chat", Path: "/v1/*/*/chat/respond"},
		Action: mockplatform.FaultAction{Status: 503}, Times: 1}); err != nil {
		t.Fatal(err)
	}
	do(t, "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/respond", map[string]string{"conversation_id": id, "message": "x"}, chatHeaders...)
	do(t, "POST", p.RuntimeURL("us-1")+"/v1/outbound-calling", map[string]string{"to_number": "+14155552671"},
		"X-Service-Auth-Token", "test-outbound-token", "Content-Type", "application/json")
	do(t, "POST", p.RuntimeURL("us-1")+"/v1/conversations/dni-reservation", map[string]any{"attributes": map[string]any{}},
		"x-api-key", "test-dni-key", "Content-Type", "application/json")
	if _, err := p.Dial("+14155550100", "+14155550199"); err != nil {
		t.Fatal(err)
	}
	r := do(t, "POST", p.RuntimeURL("us-1")+"/v1/external-events/webhook?event_id_location=payload&event_id_path=ref&account_id=acme&project_id=support",
		map[string]string{"ref": id, "status": "paid"}, "X-Api-Key", "test-external-events-key", "Content-Type", "application/json")
	if r.Status != 201 {
		t.Fatalf("external event: %d %s", r.Status, r.Body)
	}
	p.Advance(time.Minute)
	return p, id
}

// TestPages serves every page of a busy platform: its status, its
// heading, and what it lists.
func TestPages(t *testing.T) {
	t.Parallel()
	p, id := world(t)
	for _, tc := range []struct {
		path   string
		status int
		texts  []string
	}{
		{"/", 200, []string{"<h1>Overview</h1>", "2026-01-01 00:01:00", "manual", `aria-current="page">Overview`,
			"5 conversations", "1 alert rule", "1 outbound call", "1 number reservation", "1 audio cache entry", "0 voices", "503", "slow-respond"}},
		{"/conversations", 200, []string{"<h1>Conversations</h1>", id, "live_agent_queue", "acme / support (Support Agent), region us"}},
		{"/conversations?in_progress=false", 200, []string{id}},
		{"/conversations?limit=0", 400, []string{"limit must be an integer from 1 to 5000."}},
		{"/conversations?project=acme/nothing", 404, []string{"No project &#34;acme/nothing&#34; in the scenario."}},
		{"/conversations/" + id, 200, []string{"<h1>Conversation " + id + "</h1>", "Thanks, I found order 123.", "order_status",
			"Transferring you to a live agent.", "live_agent_queue", "customer_request", "I want a human", "Handoff state",
			"<code>" + id + "</code>", "application/json", "&#34;status&#34;: &#34;paid&#34;"}},
		{"/conversations/CONV-0000000000", 404, []string{"No conversation &#34;CONV-0000000000&#34; in any region."}},
		{"/requests", 200, []string{"<h1>Requests</h1>", "/v1/acme/support/chat/create", "unknown field &#34;chanel&#34; in request body",
			"1 warning", "fault slow-respond", "[REDACTED]"}},
		{"/requests?status=503", 200, []string{"(1 of 1 shown"}},
		{"/requests?family=outbound", 200, []string{"(1 of 1 shown", "/v1/outbound-calling"}},
		{"/requests?warnings=on", 200, []string{"(1 of 1 shown"}},
		{"/requests?status=abc", 400, []string{"Status must be an HTTP status code"}},
		{"/faults", 200, []string{"<h1>Faults</h1>", "slow-respond", "chat · /v1/*/*/chat/respond", "answer 503", "1 time",
			"messaging.expire_session_after (messaging), takes a count"}},
		{"/alerts", 200, []string{"<h1>Alerts and webhooks</h1>", "Busy", "call_volume &gt;= 2", "state-alert",
			"State over time: ok from 2026-01-01 00:00:00, then alert from 2026-01-01 00:01:00"}},
		{"/calls", 200, []string{"<h1>Calls and sessions</h1>", "14155552671", "answered", "14155550100", "Hi, how can I help you today?",
			"acme / support"}},
		{"/coverage", 200, []string{"<h1>Coverage</h1>", `aria-current="page">Coverage`, `<meter min="0" max="100" value="`,
			`aria-label="chat: `, `<span class="badge rank-2">retry or conflict</span>`, "more in the <a href=\"./../coverage\">JSON report</a>",
			`data-path="coverage"`}},
		{"/voices", 200, []string{"<h1>Voices and audio</h1>", "acme / support", "Hi, how can I help you today?", "ready since 2026-01-01 00:00:01",
			"google en-US-Standard-A", "VOICE-6fad73f6", "Anne", "Poly, read-only"}},
		{"/scenario", 200, []string{"<h1>Scenario</h1>", "default", "Validate and load"}},
		{"/nothing-here", 404, []string{"No console page at /nothing-here."}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			pg := get(t, p, tc.path)
			if pg.Status != tc.status {
				t.Fatalf("status %d, want %d:\n%s", pg.Status, tc.status, pg.Body)
			}
			if ct := pg.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			pg.mustContain(t, tc.texts...)
		})
	}
}

// TestSecurityHeaders: every answer of the console carries its policy:
// no script but its own file, no framing, no sniffing, no referrer.
func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	p := mockplatform.Start(t)
	for _, path := range []string{"/", "/requests", "/nothing", "/static/console.js", "/events?close"} {
		var h http.Header
		if path == "/events?close" {
			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, "GET", p.URL()+"/_mock/ui/events", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			h = resp.Header
			cancel()
			resp.Body.Close()
		} else {
			h = get(t, p, path).Header
		}
		for name, want := range map[string]string{
			"Content-Security-Policy": console.ContentSecurityPolicy,
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "no-referrer",
			"X-Frame-Options":         "DENY",
		} {
			if got := h.Get(name); got != want {
				t.Errorf("%s: %s = %q, want %q", path, name, got, want)
			}
		}
	}
	csp := console.ContentSecurityPolicy
	for _, want := range []string{"script-src 'self'", "frame-ancestors 'none'", "default-src 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("the policy lacks %s", want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("the policy allows inline code: %s", csp)
	}
}

// TestNoInlineCode: the pages hold no inline script, event handler or
// style attribute (the policy would block them), and load the one script
// and style sheet of the console.
func TestNoInlineCode(t *testing.T) {
	t.Parallel()
	p, id := world(t)
	inline := regexp.MustCompile(`(?i)<script(?:\s[^>]*)?>[^<]|\son[a-z]+\s*=|\sstyle\s*=|javascript:`)
	for _, path := range []string{"/", "/conversations", "/conversations/" + id, "/requests", "/faults", "/alerts", "/calls", "/scenario"} {
		pg := get(t, p, path)
		if m := inline.FindString(pg.Body); m != "" {
			t.Errorf("%s has inline code: %q", path, m)
		}
		if !assetsRE.MatchString(pg.Body) {
			t.Errorf("%s does not load the console's script and style sheet", path)
		}
	}
}

var assetsRE = regexp.MustCompile(`<link rel="stylesheet" href="(\./|\.\./)static/console\.css\?v=[0-9a-f]{16}">\s*<script src="(\./|\.\./)static/console\.js\?v=[0-9a-f]{16}" defer></script>`)

// TestHostileDataIsInert: text from clients and scenarios (a message, a
// scenario name, a fault rule id, a filter) is escaped wherever it shows.
func TestHostileDataIsInert(t *testing.T) {
	t.Parallel()
	const evil = `<script>alert("pwned")</script><img src=x onerror=alert(1)>`
	p := mockplatform.Start(t)
	id := chat(t, p, evil)
	if _, err := p.AddFault(mockplatform.Fault{ID: evil, Match: mockplatform.FaultMatch{Family: "chat", Path: "/x"}, Action: mockplatform.FaultAction{Status: 500}}); err != nil {
		t.Fatal(err)
	}
	sc := p.Scenario()
	renamed := *sc
	renamed.Name = evil
	if err := p.LoadScenario(&renamed); err != nil {
		t.Fatal(err)
	}
	id = chat(t, p, evil)
	for _, path := range []string{"/", "/conversations/" + id, "/requests", "/faults", "/scenario",
		"/conversations?variant_name=" + strings.ReplaceAll(evil, " ", "+"), "/requests?path=%3Cscript%3E"} {
		pg := get(t, p, path)
		pg.mustNotContain(t, "<script>alert", "<img src=x")
		if !strings.Contains(pg.Body, "&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt;") &&
			!strings.Contains(pg.Body, `\u003cscript\u003ealert`) && !strings.Contains(pg.Body, "%3Cscript%3E") &&
			!strings.Contains(pg.Body, "&lt;script&gt;") {
			t.Errorf("%s: the hostile text is not shown escaped:\n%s", path, pg.Body)
		}
	}
}

// TestRedirectToSlash: {base}/_mock/ui goes to {base}/_mock/ui/ by a
// relative address, which holds under any prefix.
func TestRedirectToSlash(t *testing.T) {
	t.Parallel()
	p := mockplatform.Start(t)
	pg := get(t, p, "")
	if pg.Status != http.StatusFound || pg.Header.Get("Location") != "ui/" {
		t.Fatalf("%d, Location %q", pg.Status, pg.Header.Get("Location"))
	}
	pg = get(t, p, "?x=1")
	if pg.Header.Get("Location") != "ui/?x=1" {
		t.Fatalf("Location %q", pg.Header.Get("Location"))
	}
}

// TestPathsOutsideTheConsole: an address below the console that cleans
// to somewhere else (outside it, or a doubled slash) is the console's own
// 404, never a redirect that would leave the console's space.
func TestPathsOutsideTheConsole(t *testing.T) {
	t.Parallel()
	p := mockplatform.Start(t)
	for _, path := range []string{"/../../etc/passwd", "/../scenario", "/conversations/../../../_mock/reset", "//requests", "/./faults", "/static/../console.js"} {
		pg := get(t, p, path)
		if pg.Status != http.StatusNotFound || pg.Header.Get("Location") != "" {
			t.Errorf("%s: %d, Location %q", path, pg.Status, pg.Header.Get("Location"))
		}
		pg.mustContain(t, "No console page at "+html.EscapeString(path)+".")
	}
}

// TestStatic serves the embedded assets with their type and an ETag a
// browser revalidates with.
func TestStatic(t *testing.T) {
	t.Parallel()
	p := mockplatform.Start(t)
	for file, ctype := range map[string]string{"console.js": "text/javascript; charset=utf-8",
		"console.css": "text/css; charset=utf-8", "icon.svg": "image/svg+xml"} {
		pg := get(t, p, "/static/"+file)
		if pg.Status != 200 || pg.Header.Get("Content-Type") != ctype || pg.Header.Get("ETag") == "" {
			t.Fatalf("%s: %d %q etag %q", file, pg.Status, pg.Header.Get("Content-Type"), pg.Header.Get("ETag"))
		}
		again := get(t, p, "/static/"+file, "If-None-Match", pg.Header.Get("ETag"))
		if again.Status != http.StatusNotModified {
			t.Errorf("%s revalidated: %d", file, again.Status)
		}
	}
	if pg := get(t, p, "/static/nothing.js"); pg.Status != 404 {
		t.Fatalf("unknown asset: %d", pg.Status)
	}
}

// TestEventsFollowTheJournal: the event stream names the newest journal
// entry at once and at every new request, and ends when the platform
// closes (goleak checks its goroutine is gone).
func TestEventsFollowTheJournal(t *testing.T) {
	t.Parallel()
	p, err := mockplatform.New()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/_mock/ui/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	events := bufio.NewReader(resp.Body)
	next := func() string {
		t.Helper()
		var lines []string
		for {
			line, err := events.ReadString('\n')
			if err != nil {
				t.Fatalf("read event: %v (so far %q)", err, lines)
			}
			line = strings.TrimSuffix(line, "\n")
			if line == "" {
				if len(lines) > 0 && !strings.HasPrefix(lines[0], "retry:") {
					return strings.Join(lines, "|")
				}
				lines = nil
				continue
			}
			lines = append(lines, line)
		}
	}
	if got := next(); got != "event: journal|data: 0" {
		t.Fatalf("first event %q", got)
	}
	do(t, "POST", srv.URL+"/runtime/us-1/v1/acme/support/chat/create", "{}", chatHeaders...)
	if got := next(); got != "event: journal|data: 1" {
		t.Fatalf("after a request: %q", got)
	}
	if err := p.Reset(); err != nil { // the journal empties
		t.Fatal(err)
	}
	if got := next(); got != "event: journal|data: 0" {
		t.Fatalf("after a reset: %q", got)
	}
	p.Close()
	if line, err := events.ReadString('\n'); err == nil {
		t.Fatalf("the stream goes on after Close: %q", line)
	}
}

// TestServesUnderAPrefix: every link, form address and asset of every
// page is relative, so the console works where a world serves it
// ({base}/w/{id}/_mock/ui). A platform mounted under a prefix is crawled:
// every address a page names answers.
func TestServesUnderAPrefix(t *testing.T) {
	t.Parallel()
	p, err := mockplatform.New(mockplatform.WithoutListener())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	const prefix = "/w/0123abcd"
	srv := httptest.NewServer(http.StripPrefix(prefix, p))
	t.Cleanup(srv.Close)
	do(t, "POST", srv.URL+prefix+"/runtime/us-1/v1/acme/support/chat/create", "{}", chatHeaders...)
	href := regexp.MustCompile(`(?:href|src)="([^"]*)"`)
	seen := map[string]bool{}
	queue := []string{srv.URL + prefix + "/_mock/ui/"}
	for len(queue) > 0 && len(seen) < 200 {
		u := queue[0]
		queue = queue[1:]
		if seen[u] {
			continue
		}
		seen[u] = true
		pg := do(t, "GET", u, nil)
		if pg.Status != 200 {
			t.Errorf("%s: %d", u, pg.Status)
			continue
		}
		if !strings.HasPrefix(pg.Header.Get("Content-Type"), "text/html") {
			continue
		}
		base, _ := http.NewRequest("GET", u, nil)
		for _, m := range href.FindAllStringSubmatch(pg.Body, -1) {
			ref := strings.ReplaceAll(m[1], "&amp;", "&")
			if strings.HasPrefix(ref, "/") || strings.Contains(ref, "://") {
				t.Errorf("%s links to %q: not relative", u, ref)
				continue
			}
			target, err := base.URL.Parse(ref)
			if err != nil {
				t.Errorf("%s: bad link %q", u, ref)
				continue
			}
			target.Fragment = ""
			if !strings.HasPrefix(target.Path, prefix+"/_mock/") {
				t.Errorf("%s: %q leaves the prefix: %s", u, ref, target.Path)
				continue
			}
			if strings.HasPrefix(target.Path, prefix+"/_mock/ui/") || target.Path == prefix+"/_mock/scenario" {
				queue = append(queue, target.String())
			}
		}
	}
	for _, want := range []string{"/_mock/ui/conversations", "/_mock/ui/requests", "/_mock/ui/faults", "/_mock/ui/alerts",
		"/_mock/ui/calls", "/_mock/ui/scenario", "/_mock/scenario", "/_mock/ui/static/console.js"} {
		found := false
		for u := range seen {
			found = found || strings.Contains(u, prefix+want)
		}
		if !found {
			t.Errorf("the crawl never reached %s", want)
		}
	}
}

// TestCoveragePage: the coverage page shows the totals, a bar per family
// with its share, and what was never exercised, most often got wrong
// first; it follows a clear.
func TestCoveragePage(t *testing.T) {
	t.Parallel()
	p := mockplatform.Start(t)
	chat(t, p, "what are your hours?")
	rep := p.Coverage()
	var chatRow string
	for _, f := range rep.Families {
		if f.Name == "chat" {
			all := f.Totals.Operations.Covered + f.Totals.Statuses.Covered + f.Totals.Codes.Covered +
				f.Totals.Transitions.Covered + f.Totals.ClockEvents.Covered + f.Totals.Presets.Covered
			total := f.Totals.Operations.Total + f.Totals.Statuses.Total + f.Totals.Codes.Total +
				f.Totals.Transitions.Total + f.Totals.ClockEvents.Total + f.Totals.Presets.Total
			chatRow = fmt.Sprintf(`<meter min="0" max="100" value="%d" aria-label="chat: %d%% of %d items exercised">`, all*100/total, all*100/total, total)
		}
	}
	pg := get(t, p, "/coverage")
	pg.mustContain(t, chatRow, "<th scope=\"row\">operations</th><td class=\"num\">2</td>",
		"<li><span class=\"badge rank-"+fmt.Sprint(rep.NeverExercised[0].Rank)+"\">", rep.NeverExercised[0].Text)
	if r := control(t, p, "DELETE", "/coverage", nil); r.Status != 204 {
		t.Fatalf("DELETE /_mock/coverage: %d %s", r.Status, r.Body)
	}
	get(t, p, "/coverage").mustContain(t, "<th scope=\"row\">operations</th><td class=\"num\">0</td>")
}

// TestVoicesPagePending: an entry whose synthesis has not ended shows
// when it will, and the voices an account owns are listed as its own.
func TestVoicesPagePending(t *testing.T) {
	t.Parallel()
	p := mockplatform.Start(t)
	if _, err := p.Dial("+14155550150", ""); err != nil {
		t.Fatal(err)
	}
	do(t, "POST", p.BuilderURL("us")+"/v1/accounts/acme/voice-library", map[string]any{"name": "Nova", "provider": "ELEVENLABS",
		"providerVoiceId": "21m00Tcm4TlvDq8ikWAM", "config": map[string]any{}}, "x-api-key", "test-builder-key")
	get(t, p, "/voices").mustContain(t, "pending until 2026-01-01 00:00:01", "google en-US-Neural2-A", "Nova", "the account's")
	p.Advance(time.Second)
	get(t, p, "/voices").mustContain(t, "ready since 2026-01-01 00:00:01")
}
