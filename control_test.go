package mockplatform

// The control plane (docs/api.md#control): each endpoint does what the Go
// method of the same name does.

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agentplatform/mockplatform/handlers"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

func TestControlHealth(t *testing.T) {
	t.Parallel()
	_, ctl := controlClient(t)
	r := ctl("GET", "/health", nil)
	mustStatus(t, r, http.StatusOK)
	mustJSON(t, r, map[string]any{"status": "ok", "worlds": 0})
}

func TestControlClock(t *testing.T) {
	t.Parallel()
	p, ctl := controlClient(t)
	r := ctl("GET", "/clock", nil)
	mustStatus(t, r, http.StatusOK)
	mustJSON(t, r, map[string]any{"now": "2026-01-01T00:00:00Z", "mode": "manual"})

	p.Advance(1500 * time.Millisecond)
	mustJSON(t, ctl("GET", "/clock", nil), map[string]any{"now": p.Now().Format(time.RFC3339Nano), "mode": "manual"})
}

func TestControlAdvance(t *testing.T) {
	t.Parallel()
	p, ctl := controlClient(t)
	start := p.Now()

	// A timer due within the advance has fired before the answer.
	fired := time.Time{}
	p.clock.AfterFunc(4*time.Minute, func(now time.Time) { fired = now })
	r := ctl("POST", "/clock/advance", map[string]any{"duration": "5m"})
	mustStatus(t, r, http.StatusOK)
	mustJSON(t, r, map[string]any{"now": "2026-01-01T00:05:00Z", "mode": "manual"})
	if want := start.Add(4 * time.Minute); !fired.Equal(want) {
		t.Fatalf("timer fired at %v, want %v before the answer", fired, want)
	}
	if !p.Now().Equal(start.Add(5 * time.Minute)) {
		t.Fatalf("Now() = %v", p.Now())
	}

	// "to" moves to a time.
	r = ctl("POST", "/clock/advance", map[string]any{"to": "2026-01-02T00:00:00Z"})
	mustStatus(t, r, http.StatusOK)
	mustJSON(t, r, map[string]any{"now": "2026-01-02T00:00:00Z", "mode": "manual"})
	// Zero duration is allowed and changes nothing.
	r = ctl("POST", "/clock/advance", map[string]any{"duration": "0s"})
	mustStatus(t, r, http.StatusOK)

	now := p.Now()
	for _, tc := range []struct {
		name string
		body any
		msg  string
	}{
		{"no body", nil, "duration or to is required"},
		{"not json", "5m", `body must be {"duration":"5m"} or {"to":"<RFC 3339 time>"}: body has data after the JSON value (at byte 1)`},
		{"trailing data", `{"duration":"5m"}}`, `body must be {"duration":"5m"} or {"to":"<RFC 3339 time>"}: body has data after the JSON value (at byte 17)`},
		{"key twice", `{"duration":"5m","duration":"1h"}`, `body must be {"duration":"5m"} or {"to":"<RFC 3339 time>"}: body has the key "duration" twice in one object (at byte 17)`},
		{"unknown field", map[string]any{"durattion": "5m"}, `body must be {"duration":"5m"} or {"to":"<RFC 3339 time>"}: unknown field "durattion"`},
		{"duration a number", map[string]any{"duration": 300}, `body must be {"duration":"5m"} or {"to":"<RFC 3339 time>"}: field "duration" must be a string`},
		{"bad to", map[string]any{"to": "tomorrow"}, "to must be an RFC 3339 time such as 2026-01-02T15:04:05Z"},
		{"empty object", map[string]any{}, "duration or to is required"},
		{"both", map[string]any{"duration": "1m", "to": "2027-01-01T00:00:00Z"}, "give duration or to, not both"},
		{"negative", map[string]any{"duration": "-5m"}, "duration must be a non-negative Go duration such as 90s, 5m or 1h30m"},
		{"unit missing", map[string]any{"duration": "5"}, "duration must be a non-negative Go duration such as 90s, 5m or 1h30m"},
		{"days", map[string]any{"duration": "1d"}, "duration must be a non-negative Go duration such as 90s, 5m or 1h30m"},
		{"to in the past", map[string]any{"to": "2025-01-01T00:00:00Z"}, "to is before now: the clock only moves forward"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ctl("POST", "/clock/advance", tc.body)
			mustStatus(t, r, http.StatusBadRequest)
			mustJSON(t, r, map[string]any{"error": tc.msg})
			if !p.Now().Equal(now) {
				t.Fatalf("a rejected advance moved the clock to %v", p.Now())
			}
		})
	}
	// A control body over its bound (64 KiB here) is 413, refused by its
	// Content-Length before it is read (TestOversizeContentLength).
	r = ctl("POST", "/clock/advance", `{"duration":"5m","x":"`+strings.Repeat("x", maxControlSmall)+`"}`)
	mustStatus(t, r, http.StatusRequestEntityTooLarge)
	mustJSON(t, r, map[string]any{"error": `the body exceeds 65536 bytes (its Content-Length is 65560)`})
	if !p.Now().Equal(now) {
		t.Fatalf("a rejected advance moved the clock to %v", p.Now())
	}
}

