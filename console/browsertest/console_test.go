package browsertest

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/agentplatform/mockplatform"
)

// TestConsoleSession drives every page of the console through the session
// of a tester watching a client under test: chats come in (one of them
// hostile, one with a misspelt field), the clock advances, a fault rule
// is added from a preset and field by field and fires, an alert rule
// fires and its webhook is delivered (and retried), a reserved number is
// dialled, a messaging session expired, the coverage report read and
// cleared, a scenario with errors is validated and a good one loaded. Each step asserts what the page shows;
// the tester moves by keyboard as well as by mouse; every page is checked
// for contrast and, with MOCKD_UPDATE_SCREENSHOTS=1, photographed into
// docs/img for docs/console.md.
func TestConsoleSession(t *testing.T) {
	p := mockplatform.Start(t)
	hostile := chat(t, p, nil, `<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"> order #123`, "I want a human")
	chat(t, p, map[string]any{"channel": "webchat"}, "what are your hours")
	chat(t, p, map[string]any{"chanel": "webchat"}) // misspelt: served, and linted
	s := newSession(t, p)

	// The steps run in order on one tab; each stops the session when it
	// fails, as the next relies on it.
	for _, step := range []struct {
		name string
		run  func(*session)
	}{
		{"overview", overview},
		{"conversations", func(s *session) { conversations(s, hostile) }},
		{"requests", requests},
		{"faults", faultRules},
		{"alerts", alerts},
		{"calls", calls},
		{"coverage", coveragePage},
		{"scenario", scenarioPage},
	} {
		if !t.Run(step.name, func(t *testing.T) {
			s.t = t
			step.run(s)
		}) {
			return
		}
	}
}

// overview: the clock and its controls (by mouse and by keyboard), the
// counts per family, the recent errors; the skip link.
func overview(s *session) {
	t := s.t
	s.open("")
	s.waitText("h1", "Overview")
	s.waitText("#clock", "2026-01-01 00:00:00")
	s.waitText("#families", "3 conversations")

	// The first Tab reaches the skip link, drawn with its focus ring;
	// Enter moves to the content.
	s.do(chromedp.KeyEvent(kb.Tab))
	if f := s.focused(); f.Text != "Skip to content" || !f.Outline {
		t.Fatalf("first Tab: %+v, want the skip link with a visible focus", f)
	}
	s.do(chromedp.KeyEvent(kb.Enter))
	if f := s.focused(); f.Tag != "main" {
		t.Fatalf("after the skip link: focus on %+v, want main", f)
	}

	s.click(`button[name="duration"][value="1m"]`)
	s.status("Clock advanced to 2026-01-01T00:01:00Z.")
	s.waitText("#clock", "2026-01-01 00:01:00")
	s.waitText("#clock-now", "2026-01-01 00:01:00 UTC")

	// A custom duration typed and sent with Enter.
	s.fill("#advance-custom", "90s")
	s.press(kb.Enter)
	s.status("Clock advanced to 2026-01-01T00:02:30Z.")
	s.waitText("#clock", "2026-01-01 00:02:30")
	if now := p(s).Now(); !now.Equal(time.Date(2026, 1, 1, 0, 2, 30, 0, time.UTC)) {
		t.Fatalf("the platform's clock: %v", now)
	}
	// A bad one: the control plane's message, and nothing moves.
	s.fill("#advance-custom", "soon")
	s.press(kb.Enter)
	s.status("Failed: duration must be a non-negative Go duration")
	s.waitText("#clock", "2026-01-01 00:02:30")

	// An error answer of the emulated API shows in the recent errors.
	api(t, "GET", p(s).RuntimeURL("us-1")+"/v3/acme/support/conversations", nil, "x-api-key", "wrong-key")
	s.waitText("#recent-errors", "/runtime/us-1/v3/acme/support/conversations") // live: no reload
	s.waitText("#recent-errors", "401")
	s.checkContrast("overview")
	s.shot("overview")
}

