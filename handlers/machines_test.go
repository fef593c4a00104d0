package handlers

// The state machines' transitions and the clock events as the engine and
// the edge record them (engine/machines.go, docs/coverage.md): each test
// drives one kind of resource through the moves of its machine and
// compares what the instance's coverage counts recorded. A refused
// request records nothing.

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/faults"
)

// moves are the transitions of a machine an instance recorded, as
// "from→to" ("new" for a resource coming into being) with their counts.
func moves(h *harness, machine string) map[string]uint64 {
	out := map[string]uint64{}
	for k, n := range h.api.Coverage().Snapshot().Transitions {
		if k.Machine == machine {
			from := k.From
			if from == "" {
				from = "new"
			}
			out[from+"→"+k.To] = n.N
		}
	}
	return out
}

// clockRuns is how often an instance recorded a kind of clock work.
func clockRuns(h *harness, kind string) uint64 {
	return h.api.Coverage().Snapshot().ClockEvents[kind].N
}

// mustMoves compares a machine's recorded moves.
func mustMoves(t *testing.T, h *harness, machine string, want map[string]uint64) {
	t.Helper()
	if diff := cmp.Diff(want, moves(h, machine)); diff != "" {
		t.Errorf("%s moves (-want +got):\n%s", machine, diff)
	}
}

func TestChatMachine(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	say := func(id, msg string) {
		t.Helper()
		mustStatus(t, h.respond(id, msg), 200)
	}
	closeChat := func(id string, status int) {
		t.Helper()
		mustStatus(t, h.do("PUT", chatBase+"/close", map[string]any{"conversation_id": id}, chatHeaders...), status)
	}
	a := h.create(nil)
	say(a, "hours")
	say(a, "hours")
	closeChat(a, 200)
	closeChat(a, 410) // refused: nothing recorded
	closeChat(h.create(nil), 200)
	ended := h.create(nil)
	say(ended, "bye")
	mustStatus(t, h.respond(ended, "hours"), 410)
	d := h.create(nil)
	say(d, "hours")
	say(d, "agent")
	say(h.create(nil), "agent")
	f := h.create(nil)
	say(f, "hours")
	say(f, "bye")
	h.create(map[string]any{"initial_message": "bye"})
	h.create(map[string]any{"initial_message": "agent"})
	closeChat(h.create(map[string]any{"initial_message": "hours"}), 200)
	mustMoves(t, h, engine.MachineChatConversation.Name, map[string]uint64{
		"new→created": 9, "created→responded": 4, "responded→responded": 1, "responded→closed": 2, "created→closed": 1,
		"created→ended": 2, "responded→ended": 1, "created→handoff": 2, "responded→handoff": 1,
	})
}

func TestMessagingMachine(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	srv := msgServer(h)
	tok := msgToken(h)
	msgSession(h, tok, false)
	h.advance(10 * time.Minute) // the idle limit: it expires

	ws := msgJoin(t, srv, msgSession(h, tok, false), tok)
	ws.send(evUserEnd, map[string]any{})
	ws.expect(evUserEnd, 5, nil)
	ws.expect(evSessionEnd, 6, nil)
	ws.expectClose(wsCloseNormal)

	ws = msgDial(t, srv, msgSession(h, tok, false), tok, "")
	ws.expect(evBatch, -1, nil)
	h.advance(10 * time.Minute)
	ws.expect(evSessionEnd, 2, map[string]any{"reason": reasonAbandoned})
	ws.expectClose(wsCloseExpired)
	mustMoves(t, h, engine.MachineMessagingSession.Name, map[string]uint64{
		"new→created": 3, "created→idle_expired": 1, "created→connected": 2, "connected→ended": 1, "connected→idle_expired": 1,
	})
	if n := clockRuns(h, engine.ClockMessagingIdleExpiry.Kind); n != 2 {
		t.Errorf("%d idle expiries, want 2", n)
	}
}

func TestBranchMachine(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	b1 := h.agentDo("POST", "/support/branches", map[string]any{"name": "one"}, 201).Map(t)["branchId"].(string)
	h.agentDo("POST", "/support/branches/"+b1+"/merge", nil, 200)
	b2 := h.agentDo("POST", "/support/branches", map[string]any{"name": "two"}, 201).Map(t)["branchId"].(string)
	h.agentDo("PATCH", "/support/branches/main/behavior", map[string]any{"behavior": "a"}, 200)
	h.agentDo("PATCH", "/support/branches/"+b2+"/behavior", map[string]any{"behavior": "b"}, 200)
	h.agentDo("POST", "/support/branches/"+b2+"/merge", nil, 409)
	h.agentDo("DELETE", "/support/branches/"+b2, nil, 200)
	h.agentDo("DELETE", "/support/branches/"+b2, nil, 404)
	h.agentDo("POST", "/support/branches/main/merge", nil, 400)
	mustMoves(t, h, engine.MachineBranch.Name, map[string]uint64{
		"new→created": 2, "created→merged": 1, "created→conflicted": 1, "created→deleted": 1,
	})
}