func TestControlReset(t *testing.T) {
	t.Parallel()
	p, ctl := controlClient(t)
	id := chatCreate(t, p, nil)
	if _, err := p.AddFault(Fault{Action: faultStatus(500), Match: faultMatch("agents", "")}); err != nil {
		t.Fatal(err)
	}
	p.Advance(time.Hour)
	r := ctl("POST", "/reset", nil)
	mustStatus(t, r, http.StatusOK)
	mustJSON(t, r, map[string]any{"status": "ok", "now": "2026-01-01T00:00:00Z"})
	if _, err := p.Conversation(id); err != store.ErrNotFound {
		t.Errorf("conversation after reset: %v", err)
	}
	if n := len(p.Faults()); n != 0 {
		t.Errorf("%d faults after reset", n)
	}
	if n := len(p.Requests(RequestFilter{})); n != 0 {
		t.Errorf("%d journal entries after reset", n)
	}
}

func TestControlScenario(t *testing.T) {
	t.Parallel()
	p, ctl := controlClient(t)
	id := chatCreate(t, p, nil)
	before := p.Scenario()

	// Invalid: 400 with every problem as file:line:column: message, and
	// nothing changes.
	bad := "name: broken\nbogus: 1\naccounts:\n  - slug: a\n    id: \"1\"\n    region: mars\n"
	r := send(t, p.Client(), "POST", p.URL()+"/_mock/scenario", bad, "Content-Type", "application/yaml")
	mustStatus(t, r, http.StatusBadRequest)
	mustJSON(t, r, map[string]any{"error": "invalid scenario", "problems": []string{
		"<request>:2:1: bogus: unknown field " + topLevelKeys(t),
		`<request>:6:13: accounts[0].region: unknown region "mars" (want us, uk or eu)`,
	}})
	if p.Scenario() != before {
		t.Fatal("an invalid scenario replaced the scenario")
	}
	if _, err := p.Conversation(id); err != nil {
		t.Fatalf("an invalid scenario reset the data: %v", err)
	}
	r = ctl("POST", "/scenario", "name: [unclosed\n")
	mustStatus(t, r, http.StatusBadRequest)
	if m := r.object(t); m["error"] != "invalid scenario" || len(m["problems"].([]any)) == 0 ||
		!strings.HasPrefix(m["problems"].([]any)[0].(string), "<request>:1:") {
		t.Fatalf("YAML syntax error body: %s", r.Body)
	}

	// Valid: replaces, then resets.
	p.Advance(time.Hour)
	yaml := "name: tiny\nclock: {start: 2027-03-04T05:06:07Z}\n"
	r = ctl("POST", "/scenario", yaml)
	mustStatus(t, r, http.StatusOK)
	mustJSON(t, r, map[string]any{"status": "ok", "name": "tiny", "now": "2027-03-04T05:06:07Z"})
	if p.Scenario().Name != "tiny" {
		t.Fatalf("scenario = %q", p.Scenario().Name)
	}
	if _, err := p.Conversation(id); err != store.ErrNotFound {
		t.Fatalf("data kept after a scenario load: %v", err)
	}
	// Reset goes back to the uploaded scenario.
	p.Advance(time.Hour)
	if err := p.Reset(); err != nil || !p.Now().Equal(time.Date(2027, 3, 4, 5, 6, 7, 0, time.UTC)) {
		t.Fatalf("Reset: %v, now %v", err, p.Now())
	}

	// Too large.
	r = ctl("POST", "/scenario", strings.Repeat("#", maxControlBody+1))
	mustStatus(t, r, http.StatusRequestEntityTooLarge)
	mustJSON(t, r, map[string]any{"error": "the scenario exceeds 16777216 bytes: generate large data sets with generate: (docs/scenarios.md#bounds)"})
	if p.Scenario().Name != "tiny" {
		t.Fatal("an oversized body changed the scenario")
	}

	// Settings over their bounds (docs/scenarios.md#bounds).
	r = ctl("POST", "/scenario", "name: unbounded\nlimits: {journal_size: 2e9, max_body_bytes: 1e11}\n")
	mustStatus(t, r, http.StatusBadRequest)
	mustJSON(t, r, map[string]any{"error": "invalid scenario", "problems": []string{
		"<request>:2:24: limits.journal_size: must be at most 100000 (it is 2000000000)",
		"<request>:2:45: limits.max_body_bytes: must be at most 16777216 (it is 100000000000)",
	}})
	if p.Scenario().Name != "tiny" {
		t.Fatal("an unbounded scenario was loaded")
	}
}