func p(s *session) *mockplatform.Platform { return s.p }

// conversations: reached by keyboard from the navigation; the list, a
// filter, and the transcript of the hostile conversation (inert), its
// handoff and handoff state.
func conversations(s *session, hostile string) {
	t := s.t
	s.open("")
	for range 4 { // skip link, brand, Overview, Conversations
		s.do(chromedp.KeyEvent(kb.Tab))
	}
	if f := s.focused(); f.Text != "Conversations" || !f.Outline {
		t.Fatalf("fourth Tab: %+v, want the Conversations link with a visible focus", f)
	}
	if _, err := chromedp.Run(s.ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.KeyEvent(kb.Enter))); err != nil {
		t.Fatal(err)
	}
	s.waitText("h1", "Conversations")
	s.waitText("#conversation-list", hostile)
	s.waitText("#conversation-list", "live_agent_queue")
	if n := eval[int](s, `document.querySelectorAll('#conversation-list tbody tr').length`); n != 3 {
		t.Fatalf("%d conversations listed, want 3", n)
	}
	s.checkContrast("conversations")
	s.shot("conversations")

	// Only WEBCHAT: one conversation.
	s.click(`input[name="channel"][value="WEBCHAT"]`)
	if _, err := chromedp.Run(s.ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(chromedp.CSS(`form.filters button[type="submit"]`)))); err != nil {
		t.Fatal(err)
	}
	if n := eval[int](s, `document.querySelectorAll('#conversation-list tbody tr').length`); n != 1 ||
		strings.Contains(s.text("#conversation-list"), hostile) {
		t.Fatalf("WEBCHAT filter lists %d: %s", n, s.text("#conversation-list"))
	}
	if !eval[bool](s, `document.querySelector('input[name="channel"][value="WEBCHAT"]').checked && location.search.includes('channel=WEBCHAT')`) {
		t.Fatal("the filter does not keep its value")
	}

	// A third party's event binds to the conversation.
	if status, out := api(t, "POST", p(s).RuntimeURL("us-1")+"/v1/external-events/webhook?event_id_location=payload&event_id_path=ref&account_id=acme&project_id=support",
		map[string]string{"ref": hostile, "payment": "received"}, "X-Api-Key", "test-external-events-key"); status != 201 {
		t.Fatalf("external event: %d %v", status, out)
	}

	// The transcript: the hostile message shows as text and never runs.
	s.open("conversations/" + hostile)
	s.waitText("#events", `"payment": "received"`)
	s.waitText("#turns", `<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"> order #123`)
	s.waitText("#turns", "Thanks, I found order 123.")
	if eval[bool](s, `window.pwned !== undefined || document.querySelectorAll('main script, main img').length > 0`) {
		t.Fatal("the hostile message became markup")
	}
	s.waitText("#turns", "Latency 800ms")
	s.waitText("#turns", "order_status")
	s.waitText("#handoff", "live_agent_queue")
	s.waitText("#handoff", "customer_request")
	s.waitText("#handoff", `"last_message": "I want a human"`)
	s.click(`button[name="kind"][value="function_error"]`)
	s.status("Recorded a function_error.")
	s.waitText("#record", "Function errors\n1")
	s.checkContrast("transcript")
	s.shot("transcript")
}

