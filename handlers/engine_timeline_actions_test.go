package handlers

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestTimelineWebhookReceiverDown: while the timeline has a receiver
// down, its deliveries fail as if it answered the status (503 by
// default), nothing is sent, and they are retried as such; an endpoint
// the entry does not name is not affected; the retry after the window
// lands.
func TestTimelineWebhookReceiverDown(t *testing.T) {
	t.Parallel()
	h := timelineHarness(t, `timeline:
  - id: outage
    do: {webhook_receiver: down, for: 10m, endpoint: down-one}
`)
	down, up := newReceiver(t, nil), newReceiver(t, nil)
	h.webhookCreate(map[string]any{"name": "down-one", "url": down.srv.URL, "event_types": []string{"alerts.triggered"}})
	h.webhookCreate(map[string]any{"name": "up-one", "url": up.srv.URL, "event_types": []string{"alerts.triggered"}})
	webhookTrigger(h) // the alert fires at 1m
	up.next(t)
	h.advance(20 * time.Minute) // attempts at 1m, 2m and 7m fail; the one at 22m lands
	down.none(t)
	h.advance(5 * time.Minute)
	down.next(t)
	type row struct {
		At        time.Duration
		Name      string
		Status    int
		Error     string
		Delivered bool
	}
	names := map[string]string{down.srv.URL: "down-one", up.srv.URL: "up-one"}
	var got []row
	for _, d := range h.api.Deliveries() {
		got = append(got, row{d.Time.Sub(h.start), names[d.URL], d.Status, d.Error, d.Delivered})
	}
	fail := "HTTP 503 (receiver down: timeline)"
	want := []row{
		{time.Minute, "down-one", 503, fail, false},
		{time.Minute, "up-one", 200, "", true},
		{2 * time.Minute, "down-one", 503, fail, false},
		{7 * time.Minute, "down-one", 503, fail, false},
		{22 * time.Minute, "down-one", 200, "", true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("deliveries (-want +got):\n%s", diff)
	}
	// The receiver's window is not a request: nothing is journaled.
	if rows := h.timelineRows(); rows != nil {
		t.Errorf("journaled: %+v", rows)
	}
}

// TestTimelineActions: scheduled actions run the operation they name at
// their time, journaled as its request: publish, promote, a real-time
// config change, an external event, API errors, an alert evaluation, the
// expiry of messaging tokens; one that cannot run (a dni number nobody
// reserved) fails with the answer its request would get.
func TestTimelineActions(t *testing.T) {
	t.Parallel()
	h := timelineHarness(t, `timeline:
  - {at: 1m, do: {publish: {agent: support, message: nightly}}}
  - {at: 2m, do: {promote: {agent: support, to: pre-release, message: ship}}}
  - {at: 3m, do: {real_time_config: {agent: support, environment: sandbox, variables: {hours: "24/7"}}}}
  - {at: 4m, do: {external_event: {project: support, event_id: order-42, payload: {status: shipped}}}}
  - {at: 5m, do: {api_errors: {project: support, count: 3}}}
  - {at: 6m, do: {evaluate_alerts: true}}
  - {at: 7m, do: {expire_messaging_tokens: true}}
  - {at: 8m, do: {inbound_call: {number: "+14155550100", say: [hello], think: 5s}}}
  - {at: 30s, do: {promote: {agent: support, to: pre-release}}}
`)
	tok := h.do("POST", "/messaging/api/v1/access-token", `{}`, "X-Token", "test-connector-token", "X-Host", "localhost")
	mustStatus(t, tok, 200)
	h.alertCreate(map[string]any{"name": "Errors", "project_id": "support", "metric": "api_errors", "operator": ">=",
		"threshold_value": 3, "window_duration": "5m"})
	h.advance(10 * time.Minute)

	agent := "/builder/us/v1/agents/2001"
	got := h.timelineRows()
	want := []stepRow{
		{time.Minute, "POST", agent + "/deployments/publish", 201, "", "deploymentPublish", "do", 0, ""},
		{2 * time.Minute, "POST", "", 200, "", "deploymentPromote", "do", 0, ""},
		{3 * time.Minute, "PATCH", agent + "/real-time-configs/sandbox/variables", 200, "", "realTimeConfigVariables", "do", 0, ""},
		{4 * time.Minute, "POST", "/runtime/us-1/v1/external-events/webhook", 201, "", "externalEventPost", "do", 0, ""},
		{5 * time.Minute, "POST", "/_mock/alerts/inputs", 200, "", "recordAlertInput", "do", 0, ""},
		{6 * time.Minute, "POST", "/_mock/alerts/evaluate", 200, "", "evaluateAlerts", "do", 0, ""},
		{7 * time.Minute, "POST", "/_mock/messaging/tokens/expire", 200, "", "expireMessagingTokens", "do", 0, ""},
		{8 * time.Minute, "POST", "/_mock/dni/dial", 404, "", "dial", "start", 0, ""},
	}
	if len(got) == len(want) {
		if p := got[1].Path; !strings.HasPrefix(p, agent+"/deployments/") || !strings.HasSuffix(p, "/promote") {
			t.Errorf("promote path %s", p)
		}
		got[1].Path = ""
		if !strings.Contains(got[7].Error, "no active reservation") {
			t.Errorf("dial error %q", got[7].Error)
		}
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(stepRow{}, "Error")); diff != "" {
		t.Fatalf("timeline steps (-want +got):\n%s", diff)
	}
	// What each did.
	active := h.do("GET", agent+"/deployments/active", nil, builderHeaders...)
	mustStatus(t, active, 200)
	if m, _ := active.Map(t)["activeDeployments"].(map[string]any); m["sandbox"] == nil || m["pre-release"] == nil {
		t.Errorf("active deployments %v", m)
	}
	page := h.do("GET", agent+"/real-time-configs/sandbox", nil, builderHeaders...)
	if v, _ := page.Map(t)["variables"].(map[string]any); v["hours"] != "24/7" {
		t.Errorf("config page %s", page.Body)
	}
	if n := h.apiErrors(); n != 3 {
		t.Errorf("%d API errors, want 3", n)
	}
	rules, err := h.api.AlertRules()
	if err != nil || len(rules) != 1 || rules[0].State != "alert" {
		t.Errorf("alert rules %+v, %v", rules, err)
	}
	r := h.do("POST", "/messaging/api/v1/sessions", `{}`, "Authorization", "Bearer "+tok.Map(t)["access_token"].(string))
	mustStatus(t, r, 401)
	entries := h.api.Timeline().Entries
	if e := entries[7]; e.Ran != 1 || e.Failed != 1 || !strings.Contains(e.LastError, "no active reservation") {
		t.Errorf("the inbound call's status %+v", e)
	}
	// A promotion before anything was published has no deployment to
	// name: it fails without a request (none journaled above).
	if e := entries[8]; e.Ran != 1 || e.Failed != 1 || e.LastError != "promote support: no deployment is active in sandbox" {
		t.Errorf("the early promotion's status %+v", e)
	}
}

// TestTimelineCalls: background calls dial a connector's number, speak
// and hang up, as the simulated caller does; the steps are journaled as
// the control plane's dial, say and hangup.
func TestTimelineCalls(t *testing.T) {
	t.Parallel()
	h := timelineHarness(t, `timeline:
  - until: 1m
    calls: {number: "+14155550150", from: "+447700900123", calls_per_minute: 1, arrivals: even, turns: 1, think: 10s, messages: ["what are your hours"]}
`)
	h.advance(time.Minute)
	rows := h.timelineRows()
	if len(rows) != 3 {
		t.Fatalf("steps %+v", rows)
	}
	id := strings.TrimSuffix(strings.TrimPrefix(rows[1].Path, "/_mock/calls/"), "/say")
	want := []stepRow{
		{0, "POST", "/_mock/dni/dial", 200, "", "dial", "start", 0, ""},
		{10 * time.Second, "POST", "/_mock/calls/" + id + "/say", 200, "", "say", "turn", 0, ""},
		{20 * time.Second, "POST", "/_mock/calls/" + id + "/hangup", 200, "", "hangup", "end", 0, ""},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Fatalf("steps (-want +got):\n%s", diff)
	}
	c := h.conversation(id)
	if c.Channel != "VOICE-SIP" || c.InProgress || c.State["closed_by"] != "caller" || c.FromNumber != "+447700900123" ||
		len(c.Turns) != 2 || c.Turns[1].AgentResponse != "We are open 9am to 5pm, Monday to Friday." {
		t.Errorf("call %+v", c)
	}
}

// TestTimelineSessions: background messaging sessions open (journaled as
// the session's create), the agent joins, the user speaks and ends the
// session; an expire_messaging_sessions action expires the live ones.
func TestTimelineSessions(t *testing.T) {
	t.Parallel()
	h := timelineHarness(t, `timeline:
  - until: 2m
    sessions: {project: support, sessions_per_minute: 1, arrivals: even, turns: 1, think: 20s, messages: ["what are your hours"]}
  - {at: 70s, do: {expire_messaging_sessions: true}}
`)
	h.advance(0)
	live := h.api.MessagingSessions()
	if len(live) != 1 || live[0].ConversationID == "" {
		t.Fatalf("live sessions %+v", live)
	}
	first := live[0]
	h.advance(time.Minute)
	if live := h.api.MessagingSessions(); len(live) != 1 || live[0].ID == first.ID {
		t.Fatalf("after a minute: %+v", live)
	}
	h.advance(time.Minute)
	if live := h.api.MessagingSessions(); len(live) != 0 {
		t.Fatalf("after two minutes: %+v", live)
	}
	c := h.conversation(first.ConversationID)
	if c.Channel != "WEBCHAT" || c.InProgress || c.State["closed_by"] != "user" || len(c.Turns) != 2 ||
		c.Turns[1].UserInput != "what are your hours" {
		t.Errorf("first session's conversation %+v", c)
	}
	var ops []string
	for _, r := range h.timelineRows() {
		ops = append(ops, r.Op)
	}
	if diff := cmp.Diff([]string{"messagingSessionCreate", "messagingSessionCreate", "expireMessagingSession"}, ops); diff != "" {
		t.Errorf("journaled (-want +got):\n%s", diff)
	}
	// The second session expired at 70s: its turn finds it gone (and its
	// end is not tried).
	if e := h.api.Timeline().Entries[0]; e.Ran != 5 || e.Failed != 1 {
		t.Errorf("sessions' status %+v", e)
	}
}

// TestTimelineCampaign: an outbound campaign places its calls at its
// pace; a fault window's outbound.outcome preset sets the outcome of the
// call it meets.
func TestTimelineCampaign(t *testing.T) {
	t.Parallel()
	h := timelineHarness(t, `timeline:
  - do: {outbound_campaign: {project: support, numbers: ["+14155552671", "+14155552672"], pace: 5s, metadata: {campaign: c1}}}
  - {at: 5s, for: 1s, fault: {id: busy, match: {family: outbound}, action: {preset: "outbound.outcome:busy"}}}
`)
	h.advance(10 * time.Second)
	rows := h.timelineRows()
	want := []stepRow{
		{0, "POST", "/runtime/us-1/v1/outbound-calling", 200, "", "outboundCallCreate", "call", 0, ""},
		{5 * time.Second, "POST", "/runtime/us-1/v1/outbound-calling", 200, "busy", "outboundCallCreate", "call", 0, ""},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Fatalf("steps (-want +got):\n%s", diff)
	}
	h.advance(time.Hour)
	calls, err := h.api.OutboundCalls()
	if err != nil || len(calls) != 2 {
		t.Fatalf("calls %+v, %v", calls, err)
	}
	outcomes := map[string]string{}
	for _, c := range calls {
		outcomes[c.ToNumber] = c.Outcome
	}
	if outcomes["+14155552672"] != "busy" || outcomes["+14155552671"] == "busy" {
		t.Errorf("outcomes %v", outcomes)
	}
}