// TestScenarioBoundsInGo: a scenario built in Go is held to the same
// bounds as a file (ValidateScenario, in New and LoadScenario).
func TestScenarioBoundsInGo(t *testing.T) {
	t.Parallel()
	sc := &Scenario{Limits: scenario.Limits{JournalSize: 2_000_000_000, MaxBodyBytes: 1e11}}
	want := "<scenario>:1:1: limits.max_body_bytes: must be at most 16777216 (it is 100000000000)\n" +
		"<scenario>:1:1: limits.journal_size: must be at most 100000 (it is 2000000000)"
	if _, err := New(WithScenario(sc)); err == nil || err.Error() != want {
		t.Fatalf("New: %v\nwant %s", err, want)
	}
	p := newPlatform(t)
	if err := p.LoadScenario(sc); err == nil || err.Error() != want {
		t.Fatalf("LoadScenario: %v\nwant %s", err, want)
	}
}

func TestControlScenarioGet(t *testing.T) {
	t.Parallel()
	p, ctl := controlClient(t)
	r := ctl("GET", "/scenario", nil)
	mustStatus(t, r, http.StatusOK)
	var got scenario.Scenario
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Name != "default" || len(got.Accounts) != 1 || got.Accounts[0].Slug != "acme" {
		t.Fatalf("scenario = %+v", got)
	}
	// Keys are secrets: never in the answer.
	for _, c := range p.Scenario().Credentials {
		if strings.Contains(string(r.Body), c.Key) {
			t.Errorf("GET /_mock/scenario shows the key %q", c.Key)
		}
	}
}