// requests: the journal, a warning highlighted and opened by keyboard,
// redaction, a request arriving while the page is open, a filter.
func requests(s *session) {
	t := s.t
	s.open("requests")
	s.waitText("#journal", "/runtime/us-1/v1/acme/support/chat/create")
	if n := eval[int](s, `document.querySelectorAll('.entry.warn').length`); n != 1 {
		t.Fatalf("%d entries with warnings, want 1", n)
	}
	s.waitText(".entry.warn summary", "1 warning")
	s.focus(".entry.warn > summary")
	s.press(kb.Enter)
	s.waitText(".entry.warn", `unknown field "chanel" in request body (ignored, as the real service does)`)
	s.waitText(".entry.warn", "X-Api-Key\t[REDACTED]")
	s.waitText(".entry.warn", `"chanel": "webchat"`)

	// A client request while the page is open shows up without a reload;
	// the entry opened stays open, and keeps the focus.
	before := eval[int](s, `document.querySelectorAll('.entry').length`)
	chat(t, p(s), nil, "hours")
	if _, err := chromedp.Run(s.ctx, chromedp.Poll[bool](`document.querySelectorAll('.entry').length === `+strconv.Itoa(before+2),
		chromedp.WithPollingTimeout(waitFor))); err != nil {
		t.Fatalf("the new requests never showed: %v (%d entries)", err, eval[int](s, `document.querySelectorAll('.entry').length`))
	}
	if !eval[bool](s, `document.querySelector('.entry.warn').open && document.activeElement === document.querySelector('.entry.warn > summary')`) {
		t.Fatal("the refresh closed the open entry or lost the focus")
	}
	s.checkContrast("requests")
	s.shot("requests")

	s.fill("#r-path", "/chat/respond")
	if _, err := chromedp.Run(s.ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.KeyEvent(kb.Enter))); err != nil {
		t.Fatal(err)
	}
	s.waitText("#journal", "(4 of 4 shown")
}

// faultRules: a preset added from the list, a rule added field by field
// that the client then hits, a bad rule refused, a rule removed.
func faultRules(s *session) {
	t := s.t
	s.open("faults")
	s.waitText("#rules", "No fault rule")
	s.do(chromedp.SetValue(chromedp.CSS("#p-preset"), "outbound.outcome"))
	s.fill("#p-arg", "busy")
	s.click(`form[data-compose="preset"] button[type="submit"]`)
	s.status("Added fault rule fault-1.")
	s.waitText("#rules", "preset outbound.outcome:busy")
	s.waitText("#rules", "outbound")

	s.do(chromedp.SetValue(chromedp.CSS("#m-family"), "chat"))
	s.fill("#m-path", "/v1/*/*/chat/respond")
	s.fill("#a-status", "503")
	s.fill("#a-code", "CHAT_TIMEOUT")
	s.fill("#l-times", "1")
	s.click(`form:has(#a-status) button[type="submit"]`)
	s.status("Added fault rule fault-2.")
	s.waitText("#rules", "answer 503 CHAT_TIMEOUT")

	id := chat(t, p(s), nil)
	if status, _ := api(t, "POST", p(s).RuntimeURL("us-1")+"/v1/acme/support/chat/respond",
		map[string]any{"conversation_id": id, "message": "hi"}, chatHeaders...); status != 503 {
		t.Fatalf("the rule did not fire: %d", status)
	}
	s.open("faults")
	s.waitText("#rules", "used up")
	if row := s.text(`#rules tbody tr:nth-child(2)`); !has(row, "fault-2", "\t1\t1\t") {
		t.Fatalf("fault-2 row: %q, want matched 1 and fired 1", row)
	}

	s.fill("#j-rule", `{"match": {"family": "nope"}, "action": {"status": 500}}`)
	s.click(`form:has(#j-rule) button[type="submit"]`)
	s.waitText(`form[data-body="raw"] [data-error]`, `faults: match.family: "nope" is not a family`)
	s.checkContrast("faults")
	s.shot("faults")

	s.click(`button[aria-label="Remove rule fault-1"]`)
	s.status("Removed fault rule fault-1.")
	s.waitGone(`button[aria-label="Remove rule fault-1"]`)
	if len(p(s).Faults()) != 1 {
		t.Fatalf("faults after the removal: %+v", p(s).Faults())
	}
}

