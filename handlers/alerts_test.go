package handlers

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

var builderHeaders = []string{"x-api-key", "test-builder-key", "Content-Type", "application/json"}

const builderBase = "/builder/us"

// alertsTwoAccounts adds a second account with its own builder key to the
// default scenario.
const alertsTwoAccounts = `
accounts:
  - slug: acme
    id: "1001"
    region: us
    projects:
      - slug: support
        id: "2001"
        variants: [{id: VARIANT-0000DEF0, name: Default, default: true}]
      - slug: sales
        id: "2002"
  - slug: globex
    id: "3001"
    region: us
    projects:
      - slug: help
        id: "4001"
credentials:
  - {kind: chat, key: test-chat-key, account: acme, project: support}
  - {kind: connector, key: test-connector-token, account: acme, project: support, client_env: live}
  - {kind: builder, key: test-builder-key, account: acme}
  - {kind: builder, key: globex-builder-key, account: globex}
limits:
  alert_rules: 2
  webhook_endpoints: 2
`

func (h *harness) alertCreate(body any) map[string]any {
	h.t.Helper()
	r := h.do("POST", builderBase+"/v1/alert-rules", body, builderHeaders...)
	mustStatus(h.t, r, 201)
	return r.Map(h.t)
}

func (h *harness) alertGet(id string) map[string]any {
	h.t.Helper()
	r := h.do("GET", builderBase+"/v1/alert-rules/"+id, nil, builderHeaders...)
	mustStatus(h.t, r, 200)
	return r.Map(h.t)
}