func TestDeploymentMachine(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	id := func(r response) string { return r.Map(t)["id"].(string) }
	deploy := func(from, op string, body any) string {
		t.Helper()
		return id(h.agentDo("POST", "/support/deployments/"+from+"/"+op, body, 200))
	}
	pub := id(h.agentDo("POST", "/support/deployments/publish", nil, 201))
	pre := deploy(pub, "promote", nil)
	live := deploy(pre, "promote", nil)
	deploy(pub, "promote", map[string]any{"targetEnvironment": "live"})
	rb := deploy(pub, "rollback", nil)
	deploy(pre, "rollback", nil)
	deploy(live, "rollback", nil)
	deploy(rb, "rollback", nil)
	deploy(rb, "promote", nil)
	deploy(rb, "promote", map[string]any{"targetEnvironment": "live"})
	h.agentDo("POST", "/support/deployments/"+live+"/promote", nil, 400)
	mustMoves(t, h, engine.MachineDeployment.Name, map[string]uint64{
		"new→published": 1, "published→promoted": 1, "promoted→live": 1, "published→live": 1,
		"published→rolled_back": 1, "promoted→rolled_back": 1, "live→rolled_back": 1, "rolled_back→rolled_back": 1,
		"rolled_back→promoted": 1, "rolled_back→live": 1,
	})
}

// TestAlertRuleMachine takes each of the twelve moves between the four
// states once: a step's evaluation sees only its own conversations (a
// 5m window, a step every 5m), three or more alert, one ok, none
// no_data; a failed pass is unknown, and the next pass (a minute later)
// moves on by the conversations of the failed step. The rule is created
// ok and the first pass, without conversations, makes it no_data.
func TestAlertRuleMachine(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.alertCreate(alertVolumeRule(nil))
	for _, s := range []struct {
		convs int
		fail  bool
	}{
		{3, false}, // ok → no_data, then no_data → alert
		{0, false}, // alert → no_data
		{1, true},  // no_data → unknown, then unknown → ok
		{3, false}, // ok → alert
		{0, true},  // alert → unknown, then unknown → no_data
		{1, false}, // no_data → ok
		{3, true},  // ok → unknown, then unknown → alert
		{1, false}, // alert → ok
	} {
		h.advance(4 * time.Minute)
		h.chatCreateN(s.convs)
		if s.fail {
			if _, err := h.faults.Add(faults.Rule{Match: faults.Match{Family: "alerts", Path: engine.EvaluationPath},
				Action: faults.Action{Preset: engine.PresetMonitoringBackend}, Times: 1}); err != nil {
				t.Fatal(err)
			}
		}
		h.advance(time.Minute)
	}
	want := map[string]uint64{"new→ok": 1}
	for _, from := range []string{"ok", "alert", "no_data", "unknown"} {
		for _, to := range []string{"ok", "alert", "no_data", "unknown"} {
			if from != to {
				want[from+"→"+to] = 1
			}
		}
	}
	mustMoves(t, h, engine.MachineAlertRule.Name, want)
	if n := clockRuns(h, engine.ClockAlertsEvaluation.Kind); n != 40 {
		t.Errorf("%d evaluation passes, want 40 (one a minute)", n)
	}

	unknown := newHarness(t, string(scenarioDefaultYAML())+"\nfidelity: {initial_alert_state: unknown}\n")
	unknown.alertCreate(alertVolumeRule(nil))
	mustMoves(t, unknown, engine.MachineAlertRule.Name, map[string]uint64{"new→unknown": 1})
}

func TestWebhookEndpointMachine(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	rc := newReceiver(t, nil)
	patch := func(id string, enabled bool) {
		t.Helper()
		mustStatus(t, h.do("PATCH", builderBase+"/v1/webhook-endpoints/"+id, map[string]any{"enabled": enabled}, builderHeaders...), 200)
	}
	del := func(id string) {
		t.Helper()
		mustStatus(t, h.do("DELETE", builderBase+"/v1/webhook-endpoints/"+id, nil, builderHeaders...), 204)
	}
	on := h.webhookCreate(map[string]any{"name": "on", "url": rc.srv.URL, "event_types": []string{"alerts.triggered"}})["id"].(string)
	patch(on, false)
	patch(on, false) // no move
	patch(on, true)
	del(on)
	off := h.webhookCreate(map[string]any{"name": "off", "url": rc.srv.URL, "event_types": []string{"alerts.triggered"}, "enabled": false})["id"].(string)
	del(off)
	mustMoves(t, h, engine.MachineWebhookEndpoint.Name, map[string]uint64{
		"new→enabled": 1, "enabled→disabled": 1, "disabled→enabled": 1, "enabled→deleted": 1, "new→disabled": 1, "disabled→deleted": 1,
	})
}