// alerts: a rule fires on the virtual clock; its timeline, the active
// alert, the deliveries to a receiver and the retries of a failing one.
func alerts(s *session) {
	t := s.t
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(ok.Close)
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
	t.Cleanup(failing.Close)
	builder := []string{"x-api-key", "test-builder-key"}
	for _, ep := range []map[string]any{
		{"name": "ops", "url": ok.URL + "/hooks", "event_types": []string{"alerts.triggered", "alerts.resolved"}, "headers": map[string]string{"X-Team": "ops"}},
		{"name": "pager", "url": failing.URL + "/page", "event_types": []string{"alerts.triggered"}},
	} {
		if status, out := api(t, "POST", p(s).BuilderURL("us")+"/v1/webhook-endpoints", ep, builder...); status != 201 {
			t.Fatalf("webhook endpoint: %d %v", status, out)
		}
	}
	if status, out := api(t, "POST", p(s).BuilderURL("us")+"/v1/alert-rules", map[string]any{"name": "Busy support",
		"project_id": "support", "metric": "call_volume", "operator": ">=", "threshold_value": 3, "window_duration": "5m"}, builder...); status != 201 {
		t.Fatalf("alert rule: %d %v", status, out)
	}
	s.open("alerts")
	s.waitText("#alert-rules", "Busy support")
	s.waitText("#active-alerts", "No rule is in the alert state.")
	s.click(`button[name="duration"][value="1m"]`)
	s.status("Clock advanced to 2026-01-01T00:03:30Z.")
	s.waitText("#alert-rules .rule h3", "alert")
	s.waitText("#active-alerts", "Busy support")
	s.waitText("#active-alerts", "call_volume >= 3")
	label := eval[string](s, `document.querySelector('#alert-rules svg').getAttribute('aria-label')`)
	if !has(label, "State over time: ok from 2026-01-01 00:02:30, then alert from 2026-01-01 00:03:00") {
		t.Fatalf("timeline: %q", label)
	}
	// The attempts ran inside the advance: the log is complete.
	s.open("alerts")
	s.waitText("#deliveries", "alerts.triggered")
	s.waitText("#deliveries", "200 delivered")
	s.waitText("#deliveries", "503")
	s.waitText("#deliveries", "2026-01-01 00:04:00 (in 30s)") // the failing endpoint's retry, a minute later
	s.waitText("#endpoints", "X-Team")
	s.do(chromedp.Click(chromedp.CSS(`#alert-rules details summary`)))
	s.waitText("#alert-rules details", "ok\t2026-01-01 00:02:30\t2026-01-01 00:03:00")
	s.click(`form[data-path="alerts/evaluate"] button`)
	s.status("Evaluated the alert rules at 2026-01-01T00:03:30Z.")
	s.checkContrast("alerts")
	s.shot("alerts")
}

