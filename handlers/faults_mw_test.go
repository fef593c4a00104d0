package handlers

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/faults"
)

// The fault middleware (docs/api.md#control-faults): a matched rule answers
// with a status in the family's error body or a given body, adds headers,
// delays on the real or virtual clock, drops the connection; counters (after,
// times, probability) decide when it fires; every hit is journaled.

// mwFamily is a test family with one route, "METHOD /path" below fam's
// base, in fam's name and error shape with no credential check (the
// family's credentials are dropped): fault rules apply as on any route.
// newHarnessFamilies serves it.
func mwFamily(fam *Family, pattern string, fn func(c *gin.Context) error) *Family {
	return &Family{Name: fam.Name, Base: fam.Base, Shape: fam.Shape,
		Routes: []Route{route(pattern, func(_ *API, c *gin.Context) error { return fn(c) }, &Op{ID: "test"})}}
}

// mwOK answers 200 {"ok":true}.
func mwOK(c *gin.Context) error {
	c.JSON(http.StatusOK, gin.H{"ok": true})
	return nil
}

// mwAdd adds a fault rule or fails.
func (h *harness) mwAdd(r faults.Rule) faults.Rule {
	h.t.Helper()
	added, err := h.faults.Add(r)
	if err != nil {
		h.t.Fatalf("AddFault: %v", err)
	}
	return added
}

// mwCreate is a chat create with the default credentials.
func (h *harness) mwCreate() response {
	h.t.Helper()
	return h.do("POST", chatBase+"/create", nil, chatHeaders...)
}

func TestFaultStatusInFamilyBody(t *testing.T) {
	t.Parallel()
	// One test route per error shape (the real routes of most families
	// belong to other files); chat uses its real route.
	routes := []struct {
		family *Family
		path   string // request path
	}{
		{famAgents, "/builder/us/fault-test/agents"},
		{famConcurrency, "/runtime/us-1/fault-test/concurrency"},
		{famDNI, "/runtime/us-1/fault-test/dni"},
		{famOutbound, "/runtime/us-1/fault-test/outbound"},
		{famMessaging, "/messaging/fault-test/messaging"},
	}
	var test []*Family
	for _, r := range routes {
		test = append(test, mwFamily(r.family, "POST /fault-test/"+r.family.Name, mwOK))
	}
	h := newHarnessFamilies(t, test...)
	for _, tc := range []struct {
		name   string
		path   string
		hdrs   []string
		action faults.Action
		status int
		body   func(r response) any
	}{
		{"chat envelope", chatBase + "/create", chatHeaders, faults.Action{Status: 503, Code: "X_DOWN", Message: "down"}, 503,
			func(r response) any { return envelopeBody(r, "X_DOWN", "down") }},
		{"chat defaults", chatBase + "/create", chatHeaders, faults.Action{Status: 504}, 504,
			func(r response) any { return envelopeBody(r, "GATEWAY_TIMEOUT", "Gateway Timeout.") }},
		{"chat status without a default code", chatBase + "/create", chatHeaders, faults.Action{Status: 418}, 418,
			func(r response) any { return envelopeBody(r, "ERROR", "I'm a teapot.") }},
		{"builder", "/builder/us/fault-test/agents", nil, faults.Action{Status: 503, Code: "X_DOWN", Message: "down"}, 503,
			func(response) any { return builderError{Message: "down", Errors: []FieldError{}} }},
		{"error_message", "/runtime/us-1/fault-test/concurrency", nil, faults.Action{Status: 503, Message: "down"}, 503,
			func(response) any { return map[string]any{"error_message": "down"} }},
		{"dni", "/runtime/us-1/fault-test/dni", nil, faults.Action{Status: 503, Message: "down"}, 503,
			func(response) any {
				return map[string]any{"success": false, "error": "Service Unavailable", "message": "down"}
			}},
		{"outbound", "/runtime/us-1/fault-test/outbound", nil, faults.Action{Status: 503, Code: "X_DOWN", Message: "down"}, 503,
			func(response) any { return map[string]any{"error": "down", "code": "X_DOWN"} }},
		{"messaging", "/messaging/fault-test/messaging", nil, faults.Action{Status: 502}, 502,
			func(response) any { return map[string]any{"error": "Bad Gateway.", "message": "Bad Gateway."} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.faults.Clear()
			rule := h.mwAdd(faults.Rule{Match: faults.Match{Path: subPath(tc.path)}, Action: tc.action})
			before := h.storeLen()
			r := h.do("POST", tc.path, nil, tc.hdrs...)
			mustStatus(t, r, tc.status)
			mustBody(t, r, tc.body(r))
			if r.Header.Get(CorrelationHeader) == "" {
				t.Error("no correlation id on a fault answer")
			}
			if n := h.storeLen(); n != before {
				t.Errorf("store %d -> %d records: the handler ran", before, n)
			}
			all := h.journalAll()
			if e := all[len(all)-1]; e.Fault != rule.ID || e.Status != tc.status {
				t.Errorf("journal entry fault %q status %d, want %q %d", e.Fault, e.Status, rule.ID, tc.status)
			}
		})
	}
}