func alertVolumeRule(extra map[string]any) map[string]any {
	b := map[string]any{"name": "Volume", "project_id": "support", "metric": "call_volume",
		"operator": ">=", "threshold_value": 3, "window_duration": "5m"}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

var alertIDRE = regexp.MustCompile(`^ar_[A-Za-z0-9]{22}$`)

func TestAlertRuleCreateAndGet(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	got := h.alertCreate(alertVolumeRule(nil))
	id, _ := got["id"].(string)
	if !alertIDRE.MatchString(id) {
		t.Fatalf("id = %q", id)
	}
	now := fmtAlertTime(h.clock.Now())
	want := map[string]any{"id": id, "name": "Volume", "project_id": "2001", "metric": "call_volume", "operator": ">=",
		"threshold_value": 3, "window_duration": "5m", "enabled": true, "current_state": "ok",
		"created_at": now, "updated_at": now, "since": now, "last_evaluated_at": nil, "current_value": nil}
	mustBody(t, response{Body: mustJSON(t, got)}, want)
	r := h.do("GET", builderBase+"/v1/alert-rules/"+id, nil, builderHeaders...)
	mustStatus(t, r, 200)
	mustBody(t, r, want)

	// project_id null and absent mean account-wide.
	for _, body := range []map[string]any{alertVolumeRule(map[string]any{"project_id": nil})} {
		h2 := newHarness(t)
		if got := h2.alertCreate(body); got["project_id"] != nil {
			t.Errorf("project_id = %v, want null", got["project_id"])
		}
	}
	b := alertVolumeRule(nil)
	delete(b, "project_id")
	b["enabled"] = false
	h3 := newHarness(t)
	if got := h3.alertCreate(b); got["project_id"] != nil || got["enabled"] != false {
		t.Errorf("absent project_id / enabled false: %v", got)
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAlertRuleValidation(t *testing.T) {
	t.Parallel()
	metricMsg := "must be one of: turn_latency_p50, turn_latency_p95, api_errors, function_errors, call_crashes, call_volume"
	cases := []struct {
		name string
		body any
		want []FieldError
	}{
		{"empty object", map[string]any{}, []FieldError{
			{"name", "is required"}, {"metric", "is required"}, {"operator", "is required"},
			{"threshold_value", "is required"}, {"window_duration", "is required"}}},
		{"metric and threshold", alertVolumeRule(map[string]any{"metric": "cpu", "threshold_value": -1}), []FieldError{
			{"metric", metricMsg}, {"threshold_value", "must be a non-negative integer"}}},
		{"threshold not integer", alertVolumeRule(map[string]any{"threshold_value": 1.5}), []FieldError{
			{"threshold_value", "must be a non-negative integer"}}},
		{"threshold string", alertVolumeRule(map[string]any{"threshold_value": "3"}), []FieldError{
			{"threshold_value", "must be a non-negative integer"}}},
		{"operator", alertVolumeRule(map[string]any{"operator": "=="}), []FieldError{{"operator", "must be one of: >, <, >=, <="}}},
		{"window", alertVolumeRule(map[string]any{"window_duration": "15m"}), []FieldError{{"window_duration", "must be one of: 5m, 10m, 60m"}}},
		{"enabled", alertVolumeRule(map[string]any{"enabled": "yes"}), []FieldError{{"enabled", "must be a boolean"}}},
		{"name empty", alertVolumeRule(map[string]any{"name": ""}), []FieldError{{"name", "must be 1 to 255 characters"}}},
		{"unknown project", alertVolumeRule(map[string]any{"project_id": "nope"}), []FieldError{{"project_id", `unknown project "nope"`}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			before := h.buildDocs()
			r := h.do("POST", builderBase+"/v1/alert-rules", tc.body, builderHeaders...)
			mustStatus(t, r, 400)
			mustBody(t, r, builderError{Message: MsgValidationFailed, Errors: tc.want})
			if diff := cmp.Diff(before, h.buildDocs()); diff != "" {
				t.Fatalf("store changed: %s", diff)
			}
		})
	}
	h := newHarness(t)
	for body, msg := range map[string]string{"": "Request body is required.", "[1]": "Request body must be a JSON object.", "{": "Request body ends before its JSON value is complete (at byte 1)."} {
		r := h.do("POST", builderBase+"/v1/alert-rules", body, builderHeaders...)
		mustStatus(t, r, 400)
		mustBody(t, r, builderError{Message: msg, Errors: []FieldError{}})
	}
}

func TestAlertRuleIDsAndScope(t *testing.T) {
	t.Parallel()
	h := newHarness(t, alertsTwoAccounts)
	id := h.alertCreate(alertVolumeRule(nil))["id"].(string)
	for _, m := range []string{"GET", "PATCH", "DELETE"} {
		r := h.do(m, builderBase+"/v1/alert-rules/rule-1", map[string]any{}, builderHeaders...)
		mustStatus(t, r, 422)
		mustBody(t, r, builderError{Message: MsgAlertRuleInvalidID, Errors: []FieldError{}})
		r = h.do(m, builderBase+"/v1/alert-rules/ar_doesnotexist", map[string]any{}, builderHeaders...)
		mustStatus(t, r, 404)
		mustBody(t, r, builderError{Message: MsgAlertRuleNotFound, Errors: []FieldError{}})
		// Another account's key does not see the rule.
		r = h.do(m, builderBase+"/v1/alert-rules/"+id, map[string]any{}, "x-api-key", "globex-builder-key")
		mustStatus(t, r, 404)
	}
	r := h.do("GET", builderBase+"/v1/alert-rules", nil, "x-api-key", "globex-builder-key")
	mustStatus(t, r, 200)
	mustBody(t, r, map[string]any{"data": []any{}})
	// The key's region: a us account's key in eu is refused.
	r = h.do("GET", "/builder/eu/v1/alert-rules", nil, builderHeaders...)
	mustStatus(t, r, 401)
}

func TestAlertRuleLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, alertsTwoAccounts)
	h.alertCreate(alertVolumeRule(nil))
	h.alertCreate(alertVolumeRule(nil))
	before := h.buildDocs()
	r := h.do("POST", builderBase+"/v1/alert-rules", alertVolumeRule(nil), builderHeaders...)
	mustStatus(t, r, 409)
	mustBody(t, r, builderError{Message: "Maximum number of alert rules (2) reached", Errors: []FieldError{}})
	if diff := cmp.Diff(before, h.buildDocs()); diff != "" {
		t.Fatalf("store changed: %s", diff)
	}
	// The limit is per account.
	r = h.do("POST", builderBase+"/v1/alert-rules", alertVolumeRule(map[string]any{"project_id": nil}), "x-api-key", "globex-builder-key")
	mustStatus(t, r, 201)

	// Default limit: 10.
	h = newHarness(t)
	for range 10 {
		h.alertCreate(alertVolumeRule(nil))
	}
	r = h.do("POST", builderBase+"/v1/alert-rules", alertVolumeRule(nil), builderHeaders...)
	mustStatus(t, r, 409)
	mustBody(t, r, builderError{Message: "Maximum number of alert rules (10) reached", Errors: []FieldError{}})
}

func TestAlertRulePatchListDelete(t *testing.T) {
	t.Parallel()
	h := newHarness(t, alertsTwoAccounts)
	id := h.alertCreate(alertVolumeRule(nil))["id"].(string)
	before := h.alertGet(id)
	h.advance(10 * time.Second)

	r := h.do("PATCH", builderBase+"/v1/alert-rules/"+id, map[string]any{"threshold_value": 7, "project_id": nil}, builderHeaders...)
	mustStatus(t, r, 200)
	want := map[string]any{}
	for k, v := range before {
		want[k] = v
	}
	want["threshold_value"] = 7
	want["project_id"] = nil
	want["updated_at"] = fmtAlertTime(h.clock.Now())
	mustBody(t, r, want)
	mustBody(t, h.do("GET", builderBase+"/v1/alert-rules/"+id, nil, builderHeaders...), want)

	// A bad PATCH changes nothing.
	snap := h.buildDocs()
	r = h.do("PATCH", builderBase+"/v1/alert-rules/"+id, map[string]any{"threshold_value": -3, "name": "x"}, builderHeaders...)
	mustStatus(t, r, 400)
	mustBody(t, r, builderError{Message: MsgValidationFailed, Errors: []FieldError{{"threshold_value", "must be a non-negative integer"}}})
	if diff := cmp.Diff(snap, h.buildDocs()); diff != "" {
		t.Fatalf("store changed: %s", diff)
	}

	id2 := h.alertCreate(alertVolumeRule(map[string]any{"metric": "api_errors", "project_id": "sales", "enabled": false}))["id"].(string)
	list := func(q string) []string {
		t.Helper()
		r := h.do("GET", builderBase+"/v1/alert-rules"+q, nil, builderHeaders...)
		mustStatus(t, r, 200)
		var body struct {
			Data []struct{ ID string } `json:"data"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		ids := []string{}
		for _, d := range body.Data {
			ids = append(ids, d.ID)
		}
		return ids
	}
	sorted := []string{id, id2}
	if id2 < id {
		sorted = []string{id2, id}
	}
	for q, want := range map[string][]string{
		"":                     sorted,
		"?metric=api_errors":   {id2},
		"?project_id=sales":    {id2},
		"?project_id=2002":     {id2},
		"?enabled=true":        {id},
		"?enabled=false":       {id2},
		"?state=ok":            sorted,
		"?state=alert":         {},
		"?project_id=unknown1": {},
	} {
		if diff := cmp.Diff(want, list(q)); diff != "" {
			t.Errorf("list %q: %s", q, diff)
		}
	}
	r = h.do("GET", builderBase+"/v1/alert-rules?enabled=maybe&metric=cpu", nil, builderHeaders...)
	mustStatus(t, r, 400)

	r = h.do("DELETE", builderBase+"/v1/alert-rules/"+id, nil, builderHeaders...)
	mustStatus(t, r, 204)
	if len(r.Body) != 0 {
		t.Errorf("204 body: %s", r.Body)
	}
	mustStatus(t, h.do("GET", builderBase+"/v1/alert-rules/"+id, nil, builderHeaders...), 404)
	mustStatus(t, h.do("DELETE", builderBase+"/v1/alert-rules/"+id, nil, builderHeaders...), 404)
	if diff := cmp.Diff([]string{id2}, list("")); diff != "" {
		t.Error(diff)
	}
}

// receiver is an httptest webhook receiver that hands every request to
// the test.
type receiver struct {
	srv    *httptest.Server
	got    chan receivedHook
	status func(n int) int // status of the n-th request (1-based)
	n      int
}

type receivedHook struct {
	Header http.Header
	Body   []byte
}

func newReceiver(t *testing.T, status func(n int) int) *receiver {
	rc := &receiver{got: make(chan receivedHook, 64), status: status}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.n++ // the server handles one request at a time in these tests
		st := 200
		if rc.status != nil {
			st = rc.status(rc.n)
		}
		rc.got <- receivedHook{Header: r.Header.Clone(), Body: b}
		w.WriteHeader(st)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// next returns the next delivery received. Attempts run inside the
// Advance that makes them due, so it never waits: a delivery the test
// expects has arrived by the time Advance returned.
func (rc *receiver) next(t *testing.T) receivedHook {
	t.Helper()
	select {
	case h := <-rc.got:
		return h
	default:
		t.Fatal("no webhook delivery arrived")
	}
	return receivedHook{}
}

// none checks that nothing was delivered.
func (rc *receiver) none(t *testing.T) {
	t.Helper()
	select {
	case got := <-rc.got:
		t.Fatalf("unexpected delivery: %s", got.Body)
	default:
	}
}

// verifySignature is an independent implementation of the receiver's
// check (docs/fidelity.md G16): hex HMAC-SHA256 of "{timestamp}.{body}".
func verifySignature(t *testing.T, secret string, got receivedHook, now time.Time) {
	t.Helper()
	ts := got.Header.Get("X-PolyAI-Timestamp")
	if ts != strconv.FormatInt(now.Unix(), 10) {
		t.Errorf("timestamp = %q, want %d (virtual clock)", ts, now.Unix())
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + string(got.Body)))
	want := hex.EncodeToString(mac.Sum(nil))
	if sig := got.Header.Get("X-PolyAI-Signature"); !hmac.Equal([]byte(sig), []byte(want)) {
		t.Errorf("signature = %q, want %q", sig, want)
	}
}

func (h *harness) webhookCreate(body any) map[string]any {
	h.t.Helper()
	r := h.do("POST", builderBase+"/v1/webhook-endpoints", body, builderHeaders...)
	mustStatus(h.t, r, 201)
	return r.Map(h.t)
}

// chatCreateN starts n chat conversations now.
func (h *harness) chatCreateN(n int) {
	h.t.Helper()
	for range n {
		h.create(nil)
	}
}

// TestAlertDoneWhen runs the alert family end to end: a call_volume rule,
// chat conversations, a signed alerts.triggered at an httptest receiver,
// volume falls, alerts.resolved.
func TestAlertDoneWhen(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	rc := newReceiver(t, nil)
	ep := h.webhookCreate(map[string]any{"name": "ops", "url": rc.srv.URL + "/hooks",
		"event_types": []string{"alerts.triggered", "alerts.resolved"}, "headers": map[string]string{"X-Team": "ops"}})
	secret := ep["signing_secret"].(string)
	rule := h.alertCreate(alertVolumeRule(map[string]any{"name": "Busy"}))
	ruleID := rule["id"].(string)

	h.chatCreateN(4)
	now := h.advance(time.Minute) // first evaluation
	got := rc.next(t)
	verifySignature(t, secret, got, now)
	if got.Header.Get("X-Team") != "ops" || got.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers: %v", got.Header)
	}
	eventID := got.Header.Get("X-PolyAI-Event-ID")
	if eventID == "" {
		t.Error("no event id")
	}
	var payload map[string]any
	if err := json.Unmarshal(got.Body, &payload); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"event_type": "alerts.triggered", "alert": map[string]any{
		"id": ruleID, "name": "Busy", "project_id": "2001", "metric": "call_volume", "operator": ">=",
		"threshold_value": 3.0, "current_value": 4.0, "previous_state": "ok", "triggered_at": fmtAlertTime(now)}}
	if diff := cmp.Diff(want, payload); diff != "" {
		t.Fatalf("payload (-want +got):\n%s", diff)
	}
	st := h.alertGet(ruleID)
	if st["current_state"] != "alert" || st["since"] != fmtAlertTime(now) || st["last_evaluated_at"] != fmtAlertTime(now) || st["current_value"] != 4.0 {
		t.Fatalf("rule after trigger: %v", st)
	}
	r := h.do("GET", builderBase+"/v1/alerts", nil, builderHeaders...)
	mustStatus(t, r, 200)
	mustBody(t, r, map[string]any{"data": []any{map[string]any{"alert_rule_id": ruleID, "name": "Busy", "project_id": "2001",
		"metric": "call_volume", "operator": ">=", "threshold_value": 3, "window_duration": "5m",
		"since": fmtAlertTime(now), "last_evaluated_at": fmtAlertTime(now), "current_value": 4}}})

	// Still breaching: no new event while the state holds.
	h.advance(time.Minute)
	rc.none(t)

	// Volume falls: the four conversations leave the window, one new one
	// keeps data in it.
	h.advance(3 * time.Minute)
	h.chatCreateN(1)
	now = h.advance(time.Minute + time.Second) // the 6-minute evaluation
	got = rc.next(t)
	if got.Header.Get("X-PolyAI-Event-ID") == eventID {
		t.Error("resolved event reuses the triggered event id")
	}
	if err := json.Unmarshal(got.Body, &payload); err != nil {
		t.Fatal(err)
	}
	resolvedAt := fmtAlertTime(now.Truncate(time.Minute))
	want = map[string]any{"event_type": "alerts.resolved", "alert": map[string]any{
		"id": ruleID, "name": "Busy", "project_id": "2001", "metric": "call_volume", "operator": ">=",
		"threshold_value": 3.0, "current_value": 1.0, "previous_state": "alert", "resolved_at": resolvedAt}}
	if diff := cmp.Diff(want, payload); diff != "" {
		t.Fatalf("payload (-want +got):\n%s", diff)
	}
	ts, _ := strconv.ParseInt(got.Header.Get("X-PolyAI-Timestamp"), 10, 64)
	verifySignature(t, secret, got, time.Unix(ts, 0))
	if ts != now.Truncate(time.Minute).Unix() {
		t.Errorf("timestamp %d, want the evaluation time", ts)
	}
	mustBody(t, h.do("GET", builderBase+"/v1/alerts", nil, builderHeaders...), map[string]any{"data": []any{}})

	log := h.api.Deliveries()
	if len(log) != 2 || !log[0].Delivered || log[0].Status != 200 || log[0].Attempt != 1 || log[1].EventType != "alerts.resolved" {
		t.Fatalf("delivery log: %+v", log)
	}
}

// alertStateHarness has a rule and a receiver; step runs n conversations,
// advances to the next evaluation and returns the rule.
func TestAlertStateMoves(t *testing.T) {
	t.Parallel()
	type step struct {
		convs     int
		wantState string
		wantValue any
		wantEvent string // "" none
		wantPrev  string
	}
	run := func(t *testing.T, yaml string, steps []step) {
		var h *harness
		if yaml == "" {
			h = newHarness(t)
		} else {
			h = newHarness(t, yaml)
		}
		rc := newReceiver(t, nil)
		h.webhookCreate(map[string]any{"name": "r", "url": rc.srv.URL, "event_types": []string{"alerts.triggered", "alerts.resolved"}})
		// window 5m; evaluations every minute: advance 5m between steps
		// so that each step's window holds only its own conversations.
		id := h.alertCreate(alertVolumeRule(nil))["id"].(string)
		for i, s := range steps {
			h.advance(4 * time.Minute)
			h.chatCreateN(s.convs)
			h.advance(time.Minute)
			st := h.alertGet(id)
			if st["current_state"] != s.wantState || !cmp.Equal(st["current_value"], s.wantValue) {
				t.Fatalf("step %d: state %v value %v, want %s %v", i, st["current_state"], st["current_value"], s.wantState, s.wantValue)
			}
			select {
			case got := <-rc.got:
				var p alertEventPayload
				_ = json.Unmarshal(got.Body, &p)
				if p.EventType != s.wantEvent || p.Alert.PreviousState != s.wantPrev {
					t.Fatalf("step %d: event %s prev %s, want %q %q", i, p.EventType, p.Alert.PreviousState, s.wantEvent, s.wantPrev)
				}
			default:
				if s.wantEvent != "" {
					t.Fatalf("step %d: no event, want %s", i, s.wantEvent)
				}
			}
		}
	}
	t.Run("default", func(t *testing.T) {
		run(t, "", []step{
			{0, "no_data", nil, "", ""},                        // ok → no_data: none
			{3, "alert", 3.0, EventAlertsTriggered, "no_data"}, // no_data → alert: triggered
			{1, "ok", 1.0, EventAlertsResolved, "alert"},       // alert → ok: resolved
			{1, "ok", 1.0, "", ""},                             // ok → ok: none
			{5, "alert", 5.0, EventAlertsTriggered, "ok"},      // ok → alert: triggered
			{0, "no_data", nil, "", ""},                        // alert → no_data: none
			{2, "ok", 2.0, "", ""},                             // no_data → ok: none
		})
	})
	t.Run("alert_trigger_from ok", func(t *testing.T) {
		yaml := string(scenarioDefaultYAML()) + "\nfidelity: {alert_trigger_from: ok}\n"
		run(t, yaml, []step{
			{0, "no_data", nil, "", ""},
			{3, "alert", 3.0, "", ""}, // no_data → alert: no event under the switch
			{1, "ok", 1.0, EventAlertsResolved, "alert"},
			{4, "alert", 4.0, EventAlertsTriggered, "ok"},
		})
	})
}

func TestAlertInitialUnknownAndFailedEvaluation(t *testing.T) {
	t.Parallel()
	h := newHarness(t, string(scenarioDefaultYAML())+"\nfidelity: {initial_alert_state: unknown}\n")
	id := h.alertCreate(alertVolumeRule(nil))["id"].(string)
	if st := h.alertGet(id); st["current_state"] != "unknown" {
		t.Fatalf("initial state %v", st["current_state"])
	}
	h.chatCreateN(1)
	h.advance(time.Minute)
	st := h.alertGet(id)
	if st["current_state"] != "ok" || st["current_value"] != 1.0 {
		t.Fatalf("after evaluation: %v", st)
	}
	evaluated := st["last_evaluated_at"]

	// A monitoring fault fails one pass: unknown, value and evaluation time kept.
	if _, err := h.faults.Add(faults.Rule{Match: faults.Match{Family: "alerts", Path: EvaluationPath},
		Action: faults.Action{Preset: PresetMonitoringBackend}, Times: 1}); err != nil {
		t.Fatal(err)
	}
	now := h.advance(time.Minute)
	st = h.alertGet(id)
	if st["current_state"] != "unknown" || st["since"] != fmtAlertTime(now) || st["last_evaluated_at"] != evaluated || st["current_value"] != 1.0 {
		t.Fatalf("after failed evaluation: %v", st)
	}
	// The next pass works again.
	h.advance(time.Minute)
	if st = h.alertGet(id); st["current_state"] != "ok" {
		t.Fatalf("after recovery: %v", st)
	}
	// A disabled rule is not evaluated and keeps its state.
	mustStatus(t, h.do("PATCH", builderBase+"/v1/alert-rules/"+id, map[string]any{"enabled": false}, builderHeaders...), 200)
	before := h.alertGet(id)
	h.advance(10 * time.Minute)
	if diff := cmp.Diff(before, h.alertGet(id)); diff != "" {
		t.Fatalf("disabled rule changed: %s", diff)
	}
}

func TestAlertPresets(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for preset, want := range map[string]struct {
		status int
		msg    string
	}{PresetAlertsLimit: {409, "Maximum number of alert rules (10) reached"}, PresetMonitoringBackend: {502, MsgMonitoringBackend}} {
		if _, err := h.faults.Add(faults.Rule{Match: faults.Match{Family: "alerts", Method: "POST"}, Action: faults.Action{Preset: preset}, Times: 1}); err != nil {
			t.Fatal(err)
		}
		r := h.do("POST", builderBase+"/v1/alert-rules", alertVolumeRule(nil), builderHeaders...)
		mustStatus(t, r, want.status)
		mustBody(t, r, builderError{Message: want.msg, Errors: []FieldError{}})
	}
	if _, err := h.faults.Add(faults.Rule{Match: faults.Match{Family: "webhooks"}, Action: faults.Action{Preset: PresetAlertsLimit}, Times: 1}); err != nil {
		t.Fatal(err)
	}
	r := h.do("POST", builderBase+"/v1/webhook-endpoints", map[string]any{}, builderHeaders...)
	mustStatus(t, r, 409)
	mustBody(t, r, builderError{Message: "Maximum number of webhook endpoints (10) reached", Errors: []FieldError{}})
}

func TestAlertMetrics(t *testing.T) {
	t.Parallel()
	yaml := `
accounts:
  - slug: acme
    id: "1001"
    region: us
    projects:
      - slug: support
        id: "2001"
        dialogue:
          rules:
            - {name: slow, when: {contains: slow}, then: {reply: "...", latency: 3s}}
            - {name: broken, when: {contains: broken}, then: {reply: "oops", function_error: true}}
            - {name: crash, when: {contains: crash}, then: {reply: "x", crash: true}}
      - slug: sales
        id: "2002"
credentials:
  - {kind: chat, key: test-chat-key, account: acme, project: support}
  - {kind: connector, key: test-connector-token, account: acme, project: support, client_env: live}
  - {kind: builder, key: test-builder-key, account: acme}
`
	h := newHarness(t, yaml)
	mk := func(metric string, project any) string {
		return h.alertCreate(map[string]any{"name": metric, "project_id": project, "metric": metric,
			"operator": ">", "threshold_value": 0, "window_duration": "5m"})["id"].(string)
	}
	p50, p95 := mk("turn_latency_p50", "support"), mk("turn_latency_p95", nil)
	fe, cr := mk("function_errors", "support"), mk("call_crashes", nil)
	api, sales := mk("api_errors", nil), mk("call_volume", "sales")
	// 10 turns: 9 at 800ms, 1 at 3000ms; 1 function error; 1 crash.
	id := h.create(nil)
	for range 8 {
		mustStatus(t, h.respond(id, "hello"), 200)
	}
	mustStatus(t, h.respond(id, "slow please"), 200)
	mustStatus(t, h.respond(id, "broken"), 200)
	id2 := h.create(nil)
	mustStatus(t, h.respond(id2, "crash now"), 200)
	// Two API errors: a 500 answer of the chat API and a recorded one.
	if _, err := h.faults.Add(faults.Rule{Match: faults.Match{Family: "chat"}, Action: faults.Action{Status: 500}, Times: 1}); err != nil {
		t.Fatal(err)
	}
	mustStatus(t, h.respond(id, "hello"), 500)
	if err := h.api.RecordAPIError("acme", "support"); err != nil {
		t.Fatal(err)
	}
	h.advance(time.Minute)
	for rid, want := range map[string]any{p50: 800.0, p95: 3000.0, fe: 1.0, cr: 1.0, api: 2.0, sales: nil} {
		st := h.alertGet(rid)
		if !cmp.Equal(st["current_value"], want) {
			t.Errorf("%s: value %v, want %v (state %v)", st["metric"], st["current_value"], want, st["current_state"])
		}
	}
	if st := h.alertGet(sales); st["current_state"] != "no_data" {
		t.Errorf("sales: %v", st["current_state"])
	}
	// RecordConversationEvent adds function errors and crashes from Go.
	if err := h.api.RecordConversationEvent(id2, "function_error"); err != nil {
		t.Fatal(err)
	}
	h.advance(time.Minute)
	if st := h.alertGet(fe); st["current_value"] != 2.0 {
		t.Errorf("function errors of support after a recorded one in another conversation of the project: %v", st["current_value"])
	}
}

func TestPercentile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   []int64
		p    int
		want int64
	}{{nil, 50, 0}, {[]int64{5}, 95, 5}, {[]int64{1, 2, 3, 4}, 50, 2}, {[]int64{4, 3, 2, 1}, 95, 4}, {[]int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 95, 10}} {
		if got := percentile(tc.in, tc.p); got != tc.want {
			t.Errorf("percentile(%v, %d) = %d, want %d", tc.in, tc.p, got, tc.want)
		}
	}
}

// buildDocs returns every document of the build families, to check that a
// rejected request changed nothing.
func (h *harness) buildDocs() map[string]string {
	h.t.Helper()
	out := map[string]string{}
	for _, kind := range []string{docAlertRule, docWebhook, docAgent, docSnapshot} {
		for _, region := range scenario.Regions {
			if err := store.ListDocs(h.store, kind, region, func(id string, doc *map[string]any) bool {
				out[kind+"/"+region+"/"+id] = fmt.Sprint(*doc)
				return true
			}); err != nil {
				h.t.Fatal(err)
			}
		}
	}
	n, _ := h.store.Len()
	out["len"] = strconv.Itoa(n)
	return out
}