// calls: a reserved number dialled from the page, the caller speaks and
// hangs up; an outbound call's timeline; a messaging session expired.
func calls(s *session) {
	t := s.t
	status, out := api(t, "POST", p(s).RuntimeURL("us-1")+"/v1/conversations/dni-reservation",
		map[string]any{"attributes": map[string]any{"customer": "Ada"}}, "x-api-key", "test-dni-key")
	if status != 200 {
		t.Fatalf("reservation: %d %v", status, out)
	}
	number := out["dni"].(string)
	if status, out := api(t, "POST", p(s).RuntimeURL("us-1")+"/v1/outbound-calling", map[string]any{"to_number": "+14155552671"},
		"X-Service-Auth-Token", "test-outbound-token"); status != 200 {
		t.Fatalf("outbound call: %d %v", status, out)
	}
	status, out = api(t, "POST", p(s).MessagingURL()+"/api/v1/access-token", nil, "X-Token", "test-connector-token", "X-Host", "localhost")
	if status != 200 {
		t.Fatalf("access token: %d %v", status, out)
	}
	status, out = api(t, "POST", p(s).MessagingURL()+"/api/v1/sessions", map[string]any{"streaming_enabled": true},
		"Authorization", "Bearer "+out["access_token"].(string))
	if status != 200 {
		t.Fatalf("session: %d %v", status, out)
	}
	sessionID := out["session_id"].(string)

	s.open("calls")
	s.waitText("#reservations", number)
	s.waitText("#outbound", "+14155552671")
	s.waitText("#outbound", "queued")
	s.waitText("#sessions", sessionID)
	s.fill("#dial-number", number)
	s.fill("#dial-from", "+14155550199")
	s.press(kb.Enter)
	s.status("started. The agent says: Hi, how can I help you today?")
	s.waitText("#voice-calls", "+14155550199 → "+number)
	call := eval[string](s, `document.querySelector('#voice-calls tbody th a').innerText`)

	// The caller speaks on the call's page, then hangs up.
	s.open("conversations/" + call)
	s.fill("#say-text", "order #123")
	s.press(kb.Enter)
	s.status("The agent answered: Thanks, I found order 123.")
	s.waitText("#turns", "order #123")
	s.click(`form[data-path$="/hangup"] button`)
	s.status("The caller hung up.")
	s.waitText("#record", "ended")

	p(s).Advance(time.Minute) // the outbound call is answered and ends
	s.open("calls")
	s.waitText("#outbound", "success")
	s.waitText("#outbound", "ends: success 2026-01-01 00:04:05")
	s.checkContrast("calls")
	s.shot("calls")

	s.click(`button[aria-label="Expire session ` + sessionID + `"]`)
	s.status("Session " + sessionID + " expired.")
	s.waitText("#sessions", "No live messaging session.")
}

// coveragePage: the totals, a bar per family, what was never exercised
// (most often got wrong first, as the report orders it), kept live as
// requests come, and cleared from the page.
func coveragePage(s *session) {
	t := s.t
	rep := p(s).Coverage()
	s.open("coverage")
	s.waitText("h1", "Coverage")
	s.waitText("#coverage-families", "chat")
	if n := eval[int](s, `document.querySelectorAll('#coverage-families meter').length`); n != len(rep.Families) {
		t.Fatalf("%d bars, want one per family (%d)", n, len(rep.Families))
	}
	if v := eval[string](s, `document.querySelector('#coverage-families meter[aria-label^="chat:"]').getAttribute('value')`); v == "0" || v == "" {
		t.Fatalf("chat's bar shows %q, want its share", v)
	}
	first := eval[string](s, `document.querySelector('#coverage-never li').innerText`)
	if !has(first, rep.NeverExercised[0].Text) {
		t.Fatalf("first never exercised: %q, want %q", first, rep.NeverExercised[0].Text)
	}
	covered := func() string {
		return eval[string](s, `document.querySelector('#coverage-totals tbody tr td').innerText`)
	}
	before := covered()
	// An operation no one called yet: the page follows without a reload.
	api(t, "GET", p(s).RuntimeURL("us-1")+"/v1/acme/support/handoff_state?id=nope", nil, "x-api-key", "test-handoff-key")
	want := strconv.Itoa(p(s).Coverage().Totals.Operations.Covered)
	if want == before {
		t.Fatalf("the call covered nothing new (%s operations)", before)
	}
	s.waitText("#coverage-totals tbody tr td", want)
	s.checkContrast("coverage")
	s.shot("coverage")

	s.click(`form[data-path="coverage"] button`)
	s.status("Coverage cleared.")
	s.waitText("#coverage-totals tbody tr td", "0")
	if got := p(s).Coverage().Totals.Operations.Covered; got != 0 {
		t.Fatalf("after the page's clear: %d operations covered", got)
	}
}