func TestFaultGivenBodyAndHeaders(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mwAdd(faults.Rule{Match: faults.Match{Family: "chat"}, Times: 1,
		Action: faults.Action{Status: 429, Body: `{"detail":"slow down"}`, Headers: map[string]string{"Retry-After": "5", "X-Extra": "1"}}})
	h.mwAdd(faults.Rule{Match: faults.Match{Family: "chat"}, Times: 1, Action: faults.Action{Body: `[1,2]`}})
	h.mwAdd(faults.Rule{Match: faults.Match{Family: "chat"}, Times: 1,
		Action: faults.Action{Status: 503, Headers: map[string]string{"Retry-After": "30"}}})

	r := h.mwCreate()
	mustStatus(t, r, http.StatusTooManyRequests)
	if string(r.Body) != `{"detail":"slow down"}` {
		t.Errorf("body = %s, want the given body verbatim", r.Body)
	}
	for name, want := range map[string]string{"Retry-After": "5", "X-Extra": "1", "Content-Type": "application/json"} {
		if got := r.Header.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	r = h.mwCreate()
	mustStatus(t, r, http.StatusInternalServerError) // a body with no status: 500
	if string(r.Body) != `[1,2]` {
		t.Errorf("body = %s", r.Body)
	}
	r = h.mwCreate()
	mustStatus(t, r, http.StatusServiceUnavailable)
	mustBody(t, r, envelopeBody(r, "SERVICE_UNAVAILABLE", "Service Unavailable."))
	if r.Header.Get("Retry-After") != "30" {
		t.Errorf("Retry-After = %q", r.Header.Get("Retry-After"))
	}
	mustStatus(t, h.mwCreate(), http.StatusOK) // all three used up
}

func TestFaultOrderAgainstRegionAndAuth(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mwAdd(faults.Rule{Match: faults.Match{Family: "chat"}, Action: faults.Action{Status: 503}})
	// A bad region is refused before fault rules (the address is wrong).
	r := h.do("POST", "/runtime/mars/v1/acme/support/chat/create", nil, chatHeaders...)
	mustStatus(t, r, http.StatusNotFound)
	// Fault rules apply before authentication: a request with no
	// credentials meets the fault, as a failing upstream would answer it.
	r = h.do("POST", chatBase+"/create", nil)
	mustStatus(t, r, http.StatusServiceUnavailable)
	if st := h.faults.List()[0]; st.Matched != 1 || st.Fired != 1 {
		t.Fatalf("counters = %+v", st)
	}
}

func TestFaultRealDelay(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const d = 80 * time.Millisecond
	h.mwAdd(faults.Rule{ID: "slow", Match: faults.Match{Family: "chat"}, Action: faults.Action{Delay: clock.Duration(d)}, Times: 1})
	h.mwAdd(faults.Rule{ID: "slow-fail", Match: faults.Match{Family: "chat"}, Times: 1,
		Action: faults.Action{Delay: clock.Duration(d), DelayClock: "real", Status: 504}})
	now := h.clock.Now()

	start := time.Now()
	r := h.mwCreate() // a pure delay: then handled normally
	if el := time.Since(start); el < d {
		t.Errorf("answered after %v, want at least %v", el, d)
	}
	mustStatus(t, r, http.StatusOK)
	start = time.Now()
	r = h.mwCreate()
	if el := time.Since(start); el < d {
		t.Errorf("answered after %v, want at least %v", el, d)
	}
	mustStatus(t, r, http.StatusGatewayTimeout)
	if !h.clock.Now().Equal(now) {
		t.Errorf("a real delay moved the virtual clock to %v", h.clock.Now())
	}
	var faultsSeen []string
	for _, e := range h.journalAll() {
		faultsSeen = append(faultsSeen, e.Fault)
	}
	if diff := cmp.Diff([]string{"slow", "slow-fail"}, faultsSeen); diff != "" {
		t.Errorf("journal faults (-want +got):\n%s", diff)
	}

	// A client that goes away (or a server that shuts down) ends the
	// delay at once: the request is dropped and the handler does not run.
	h.mwAdd(faults.Rule{Match: faults.Match{Family: "chat"}, Action: faults.Action{Delay: clock.Duration(time.Hour)}})
	before := h.storeLen()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest("POST", chatBase+"/create", nil).WithContext(ctx)
	for i := 0; i < len(chatHeaders); i += 2 {
		req.Header.Set(chatHeaders[i], chatHeaders[i+1])
	}
	done := make(chan any)
	go func() {
		defer func() { done <- recover() }()
		h.handler().ServeHTTP(httptest.NewRecorder(), req)
	}()
	select {
	case v := <-done:
		if err, _ := v.(error); !errors.Is(err, http.ErrAbortHandler) {
			t.Errorf("a cancelled request was not dropped (recovered %v)", v)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled request stayed in its delay")
	}
	if n := h.storeLen(); n != before {
		t.Errorf("the handler ran for a cancelled request")
	}
}

func TestFaultVirtualDelay(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	start := h.clock.Now()
	var fired time.Time
	h.clock.AfterFunc(time.Minute, func(now time.Time) { fired = now })
	h.mwAdd(faults.Rule{ID: "slow", Match: faults.Match{Family: "chat", Method: "POST"},
		Action: faults.Action{Delay: clock.Duration(5 * time.Minute), DelayClock: "virtual"}, Times: 1})

	wall := time.Now()
	r := h.mwCreate()
	mustStatus(t, r, http.StatusOK)
	if el := time.Since(wall); el > 5*time.Second {
		t.Errorf("a virtual delay took %v of wall time", el)
	}
	if want := start.Add(5 * time.Minute); !h.clock.Now().Equal(want) {
		t.Fatalf("clock = %v, want %v", h.clock.Now(), want)
	}
	if !fired.Equal(start.Add(time.Minute)) {
		t.Errorf("timer due within the delay fired at %v", fired)
	}
	// The handler ran after the delay: the conversation starts then.
	c := h.conversation(r.Map(t)["conversation_id"].(string))
	if !c.StartedAt.Equal(start.Add(5 * time.Minute)) {
		t.Errorf("started_at = %v, want after the delay", c.StartedAt)
	}
	if e := h.journalOne(); e.Fault != "slow" || !e.Time.Equal(start) {
		t.Errorf("journal entry fault %q time %v, want slow at arrival %v", e.Fault, e.Time, start)
	}
}

func TestFaultDropOverListener(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mwAdd(faults.Rule{ID: "drop", Match: faults.Match{Family: "chat", Path: "/v1/*/*/chat/create"}, Action: faults.Action{Drop: true}, Times: 1})
	srv := httptest.NewServer(h.handler())
	defer srv.Close()
	client := srv.Client()
	before := h.storeLen()

	post := func() (*http.Response, error) {
		req, _ := http.NewRequest("POST", srv.URL+chatBase+"/create", strings.NewReader(`{}`))
		for i := 0; i < len(chatHeaders); i += 2 {
			req.Header.Set(chatHeaders[i], chatHeaders[i+1])
		}
		return client.Do(req)
	}
	resp, err := post()
	if err == nil {
		resp.Body.Close()
		t.Fatalf("a dropped request was answered %d", resp.StatusCode)
	}
	if !errors.Is(err, io.EOF) && !strings.Contains(err.Error(), "EOF") && !strings.Contains(err.Error(), "reset") {
		t.Errorf("error = %v, want a closed connection", err)
	}
	if n := h.storeLen(); n != before {
		t.Error("the handler ran for a dropped request")
	}
	e := h.journalOne()
	if e.Fault != "drop" || e.Status != 0 || e.Family != "chat" {
		t.Errorf("journal entry = %+v, want fault drop with status 0", e)
	}
	// The server lives on: the next request is answered.
	resp, err = post()
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("after the drop: %d", resp.StatusCode)
	}
}

func TestFaultDropInMemory(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mwAdd(faults.Rule{ID: "drop", Match: faults.Match{Family: "chat"}, Action: faults.Action{Drop: true}})
	var got any
	func() {
		defer func() { got = recover() }()
		h.mwCreate()
	}()
	if err, ok := got.(error); !ok || !errors.Is(err, http.ErrAbortHandler) {
		t.Fatalf("ServeHTTP panicked with %v, want http.ErrAbortHandler (the in-memory transport turns it into a client error)", got)
	}
	if e := h.journalOne(); e.Fault != "drop" || e.Status != 0 {
		t.Errorf("journal entry = %+v", e)
	}
}

func TestFaultCounting(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mwAdd(faults.Rule{ID: "third-and-fourth", Match: faults.Match{Family: "chat", Method: "post", Path: "/v1/*/*/chat/create"},
		Action: faults.Action{Status: 503}, After: 2, Times: 2})
	var statuses []int
	for range 5 {
		statuses = append(statuses, h.mwCreate().Status)
		// Requests the rule does not match do not count.
		h.do("PUT", chatBase+"/close", map[string]any{"conversation_id": "CONV-0000000000"}, chatHeaders...)
	}
	if diff := cmp.Diff([]int{200, 200, 503, 503, 200}, statuses); diff != "" {
		t.Fatalf("statuses (-want +got):\n%s", diff)
	}
	var seen []string
	for _, e := range h.journal.List(Filter{Path: "/chat/create"}) {
		seen = append(seen, e.Fault)
	}
	if diff := cmp.Diff([]string{"", "", "third-and-fourth", "third-and-fourth", ""}, seen); diff != "" {
		t.Fatalf("journal faults (-want +got):\n%s", diff)
	}
	st := h.faults.List()[0]
	if st.Matched != 5 || st.Fired != 2 || !st.Exhausted {
		t.Fatalf("counters = matched %d fired %d exhausted %v", st.Matched, st.Fired, st.Exhausted)
	}
}

func TestFaultProbabilityIsSeeded(t *testing.T) {
	t.Parallel()
	pattern := func(seed int64) string {
		h := newHarness(t)
		if err := h.faults.Replace([]faults.Rule{{Match: faults.Match{Family: "chat"}, Action: faults.Action{Status: 503}, Probability: 0.5}}, seed); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for range 40 {
			if h.mwCreate().Status == 503 {
				b.WriteByte('x')
			} else {
				b.WriteByte('.')
			}
		}
		return b.String()
	}
	a, b, c := pattern(7), pattern(7), pattern(8)
	if a != b {
		t.Fatalf("same seed, different decisions:\n%s\n%s", a, b)
	}
	if a == c {
		t.Fatalf("seeds 7 and 8 gave the same decisions %s", a)
	}
	if n := strings.Count(a, "x"); n < 8 || n > 32 {
		t.Fatalf("probability 0.5 fired %d of 40 times: %s", n, a)
	}
}

func TestFaultMatchPredicates(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mwAdd(faults.Rule{ID: "chaos", Match: faults.Match{Family: "chat", Headers: map[string]string{"x-chaos": "*"}}, Action: faults.Action{Status: 500}})
	h.mwAdd(faults.Rule{ID: "mode", Match: faults.Match{Family: "chat", Query: map[string]string{"mode": "fail"}}, Action: faults.Action{Status: 502}})
	h.mwAdd(faults.Rule{ID: "eu-only", Match: faults.Match{Family: "chat", Region: "euw-1"}, Action: faults.Action{Status: 503}})
	h.mwAdd(faults.Rule{ID: "put", Match: faults.Match{Family: "chat", Method: "PUT"}, Action: faults.Action{Status: 504}})
	// Matches everything, but lets the first 100 through: it must not hide
	// the rules after it.
	h.mwAdd(faults.Rule{ID: "later", Match: faults.Match{Family: "chat"}, After: 100, Action: faults.Action{Status: 500}})
	h.mwAdd(faults.Rule{ID: "token", Match: faults.Match{Family: "chat", Headers: map[string]string{"X-Token": "test-connector-token-sandbox"}}, Action: faults.Action{Status: 507}})

	for _, tc := range []struct {
		name   string
		method string
		path   string
		hdrs   []string
		status int
		fault  string
	}{
		{"header present", "POST", chatBase + "/create", append([]string{"X-Chaos", "1"}, chatHeaders...), 500, "chaos"},
		{"query value", "POST", chatBase + "/create?mode=fail", chatHeaders, 502, "mode"},
		{"query other value", "POST", chatBase + "/create?mode=ok", chatHeaders, 200, ""},
		{"other region", "POST", "/runtime/euw-1/v1/acme/support/chat/create", chatHeaders, 503, "eu-only"},
		{"method", "PUT", chatBase + "/close", chatHeaders, 504, "put"},
		{"header value", "POST", chatBase + "/create", []string{"X-API-KEY", "test-chat-key", "X-TOKEN", "test-connector-token-sandbox"}, 507, "token"},
		{"nothing matches", "POST", chatBase + "/create", chatHeaders, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.do(tc.method, tc.path, nil, tc.hdrs...)
			mustStatus(t, r, tc.status)
			all := h.journalAll()
			if e := all[len(all)-1]; e.Fault != tc.fault {
				t.Fatalf("fault = %q, want %q", e.Fault, tc.fault)
			}
		})
	}
}

func TestFaultUnknownPreset(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mwAdd(faults.Rule{Match: faults.Match{Family: "chat"}, Action: faults.Action{Preset: "no-such-preset"}})
	r := h.mwCreate()
	mustStatus(t, r, http.StatusInternalServerError)
	mustBody(t, r, envelopeBody(r, "INTERNAL_SERVER_ERROR", `unknown fault preset "no-such-preset"`))
}

// TestHeaderNamesCanonical: the header names the middleware looks up are
// in net/http's canonical form, so that a lookup never rewrites them.
func TestHeaderNamesCanonical(t *testing.T) {
	t.Parallel()
	names := []string{correlationKey, "X-Token"}
	for _, f := range families {
		names = append(names, f.Headers...)
	}
	for _, n := range names {
		if c := http.CanonicalHeaderKey(n); c != n {
			t.Errorf("header %q: canonical form is %q", n, c)
		}
	}
	if http.CanonicalHeaderKey(CorrelationHeader) != correlationKey {
		t.Errorf("correlationKey %q is not CorrelationHeader %q", correlationKey, CorrelationHeader)
	}
}