func TestControlRequests(t *testing.T) {
	t.Parallel()
	p, ctl := controlClient(t)
	id := chatCreate(t, p, nil)
	send(t, p.Client(), "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/respond",
		map[string]any{"conversation_id": id, "message": "hours?"}, chatHeaders...)
	send(t, p.Client(), "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/create", nil) // 401
	send(t, p.Client(), "GET", p.BuilderURL("us")+"/v1/nothing-here", nil)                // 404
	ctl("GET", "/health", nil)                                                            // not journaled

	for _, tc := range []struct {
		query string
		f     RequestFilter
		n     int
	}{
		{"", RequestFilter{}, 4},
		{"?family=chat", RequestFilter{Family: "chat"}, 3},
		{"?family=agents", RequestFilter{Family: "agents"}, 1},
		{"?method=get", RequestFilter{Method: "get"}, 1},
		{"?path=/chat/respond", RequestFilter{Path: "/chat/respond"}, 1},
		{"?status=401", RequestFilter{Status: 401}, 1},
		{"?family=chat&status=200", RequestFilter{Family: "chat", Status: 200}, 2},
		{"?limit=1", RequestFilter{Limit: 1}, 1},
		{"?limit=0", RequestFilter{}, 4},
		{"?family=nope", RequestFilter{Family: "nope"}, 0},
	} {
		t.Run(tc.query, func(t *testing.T) {
			r := ctl("GET", "/requests"+tc.query, nil)
			mustStatus(t, r, http.StatusOK)
			want := p.Requests(tc.f)
			if len(want) != tc.n {
				t.Fatalf("Requests(%+v) = %d entries, want %d", tc.f, len(want), tc.n)
			}
			if want == nil {
				want = []Request{}
			}
			mustJSON(t, r, map[string]any{"requests": want})
		})
	}
	if last := p.Requests(RequestFilter{Limit: 1}); last[0].Path != "/builder/us/v1/nothing-here" {
		t.Errorf("limit keeps the newest: %+v", last)
	}
	for _, q := range []string{"?status=abc", "?status=-1", "?limit=x", "?limit=-2"} {
		r := ctl("GET", "/requests"+q, nil)
		mustStatus(t, r, http.StatusBadRequest)
		name := strings.TrimPrefix(strings.SplitN(q, "=", 2)[0], "?")
		mustJSON(t, r, map[string]any{"error": name + " must be a non-negative integer"})
	}
}