// TestWebhookDeliveryMachine delivers one event to five receivers: one
// answers 200; one 400 (not retried); one 503 then 200; one 503 then
// 400; one 503 to every attempt, which gives up after the sixth.
func TestWebhookDeliveryMachine(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for name, statuses := range map[string][]int{
		"ok": {200}, "bad": {400}, "late": {503, 200}, "retried bad": {503, 400}, "down": {503, 503, 503, 503, 503, 503},
	} {
		rc := newReceiver(t, func(n int) int { return statuses[n-1] })
		h.webhookCreate(map[string]any{"name": name, "url": rc.srv.URL, "event_types": []string{"alerts.triggered"}})
	}
	webhookTrigger(h)
	h.advance(6 * time.Hour)
	mustMoves(t, h, engine.MachineWebhookDelivery.Name, map[string]uint64{
		"new→attempted": 5, "attempted→delivered": 1, "attempted→failed": 1, "attempted→retried": 3,
		"retried→delivered": 1, "retried→failed": 1, "retried→retried": 4, "retried→given_up": 1,
	})
	if first, retries := clockRuns(h, engine.ClockWebhooksAttempt.Kind), clockRuns(h, engine.ClockWebhooksRetry.Kind); first != 5 || retries != 7 {
		t.Errorf("%d first attempts and %d retries, want 5 and 7", first, retries)
	}
}

// TestOutboundCallMachine places a call of each outcome and lets them run
// to the end of their retention.
func TestOutboundCallMachine(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `
accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
        outbound:
          enabled: true
          destinations:
            - {match: "+15550000001", outcome: no_answer}
            - {match: "+15550000002", outcome: busy}
            - {match: "+15550000003", outcome: rejected}
            - {match: "+15550000004", outcome: failed}
            - {match: "+15550000005", outcome: queue_timeout}
credentials:
  - {kind: outbound, key: tok, account: acme}
`)
	hdr := []string{"X-Service-Auth-Token", "tok"}
	for _, to := range []string{"+15550000001", "+15550000002", "+15550000003", "+15550000004", "+15550000005", "+14155552671"} {
		outCall(h, map[string]any{"to_number": to}, hdr...)
	}
	h.advance(time.Minute) // every call ends
	want := map[string]uint64{"new→queued": 6, "queued→calling": 5, "queued→queue_timeout": 1, "calling→answered": 1, "answered→success": 1,
		"calling→no_answer": 1, "calling→busy": 1, "calling→rejected": 1, "calling→failed": 1}
	mustMoves(t, h, engine.MachineOutboundCall.Name, want)
	h.advance(3 * time.Hour) // past the retention
	for _, s := range []string{"success", "no_answer", "busy", "rejected", "failed", "queue_timeout"} {
		want[s+"→expired"] = 1
	}
	mustMoves(t, h, engine.MachineOutboundCall.Name, want)
	if steps, drops := clockRuns(h, engine.ClockOutboundProgress.Kind), clockRuns(h, engine.ClockOutboundRetention.Kind); steps != 12 || drops != 6 {
		t.Errorf("%d steps and %d drops, want 12 and 6", steps, drops)
	}
}

func TestDNIReservationMachine(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	reserve := func(want string) {
		t.Helper()
		r := h.reserve(map[string]any{"attributes": map[string]any{}}, "test-dni-key")
		mustStatus(t, r, 200)
		mustBody(t, r, engine.DniResponse{DNI: want})
	}
	reserve("+14155550100")
	for range 2 {
		if _, err := h.api.Dial("+14155550100", ""); err != nil {
			t.Fatal(err)
		}
	}
	reserve("+14155550101")
	reserve("+14155550102")
	h.advance(16 * time.Minute)
	for range 2 { // the first finds the window over
		if _, err := h.api.Dial("+14155550100", ""); err == nil {
			t.Fatal("a dial after the window was routed")
		}
	}
	reserve("+14155550100") // found expired already
	reserve("+14155550101") // found expired now
	mustMoves(t, h, engine.MachineDNIReservation.Name, map[string]uint64{
		"new→reserved": 5, "reserved→used": 1, "used→used": 1, "used→expired": 1, "reserved→expired": 1,
	})
}

func TestExternalEventMachine(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	mustStatus(t, h.event("event_id_location=payload&event_id_path=ref&"+eeQuery, "application/json", `{"ref":"X42"}`), 201)
	id := h.dataCreate(nil)
	h.dataRespond(id, "pay X42") // awaits the pending event
	mustStatus(t, h.event("event_id_location=payload&event_id_path=ref&"+eeQuery, "application/json", `{"ref":"`+id+`"}`), 201)
	mustMoves(t, h, engine.MachineExternalEvent.Name, map[string]uint64{"new→unbound": 1, "unbound→bound": 1, "new→bound": 1})
}
