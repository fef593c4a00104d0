package mocktest

// The behaviour suite's state-machine cases (docs/coverage.md#state-machines),
// through HTTP and the Mock interface only. Deliveries go to 127.0.0.1:1,
// where nothing listens, so every attempt fails.

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
)

// suiteMachineCases are the state-machine cases of RunBehaviourSuite.
var suiteMachineCases = []struct {
	name string
	run  func(t *testing.T, m mockplatform.Mock)
}{
	{"ChatMachine", suiteChatMachine},
	{"AgentMachines", suiteAgentMachines},
	{"AlertMachine", suiteAlertMachine},
	{"WebhookMachines", suiteWebhookMachines},
	{"OutboundMachine", suiteOutboundMachine},
	{"ReservationMachine", suiteReservationMachine},
	{"EventMachine", suiteEventMachine},
	{"SessionMachine", suiteSessionMachine},
}

// suiteMoves compares a machine's moves in m's coverage report.
func suiteMoves(t *testing.T, m mockplatform.Mock, machine string, want map[string]uint64) {
	t.Helper()
	r := m.Coverage()
	if r == nil {
		t.Fatalf("Coverage() = nil: %v", m.Err())
	}
	got := map[string]uint64{}
	for _, f := range r.Families {
		for _, mr := range f.Machines {
			if mr.Name != machine {
				continue
			}
			for _, tr := range mr.Transitions {
				if tr.N > 0 {
					from := tr.From
					if from == "" {
						from = "new"
					}
					got[from+"→"+tr.To] = tr.N
				}
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s moves (-want +got):\n%s", machine, diff)
	}
}

// builder sends a builder request with the default key and checks its status.
func builder(t *testing.T, m mockplatform.Mock, method, path string, body any, status int) map[string]any {
	t.Helper()
	r := Do(t, m, method, m.BuilderURL("us")+"/v1"+path, body, "X-Api-Key", "test-builder-key")
	MustStatus(t, r, status)
	if len(r.Body) == 0 {
		return nil
	}
	return r.Object(t)
}

// suiteChatMachine: each move of a chat conversation; a refused turn or
// close moves nothing.
func suiteChatMachine(t *testing.T, m mockplatform.Mock) {
	say := func(id, msg string) { t.Helper(); MustStatus(t, ChatRespond(t, m, id, msg), http.StatusOK) }
	closeChat := func(id string, status int) {
		t.Helper()
		MustStatus(t, Do(t, m, "PUT", m.RuntimeURL("us-1")+suiteChatPath+"/close", map[string]any{"conversation_id": id}), status)
	}
	create := func(initial string) string {
		t.Helper()
		r := Do(t, m, "POST", m.RuntimeURL("us-1")+suiteChatPath+"/create", map[string]any{"initial_message": initial})
		MustStatus(t, r, http.StatusOK)
		return r.Object(t)["conversation_id"].(string)
	}
	a := ChatCreate(t, m)
	say(a, "hours")
	say(a, "hours")
	closeChat(a, http.StatusOK)
	closeChat(a, http.StatusGone)
	closeChat(ChatCreate(t, m), http.StatusOK)
	b := ChatCreate(t, m)
	say(b, "bye")
	MustStatus(t, ChatRespond(t, m, b, "hours"), http.StatusGone)
	c := ChatCreate(t, m)
	say(c, "hours")
	say(c, "agent")
	say(ChatCreate(t, m), "agent")
	d := ChatCreate(t, m)
	say(d, "hours")
	say(d, "bye")
	create("bye")
	create("agent")
	closeChat(create("hours"), http.StatusOK)
	suiteMoves(t, m, engine.MachineChatConversation.Name, map[string]uint64{
		"new→created": 9, "created→responded": 4, "responded→responded": 1, "responded→closed": 2, "created→closed": 1,
		"created→ended": 2, "responded→ended": 1, "created→handoff": 2, "responded→handoff": 1,
	})
}

// suiteAgentMachines: branches merged and conflicted; deployments
// published, promoted and rolled back.
func suiteAgentMachines(t *testing.T, m mockplatform.Mock) {
	if got := builder(t, m, "GET", "/agents/support", nil, 200)["agentName"]; got != "Support Agent" {
		t.Fatalf("agent support is %v, want the default scenario's Support Agent", got)
	}
	b1 := builder(t, m, "POST", "/agents/support/branches", map[string]any{"name": "one"}, 201)["branchId"].(string)
	builder(t, m, "POST", "/agents/support/branches/"+b1+"/merge", nil, 200)
	b2 := builder(t, m, "POST", "/agents/support/branches", map[string]any{"name": "two"}, 201)["branchId"].(string)
	builder(t, m, "PATCH", "/agents/support/branches/main/behavior", map[string]any{"behavior": "a"}, 200)
	builder(t, m, "PATCH", "/agents/support/branches/"+b2+"/behavior", map[string]any{"behavior": "b"}, 200)
	builder(t, m, "POST", "/agents/support/branches/"+b2+"/merge", nil, 409)
	builder(t, m, "DELETE", "/agents/support/branches/"+b2, nil, 200)
	builder(t, m, "DELETE", "/agents/support/branches/"+b2, nil, 404)
	suiteMoves(t, m, engine.MachineBranch.Name, map[string]uint64{
		"new→created": 2, "created→merged": 1, "created→conflicted": 1, "created→deleted": 1,
	})

	deploy := func(from, op string, body any) string {
		t.Helper()
		return builder(t, m, "POST", "/agents/support/deployments/"+from+"/"+op, body, 200)["id"].(string)
	}
	pub := builder(t, m, "POST", "/agents/support/deployments/publish", nil, 201)["id"].(string)
	pre := deploy(pub, "promote", nil)
	live := deploy(pre, "promote", nil)
	deploy(pub, "promote", map[string]any{"targetEnvironment": "live"})
	rb := deploy(pub, "rollback", nil)
	deploy(pre, "rollback", nil)
	deploy(live, "rollback", nil)
	deploy(rb, "rollback", nil)
	deploy(rb, "promote", nil)
	deploy(rb, "promote", map[string]any{"targetEnvironment": "live"})
	builder(t, m, "POST", "/agents/support/deployments/"+live+"/promote", nil, 400)
	suiteMoves(t, m, engine.MachineDeployment.Name, map[string]uint64{
		"new→published": 1, "published→promoted": 1, "promoted→live": 1, "published→live": 1,
		"published→rolled_back": 1, "promoted→rolled_back": 1, "live→rolled_back": 1, "rolled_back→rolled_back": 1,
		"rolled_back→promoted": 1, "rolled_back→live": 1,
	})
}

// suiteVolumeRule is an alert rule on the support agent's conversations:
// three or more in 5 minutes alert, fewer are ok, none no_data.
var suiteVolumeRule = map[string]any{"name": "Volume", "project_id": "support", "metric": "call_volume",
	"operator": ">=", "threshold_value": 3, "window_duration": "5m"}

// suiteAlertMachine takes each of the twelve moves of an alert rule once,
// then creates a rule unknown under initial_alert_state: unknown.
func suiteAlertMachine(t *testing.T, m mockplatform.Mock) {
	builder(t, m, "POST", "/alert-rules", suiteVolumeRule, 201)
	for _, s := range []struct {
		convs int
		fail  bool
	}{
		{3, false}, // ok → no_data (the first pass), then no_data → alert
		{0, false}, // alert → no_data
		{1, true},  // no_data → unknown, then unknown → ok
		{3, false}, // ok → alert
		{0, true},  // alert → unknown, then unknown → no_data
		{1, false}, // no_data → ok
		{3, true},  // ok → unknown, then unknown → alert
		{1, false}, // alert → ok
	} {
		m.Advance(4 * time.Minute)
		for range s.convs {
			ChatCreate(t, m)
		}
		if s.fail {
			if _, err := m.AddFault(mockplatform.Fault{Match: faults.Match{Family: "alerts", Path: engine.EvaluationPath},
				Action: faults.Action{Preset: engine.PresetMonitoringBackend}, Times: 1}); err != nil {
				t.Fatal(err)
			}
		}
		m.Advance(time.Minute)
	}
	want := map[string]uint64{"new→ok": 1}
	states := []string{"ok", "alert", "no_data", "unknown"}
	for _, from := range states {
		for _, to := range states {
			if from != to {
				want[from+"→"+to] = 1
			}
		}
	}
	suiteMoves(t, m, engine.MachineAlertRule.Name, want)

	if err := m.LoadScenarioYAML(append(scenario.DefaultYAML(), "\nfidelity: {initial_alert_state: unknown}\n"...)); err != nil {
		t.Fatal(err)
	}
	builder(t, m, "POST", "/alert-rules", suiteVolumeRule, 201)
	want["new→unknown"] = 1
	suiteMoves(t, m, engine.MachineAlertRule.Name, want)
}

// suiteWebhookMachines: failing deliveries retried until given up, or to
// a disabled endpoint; then the endpoints' switches and deletes.
func suiteWebhookMachines(t *testing.T, m mockplatform.Mock) {
	endpoint := func(name string, enabled bool) string {
		t.Helper()
		return builder(t, m, "POST", "/webhook-endpoints", map[string]any{"name": name, "url": "http://127.0.0.1:1/hook",
			"event_types": []string{"alerts.triggered"}, "enabled": enabled}, 201)["id"].(string)
	}
	enable := func(id string, on bool) {
		t.Helper()
		builder(t, m, "PATCH", "/webhook-endpoints/"+id, map[string]any{"enabled": on}, 200)
	}
	endpoint("down", true)
	off := endpoint("switched off", true)
	builder(t, m, "POST", "/alert-rules", suiteVolumeRule, 201)
	for range 3 {
		ChatCreate(t, m)
	}
	m.Advance(time.Minute) // the rule alerts: a first attempt to each
	enable(off, false)
	m.Advance(6 * time.Hour) // every retry
	suiteMoves(t, m, engine.MachineWebhookDelivery.Name, map[string]uint64{
		"new→attempted": 2, "attempted→retried": 2, "retried→retried": 4, "retried→given_up": 1, "retried→failed": 1,
	})

	enable(off, true)
	builder(t, m, "DELETE", "/webhook-endpoints/"+off, nil, 204)
	builder(t, m, "DELETE", "/webhook-endpoints/"+endpoint("born off", false), nil, 204)
	suiteMoves(t, m, engine.MachineWebhookEndpoint.Name, map[string]uint64{
		"new→enabled": 2, "enabled→disabled": 1, "disabled→enabled": 1, "enabled→deleted": 1, "new→disabled": 1, "disabled→deleted": 1,
	})
}

// suiteOutboundMachine places a call of each outcome and lets them expire.
func suiteOutboundMachine(t *testing.T, m mockplatform.Mock) {
	for _, outcome := range []string{"no_answer", "busy", "rejected", "failed", "queue_timeout", ""} {
		if outcome != "" {
			if _, err := m.AddFault(mockplatform.Fault{Match: faults.Match{Family: "outbound", Method: "POST"},
				Action: faults.Action{Preset: engine.PresetOutboundOutcome + ":" + outcome}, Times: 1}); err != nil {
				t.Fatal(err)
			}
		}
		r := Do(t, m, "POST", m.RuntimeURL("us-1")+"/v1/outbound-calling", map[string]any{"to_number": "+14155552671"},
			"X-Service-Auth-Token", "test-outbound-token")
		MustStatus(t, r, http.StatusOK)
	}
	m.Advance(time.Minute) // every call ends
	m.Advance(3 * time.Hour)
	want := map[string]uint64{"new→queued": 6, "queued→calling": 5, "queued→queue_timeout": 1, "calling→answered": 1, "answered→success": 1,
		"calling→no_answer": 1, "calling→busy": 1, "calling→rejected": 1, "calling→failed": 1}
	for _, s := range []string{"success", "no_answer", "busy", "rejected", "failed", "queue_timeout"} {
		want[s+"→expired"] = 1
	}
	suiteMoves(t, m, engine.MachineOutboundCall.Name, want)
}

// suiteReservationMachine: a pool exhausted, then a reservation expired.
func suiteReservationMachine(t *testing.T, m mockplatform.Mock) {
	reserve := func(status int) {
		t.Helper()
		MustStatus(t, Do(t, m, "POST", m.RuntimeURL("us-1")+"/v1/conversations/dni-reservation",
			map[string]any{"attributes": map[string]any{}}, "X-Api-Key", "test-dni-key"), status)
	}
	for range 3 {
		reserve(http.StatusOK)
	}
	reserve(http.StatusNotFound)
	m.Advance(16 * time.Minute)
	reserve(http.StatusOK)
	suiteMoves(t, m, engine.MachineDNIReservation.Name, map[string]uint64{"new→reserved": 4, "reserved→expired": 1})
}

// suiteEventScenario has a dialogue that awaits an event.
const suiteEventScenario = `name: events
accounts:
  - slug: acme
    id: "1001"
    region: us
    projects:
      - slug: support
        id: "2001"
        dialogue:
          rules:
            - {name: pay, when: {regex: '(?i)pay (\w+)'}, then: {reply: Waiting., await_event: "{{index .Match 1}}"}}
credentials:
  - {kind: chat, key: test-chat-key, account: acme, project: support}
  - {kind: connector, key: test-connector-token, account: acme, project: support}
  - {kind: external_events, key: test-external-events-key, account: acme}
`

// suiteEventMachine: unbound events bind once awaited; named ones at once.
func suiteEventMachine(t *testing.T, m mockplatform.Mock) {
	if err := m.LoadScenarioYAML([]byte(suiteEventScenario)); err != nil {
		t.Fatal(err)
	}
	event := func(ref string) {
		t.Helper()
		MustStatus(t, Do(t, m, "POST", m.RuntimeURL("us-1")+"/v1/external-events/webhook?event_id_location=payload&event_id_path=ref&account_id=acme&project_id=support",
			map[string]any{"ref": ref}, "X-Api-Key", "test-external-events-key"), http.StatusCreated)
	}
	event("X42")
	id := ChatCreate(t, m)
	MustStatus(t, ChatRespond(t, m, id, "pay X42"), http.StatusOK)
	event(id)
	suiteMoves(t, m, engine.MachineExternalEvent.Name, map[string]uint64{"new→unbound": 1, "unbound→bound": 1, "new→bound": 1})
}

// suiteSessionMachine: a messaging session no socket joins expires at the
// idle limit.
func suiteSessionMachine(t *testing.T, m mockplatform.Mock) {
	r := Do(t, m, "POST", m.MessagingURL()+"/api/v1/access-token", map[string]any{}, "X-Host", "localhost")
	MustStatus(t, r, http.StatusOK)
	r = Do(t, m, "POST", m.MessagingURL()+"/api/v1/sessions", map[string]any{}, "Authorization", "Bearer "+r.Object(t)["access_token"].(string))
	MustStatus(t, r, http.StatusOK)
	m.Advance(scenario.DefaultSessionIdle)
	suiteMoves(t, m, engine.MachineMessagingSession.Name, map[string]uint64{"new→created": 1, "created→idle_expired": 1})
}