func TestControlFaults(t *testing.T) {
	t.Parallel()
	p, ctl := controlClient(t)
	listed := func() any {
		t.Helper()
		r := ctl("GET", "/faults", nil)
		mustStatus(t, r, http.StatusOK)
		var v struct {
			Faults []FaultStatus `json:"faults"`
		}
		if err := json.Unmarshal(r.Body, &v); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(p.Faults(), v.Faults, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("GET /faults differs from Faults() (-go +http):\n%s", diff)
		}
		return v.Faults
	}
	mustJSON(t, ctl("GET", "/faults", nil), map[string]any{"faults": []any{}})

	// Add: 201 with the stored rule (id assigned).
	rule := map[string]any{"match": map[string]any{"family": "chat", "method": "POST", "path": "/v1/*/*/chat/create"},
		"action": map[string]any{"status": 429, "headers": map[string]string{"Retry-After": "7"}}, "times": 1}
	r := ctl("POST", "/faults", rule)
	mustStatus(t, r, http.StatusCreated)
	mustJSON(t, r, map[string]any{"id": "fault-1", "match": rule["match"], "action": rule["action"], "times": 1})
	r = ctl("POST", "/faults", map[string]any{"id": "mine", "action": map[string]any{"status": 500}, "match": map[string]any{"family": "agents"}})
	mustStatus(t, r, http.StatusCreated)
	listed()

	// The rule applies to the API: the chat create gets the 429 once.
	cr := send(t, p.Client(), "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/create", nil, chatHeaders...)
	mustStatus(t, cr, http.StatusTooManyRequests)
	if cr.Header.Get("Retry-After") != "7" {
		t.Errorf("Retry-After = %q", cr.Header.Get("Retry-After"))
	}
	chatCreate(t, p, nil)
	if st := p.Faults()[0]; st.Matched != 2 || st.Fired != 1 || !st.Exhausted {
		t.Errorf("counters = %+v", st)
	}
	listed()

	// Rejected rules change nothing.
	for _, tc := range []struct {
		name string
		body any
		msg  string
	}{
		{"unknown field", map[string]any{"action": map[string]any{"status": 500}, "matchh": map[string]any{}},
			`invalid fault rule: unknown field "matchh"`},
		{"not json", "status: 500", "invalid fault rule: body is not valid JSON: invalid character 's' looking for beginning of value (at byte 0)"},
		{"trailing data", `{"action":{"status":500}}}`, "invalid fault rule: body has data after the JSON value (at byte 25)"},
		{"bad status", map[string]any{"action": map[string]any{"status": 42}}, "faults: action.status: 42 is not an HTTP status"},
		{"no action", map[string]any{"match": map[string]any{"family": "chat"}}, "faults: action: nothing to do (set status, body, delay, drop or preset)"},
		{"bad family", map[string]any{"match": map[string]any{"family": "cats"}, "action": map[string]any{"drop": true}},
			`faults: match.family: "cats" is not a family (want one of ` + strings.Join(handlers.Vocabulary().Faults.Families, ", ") + ")"},
		{"duplicate id", map[string]any{"id": "mine", "action": map[string]any{"status": 500}}, `faults: id: "mine" is already in use`},
		{"bad delay", map[string]any{"action": map[string]any{"delay": "soon"}}, `invalid fault rule: invalid duration "soon" (want e.g. 500ms, 5m, 1h)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := p.Faults()
			r := ctl("POST", "/faults", tc.body)
			mustStatus(t, r, http.StatusBadRequest)
			mustJSON(t, r, map[string]any{"error": tc.msg})
			if diff := cmp.Diff(before, p.Faults()); diff != "" {
				t.Fatalf("a rejected rule changed the list:\n%s", diff)
			}
		})
	}

	// Remove one, then an unknown one.
	r = ctl("DELETE", "/faults/mine", nil)
	mustStatus(t, r, http.StatusNoContent)
	if len(p.Faults()) != 1 {
		t.Fatalf("faults = %+v", p.Faults())
	}
	r = ctl("DELETE", "/faults/mine", nil)
	mustStatus(t, r, http.StatusNotFound)
	mustJSON(t, r, map[string]any{"error": `no fault rule "mine"`})

	// Clear.
	if _, err := p.AddFault(Fault{Action: faultStatus(500)}); err != nil {
		t.Fatal(err)
	}
	r = ctl("DELETE", "/faults", nil)
	mustStatus(t, r, http.StatusNoContent)
	if n := len(p.Faults()); n != 0 {
		t.Fatalf("%d faults after clear", n)
	}
	listed()
}

func TestControlUnknownRoutesAnswerJSON(t *testing.T) {
	t.Parallel()
	_, ctl := controlClient(t)
	r := ctl("GET", "/nope", nil)
	mustStatus(t, r, http.StatusNotFound)
	mustJSON(t, r, map[string]any{"error": "No route for GET /_mock/nope."})
	r = ctl("PUT", "/reset", nil)
	mustStatus(t, r, http.StatusMethodNotAllowed)
	if m := r.object(t); !strings.HasPrefix(m["error"].(string), "Method PUT is not allowed here") {
		t.Fatalf("405 body: %s", r.Body)
	}
}

// The control plane is an engine of its own: no control call, routed or
// not, passes the API's middleware, so none is journaled and no fault rule
// (even one matching every request) reaches it.
func TestControlNeverJournaledNorFaulted(t *testing.T) {
	t.Parallel()
	p, ctl := controlClient(t)
	if _, err := p.AddFault(Fault{Action: faultStatus(503)}); err != nil {
		t.Fatal(err)
	}
	mustStatus(t, ctl("GET", "/health", nil), http.StatusOK)
	mustStatus(t, ctl("GET", "/nope", nil), http.StatusNotFound)
	mustStatus(t, ctl("PUT", "/reset", nil), http.StatusMethodNotAllowed)
	mustStatus(t, ctl("GET", "", nil), http.StatusNotFound)
	if got := p.Requests(RequestFilter{}); len(got) != 0 {
		t.Fatalf("control calls were journaled: %+v", got)
	}
	// The API itself still meets the rule, and journals it.
	r := send(t, p.Client(), "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/create", nil, chatHeaders...)
	mustStatus(t, r, http.StatusServiceUnavailable)
	if got := p.Requests(RequestFilter{}); len(got) != 1 {
		t.Fatalf("journal = %+v, want the one API call", got)
	}
}

func TestControlScenarioEmptyBody(t *testing.T) {
	t.Parallel()
	p := Start(t, WithoutListener())
	resp, err := p.Client().Post(p.URL()+"/_mock/scenario", "application/yaml", strings.NewReader("  \n"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("status %d, want 400", resp.StatusCode)
	}
	if p.Scenario().Name != "default" {
		t.Fatalf("an empty body replaced the scenario with %q", p.Scenario().Name)
	}
}

func TestUnknownPresetRefused(t *testing.T) {
	t.Parallel()
	p := Start(t, WithoutListener())
	_, err := p.AddFault(Fault{Action: FaultAction{Preset: "no.such.preset"}})
	if err == nil || !strings.Contains(err.Error(), `unknown preset "no.such.preset"`) {
		t.Fatalf("AddFault err = %v", err)
	}
	if len(p.Faults()) != 0 {
		t.Fatal("the rule was added")
	}
	if _, err := p.AddFault(Fault{Action: FaultAction{Preset: "messaging.expire_session"}}); err != nil {
		t.Fatalf("a known preset was refused: %v", err)
	}
	y := "name: x\naccounts: [{slug: a, id: \"1\"}]\nfaults:\n  - {id: f, action: {preset: bogus}}\n"
	if err := p.LoadScenarioYAML([]byte(y)); err == nil || !strings.Contains(err.Error(), `<scenario>:4:30: faults[0].action.preset: unknown fault preset "bogus"`) {
		t.Fatalf("LoadScenarioYAML err = %v", err)
	}
}

// TestScenarioLayer: a scenario without accounts (a layer) adds to the
// built-in scenario in New, and to the starting scenario in LoadScenario
// and POST /_mock/scenario; a full scenario replaces it.
func TestScenarioLayer(t *testing.T) {
	t.Parallel()
	const layer = "name: flaky\nfaults:\n  - {id: f1, match: {family: chat}, action: {status: 503}}\n"
	check := func(t *testing.T, p *Platform, name string, accounts int) {
		t.Helper()
		sc := p.Scenario()
		if sc.Name != name || len(sc.Accounts) != accounts {
			t.Errorf("scenario %q with %d accounts, want %q with %d", sc.Name, len(sc.Accounts), name, accounts)
		}
	}
	p := Start(t, WithoutListener(), WithScenarioYAML([]byte(layer)))
	check(t, p, "flaky", len(handlers.Vocabulary().Default().Accounts))
	if f := p.Faults(); len(f) != 1 || f[0].ID != "f1" {
		t.Errorf("faults %v, want the layer's f1", f)
	}

	base, ctl := controlClient(t, WithScenarioFile("fixtures/support-bot.yaml"))
	r := ctl("POST", "/scenario", layer)
	mustStatus(t, r, http.StatusOK)
	want, err := handlers.Vocabulary().Load("fixtures/support-bot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	check(t, base, "flaky", len(want.Accounts))
	if err := base.LoadScenarioYAML([]byte("name: other\naccounts:\n  - {slug: initech, id: \"3\"}\n")); err != nil {
		t.Fatal(err)
	}
	check(t, base, "other", 1)
	if err := base.LoadScenarioYAML([]byte(layer)); err != nil { // on the start scenario again, not on "other"
		t.Fatal(err)
	}
	check(t, base, "flaky", len(want.Accounts))
}