// scenarioPage: a scenario with errors is validated (each problem at its
// line and column, a button that selects the place), refused on load; a
// file is opened and loaded; the overview's reset asks first.
func scenarioPage(s *session) {
	t := s.t
	s.open("scenario")
	bad := "name: broken\nbogus: 1\naccounts:\n  - slug: a\n    id: \"1\"\n    region: mars\n"
	s.do(chromedp.SetValue(chromedp.CSS("#scenario-yaml"), bad))
	s.click("[data-scenario-validate]")
	s.status("2 problems: the scenario cannot be loaded.")
	s.waitText("#scenario-result", "2 problems: the scenario cannot be loaded.")
	s.waitText("#scenario-problems", "Line 2, column 1: bogus: unknown field")
	s.waitText("#scenario-problems", `Line 6, column 13: accounts[0].region: unknown region "mars" (want us, uk or eu)`)
	s.focus("#scenario-problems li:nth-child(2) button")
	s.press(kb.Enter)
	if got := eval[[]int](s, `(() => { const e = document.activeElement; return e.id === 'scenario-yaml' ? [e.selectionStart, e.selectionEnd] : [] })()`); len(got) != 2 ||
		got[0] != strings.Index(bad, "mars") || got[1] != strings.Index(bad, "mars")+len("mars") {
		t.Fatalf("the problem selected %v, want line 6 from column 13 (%d)", got, strings.Index(bad, "mars"))
	}
	if eval[string](s, `document.getElementById('scenario-yaml').getAttribute('aria-invalid')`) != "true" {
		t.Fatal("the editor is not marked invalid")
	}
	s.checkContrast("scenario")
	s.shot("scenario")

	s.click("[data-scenario-load]")
	s.status("2 problems: the scenario cannot be loaded.")
	if name := p(s).Scenario().Name; name != "default" {
		t.Fatalf("a bad scenario was loaded: %q", name)
	}

	file, err := filepath.Abs(filepath.Join("..", "..", "fixtures", "support-bot.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s.clearStatus()
	s.do(chromedp.SetUploadFiles(chromedp.CSS("#scenario-file"), []string{file}))
	s.status("Opened support-bot.yaml")
	s.click("[data-scenario-load]")
	s.waitText("#scenario-result", "Loaded scenario “support-bot”: the platform was reset to its initial state.")
	s.waitText("#facts", "support-bot")
	s.waitText("#facts", "2026-03-02 09:00:00")
	if name := p(s).Scenario().Name; name != "support-bot" {
		t.Fatalf("scenario in force: %q", name)
	}

	// Reset asks first (the test's browser accepts).
	p(s).Advance(time.Hour)
	s.open("")
	s.click(`form[data-path="reset"] button`)
	s.status("Reset: the clock is back at 2026-03-02T09:00:00Z.")
}

// TestConsoleSignIn: with a control token, the browser signs in with the
// token as its password (HTTP Basic), and the pages and their calls work.
func TestConsoleSignIn(t *testing.T) {
	p := mockplatform.Start(t, mockplatform.WithControlToken("s3cret-token"))
	s := newSession(t, p, "tester", "s3cret-token")
	s.open("requests")
	s.waitText("h1", "Requests")
	chat(t, p, nil)
	s.waitText("#journal", "/v1/acme/support/chat/create") // the event stream signed in too
	s.open("")
	s.click(`button[name="duration"][value="1h"]`)
	s.status("Clock advanced to 2026-01-01T01:00:00Z.")
	if !p.Now().Equal(time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)) {
		t.Fatalf("clock: %v", p.Now())
	}
}

// TestContrastCheck: the contrast check of the other tests finds text too
// faint for its background (so that its silence means something).
func TestContrastCheck(t *testing.T) {
	p := mockplatform.Start(t)
	s := newSession(t, p)
	s.open("")
	if bad := eval[[]string](s, contrastScript); len(bad) != 0 {
		t.Fatalf("the overview: %v", bad)
	}
	eval[bool](s, `(document.querySelector('h1').style.color = '#aaaaaa', true)`)
	bad := eval[[]string](s, contrastScript)
	if len(bad) != 1 || !has(bad[0], `h1 "Overview": 2.32:1`) {
		t.Fatalf("faint heading: %v", bad)
	}
}
