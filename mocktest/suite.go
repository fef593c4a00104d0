// Package mocktest holds the behaviour suite every mockplatform.Mock must
// pass, and the test helpers it shares. It is the only non-test package
// importing testing and go-cmp, so the mockd binary links neither.
package mocktest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/handlers"
	"github.com/agentplatform/mockplatform/journal"
)

// RunBehaviourSuite runs, through the Mock interface and HTTP only, the
// cases every Mock must pass, so the in-process Platform and a mockd
// container are held to the same behaviour. newMock returns a fresh mock
// of the default scenario with the manual clock; cases run in parallel.
//
//	mocktest.RunBehaviourSuite(t, func(t *testing.T) mockplatform.Mock { return mockplatform.Start(t) })
func RunBehaviourSuite(t *testing.T, newMock func(t *testing.T) mockplatform.Mock) {
	t.Helper()
	cases := []struct {
		name string
		run  func(t *testing.T, m mockplatform.Mock)
	}{
		{"ChatRoundTrip", suiteChatRoundTrip},
		{"ValidationError", suiteValidationError},
		{"ClockAdvance", suiteClockAdvance},
		{"Fault", suiteFault},
		{"Reset", suiteReset},
		{"Journal", suiteJournal},
		{"Scenario", suiteScenario},
		{"Coverage", suiteCoverage},
		{"Timeline", suiteTimeline},
	}
	cases = append(cases, suiteMachineCases...) // machines.go
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, newMock(t))
		})
	}
}

// The default scenario's fixed points the suite relies on.
const (
	suiteChatPath   = "/v1/acme/support/chat"
	suiteGreeting   = "Hi, how can I help you today?"
	suiteHoursReply = "We are open 9am to 5pm, Monday to Friday."
)

// suiteStart is the default scenario's clock start.
var suiteStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

var suiteConvID = regexp.MustCompile(`^CONV-[0-9]{10}$`)

// Response is an HTTP answer with its body read.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Object decodes a JSON object body, failing t otherwise.
func (r Response) Object(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, r.Body)
	}
	return m
}

// Do sends a request with the default scenario's chat credentials.
func Do(t *testing.T, m mockplatform.Mock, method, url string, body any, header ...string) Response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-KEY", "test-chat-key")
	req.Header.Set("X-TOKEN", "test-connector-token")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := m.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, url, err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: data}
}

// MustStatus fails t unless r has the status.
func MustStatus(t *testing.T, r Response, want int) {
	t.Helper()
	if r.Status != want {
		t.Fatalf("status = %d, want %d; body: %s", r.Status, want, r.Body)
	}
}

// MustBody fails t unless r's JSON object body is want (go-cmp).
func MustBody(t *testing.T, r Response, want map[string]any) {
	t.Helper()
	if diff := cmp.Diff(want, r.Object(t)); diff != "" {
		t.Fatalf("body (-want +got):\n%s", diff)
	}
}

// ChatCreate starts a chat conversation of the default scenario and
// returns its id.
func ChatCreate(t *testing.T, m mockplatform.Mock) string {
	t.Helper()
	r := Do(t, m, "POST", m.RuntimeURL("us-1")+suiteChatPath+"/create", map[string]any{})
	MustStatus(t, r, http.StatusOK)
	id, _ := r.Object(t)["conversation_id"].(string)
	if !suiteConvID.MatchString(id) {
		t.Fatalf("conversation_id = %q, want CONV- and 10 digits", id)
	}
	return id
}

// ChatRespond sends a chat message on a default-scenario conversation.
func ChatRespond(t *testing.T, m mockplatform.Mock, id, msg string) Response {
	t.Helper()
	return Do(t, m, "POST", m.RuntimeURL("us-1")+suiteChatPath+"/respond",
		map[string]any{"conversation_id": id, "message": msg})
}

// suiteEnvelope is the chat family's error body (docs/api.md#chat-errors).
func suiteEnvelope(r Response, code, msg string) map[string]any {
	return map[string]any{"success": false, "error": msg, "error_id": r.Header.Get(handlers.CorrelationHeader),
		"error_code": code, "error_message": msg, "data": nil}
}

// suiteChatRoundTrip: create, a matched turn, the end of the conversation
// and a turn refused after it (docs/api.md#chat).
func suiteChatRoundTrip(t *testing.T, m mockplatform.Mock) {
	r := Do(t, m, "POST", m.RuntimeURL("us-1")+suiteChatPath+"/create", map[string]any{"channel": "webchat"})
	MustStatus(t, r, http.StatusOK)
	id, _ := r.Object(t)["conversation_id"].(string)
	if !suiteConvID.MatchString(id) {
		t.Fatalf("conversation_id = %q, want CONV- and 10 digits", id)
	}
	MustBody(t, r, map[string]any{"conversation_id": id, "response": suiteGreeting})

	r = ChatRespond(t, m, id, "what are your hours?")
	MustStatus(t, r, http.StatusOK)
	MustBody(t, r, map[string]any{"conversation_id": id, "response": suiteHoursReply, "end_conversation": false})

	r = ChatRespond(t, m, id, "bye")
	MustStatus(t, r, http.StatusOK)
	MustBody(t, r, map[string]any{"conversation_id": id, "response": "Goodbye!", "end_conversation": true})

	r = ChatRespond(t, m, id, "hello again")
	MustStatus(t, r, http.StatusGone)
	MustBody(t, r, suiteEnvelope(r, engine.CodeChatEnded, engine.MsgChatEnded))
}

// suiteValidationError: a respond without conversation_id is refused
// with the family's envelope and changes nothing.
func suiteValidationError(t *testing.T, m mockplatform.Mock) {
	r := Do(t, m, "POST", m.RuntimeURL("us-1")+suiteChatPath+"/respond", map[string]any{"message": "hi"})
	MustStatus(t, r, http.StatusBadRequest)
	MustBody(t, r, suiteEnvelope(r, engine.CodeChatInvalid, engine.MsgChatIDRequired))

	r = ChatRespond(t, m, "CONV-0000000000", "hi")
	MustStatus(t, r, http.StatusNotFound)
	MustBody(t, r, suiteEnvelope(r, engine.CodeChatNotFound, engine.MsgChatNotFound))

	ChatCreate(t, m)
	var got []int
	for _, e := range m.Requests(mockplatform.RequestFilter{Family: "chat"}) {
		got = append(got, e.Status)
	}
	if diff := cmp.Diff([]int{400, 404, 200}, got); diff != "" {
		t.Fatalf("journal statuses (-want +got):\n%s", diff)
	}
}

// suiteClockAdvance: the manual clock stands still, Advance moves it and
// requests are stamped with the virtual time (docs/api.md#control-core).
func suiteClockAdvance(t *testing.T, m mockplatform.Mock) {
	if now := m.Now(); !now.Equal(suiteStart) {
		t.Fatalf("Now() = %v, want the scenario start %v", now, suiteStart)
	}
	want := suiteStart.Add(90 * time.Minute)
	if got := m.Advance(90 * time.Minute); !got.Equal(want) {
		t.Fatalf("Advance(90m) = %v, want %v", got, want)
	}
	if got := m.Now(); !got.Equal(want) {
		t.Fatalf("Now() after Advance = %v, want %v", got, want)
	}
	ChatCreate(t, m)
	list := m.Requests(mockplatform.RequestFilter{Family: "chat"})
	if len(list) != 1 || !list[0].Time.Equal(want) {
		t.Fatalf("journal = %+v, want one entry at %v", list, want)
	}
	if got := m.Advance(0); !got.Equal(want) {
		t.Fatalf("Advance(0) = %v, want %v", got, want)
	}
	// A done context stops the advance; a live one moves the clock.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.AdvanceContext(ctx, time.Hour); err == nil {
		t.Fatal("AdvanceContext with a cancelled context: no error")
	}
	if got := m.Now(); !got.Equal(want) {
		t.Fatalf("Now() after a cancelled AdvanceContext = %v, want %v (unchanged)", got, want)
	}
	want = want.Add(time.Minute)
	if got, err := m.AdvanceContext(context.Background(), time.Minute); err != nil || !got.Equal(want) {
		t.Fatalf("AdvanceContext(1m) = %v, %v; want %v", got, err, want)
	}
}

// suiteFault: a one-shot 503 on chat create, its counters, the journal's
// fault id, removal and clearing; an invalid rule is refused.
func suiteFault(t *testing.T, m mockplatform.Mock) {
	rule := mockplatform.Fault{
		Match:  faults.Match{Family: "chat", Method: "POST", Path: "/v1/*/*/chat/create"},
		Action: faults.Action{Status: http.StatusServiceUnavailable, Code: "CHAT_UNAVAILABLE", Message: "try later"},
		Times:  1,
	}
	added, err := m.AddFault(rule)
	if err != nil {
		t.Fatalf("AddFault: %v", err)
	}
	if added.ID == "" {
		t.Fatal("AddFault returned no id")
	}
	rule.ID = added.ID
	if diff := cmp.Diff(rule, added); diff != "" {
		t.Fatalf("AddFault (-want +got):\n%s", diff)
	}

	r := Do(t, m, "POST", m.RuntimeURL("us-1")+suiteChatPath+"/create", map[string]any{})
	MustStatus(t, r, http.StatusServiceUnavailable)
	MustBody(t, r, suiteEnvelope(r, "CHAT_UNAVAILABLE", "try later"))
	ChatCreate(t, m) // Times: 1, so the next one passes

	wantStatus := []mockplatform.FaultStatus{{Rule: rule, Matched: 2, Fired: 1, Exhausted: true}}
	if diff := cmp.Diff(wantStatus, m.Faults()); diff != "" {
		t.Fatalf("Faults() (-want +got):\n%s", diff)
	}
	list := m.Requests(mockplatform.RequestFilter{Family: "chat"})
	if len(list) != 2 || list[0].Fault != added.ID || list[0].Status != 503 || list[1].Fault != "" {
		t.Fatalf("journal = %+v, want the first entry marked with fault %s", list, added.ID)
	}

	if !m.RemoveFault(added.ID) {
		t.Fatal("RemoveFault(existing) = false")
	}
	if m.RemoveFault(added.ID) {
		t.Fatal("RemoveFault(removed) = true")
	}
	for range 2 {
		if _, err := m.AddFault(mockplatform.Fault{Match: faults.Match{Family: "chat"}, Action: faults.Action{Status: 500}}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(m.Faults()); n != 2 {
		t.Fatalf("%d rules after two adds, want 2", n)
	}
	m.ClearFaults()
	if got := m.Faults(); len(got) != 0 {
		t.Fatalf("Faults() after ClearFaults = %+v", got)
	}

	_, err = m.AddFault(mockplatform.Fault{Action: faults.Action{Status: 42}})
	if err == nil || !strings.Contains(err.Error(), "action.status") {
		t.Fatalf("AddFault(status 42) error = %v, want one naming action.status", err)
	}
	if got := m.Faults(); len(got) != 0 {
		t.Fatalf("a refused rule was added: %+v", got)
	}
}

// suiteReset: everything goes back to the scenario's initial state.
func suiteReset(t *testing.T, m mockplatform.Mock) {
	id := ChatCreate(t, m)
	m.Advance(time.Hour)
	if _, err := m.AddFault(mockplatform.Fault{Match: faults.Match{Family: "alerts"}, Action: faults.Action{Status: 500}}); err != nil {
		t.Fatal(err)
	}
	if err := m.Reset(); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	if now := m.Now(); !now.Equal(suiteStart) {
		t.Fatalf("Now() after Reset = %v, want %v", now, suiteStart)
	}
	if got := m.Faults(); len(got) != 0 {
		t.Fatalf("Faults() after Reset = %+v", got)
	}
	if got := m.Requests(mockplatform.RequestFilter{}); len(got) != 0 {
		t.Fatalf("journal after Reset = %+v", got)
	}
	r := ChatRespond(t, m, id, "hi")
	MustStatus(t, r, http.StatusNotFound)
	MustBody(t, r, suiteEnvelope(r, engine.CodeChatNotFound, engine.MsgChatNotFound))
}

// suiteJournal: entries, filters, redaction and warnings.
func suiteJournal(t *testing.T, m mockplatform.Mock) {
	r := Do(t, m, "POST", m.RuntimeURL("us-1")+suiteChatPath+"/create", map[string]any{"surprise": 1})
	MustStatus(t, r, http.StatusOK)
	id, _ := r.Object(t)["conversation_id"].(string)
	ChatRespond(t, m, id, "what are your hours?")
	ChatRespond(t, m, "", "no id")

	all := m.Requests(mockplatform.RequestFilter{})
	if len(all) != 3 {
		t.Fatalf("journal has %d entries, want 3: %+v", len(all), all)
	}
	first := all[0]
	want := mockplatform.Request{
		Seq: 1, Time: suiteStart, Family: "chat", Method: "POST", Path: "/runtime/us-1" + suiteChatPath + "/create",
		Region: "us-1", Status: 200, CorrelationID: r.Header.Get(handlers.CorrelationHeader),
		RequestBody: `{"surprise":1}`, ResponseBody: string(r.Body),
	}
	got := first
	got.RequestHeader, got.Warnings = nil, nil
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Fatalf("journal entry (-want +got):\n%s", diff)
	}
	if len(first.Warnings) == 0 || !strings.Contains(strings.Join(first.Warnings, " "), "surprise") {
		t.Errorf("warnings = %q, want one naming the unknown field surprise", first.Warnings)
	}
	for _, h := range []string{"X-Api-Key", "X-Token"} {
		if v := first.RequestHeader[h]; len(v) != 1 || v[0] != journal.Redacted {
			t.Errorf("journal header %s = %q, want it redacted", h, v)
		}
	}

	checks := []struct {
		name string
		f    mockplatform.RequestFilter
		want []int64 // Seq
	}{
		{"family", mockplatform.RequestFilter{Family: "chat"}, []int64{1, 2, 3}},
		{"other family", mockplatform.RequestFilter{Family: "alerts"}, nil},
		{"method", mockplatform.RequestFilter{Method: "get"}, nil},
		{"path", mockplatform.RequestFilter{Path: "/chat/respond"}, []int64{2, 3}},
		{"status", mockplatform.RequestFilter{Status: 400}, []int64{3}},
		{"limit", mockplatform.RequestFilter{Limit: 2}, []int64{2, 3}},
		{"path and limit", mockplatform.RequestFilter{Path: "respond", Limit: 1}, []int64{3}},
	}
	for _, c := range checks {
		var seqs []int64
		for _, e := range m.Requests(c.f) {
			seqs = append(seqs, e.Seq)
		}
		if diff := cmp.Diff(c.want, seqs); diff != "" {
			t.Errorf("Requests(%s) seqs (-want +got):\n%s", c.name, diff)
		}
	}
}

// suiteScenarioYAML is a small valid scenario for suiteScenario.
const suiteScenarioYAML = `name: suite
seed: 7
clock:
  start: 2026-05-01T12:00:00Z
accounts:
  - slug: acme
    id: "1001"
    region: us
    projects:
      - slug: support
        id: "2001"
        name: Suite Agent
        variants:
          - {id: VARIANT-00000001, name: Default, default: true}
        dialogue:
          greeting: Suite says hello.
          fallback: Suite did not understand.
credentials:
  - {kind: chat, key: test-chat-key, account: acme, project: support}
  - {kind: connector, key: test-connector-token, account: acme, project: support, client_env: live}
`

// suiteScenario: a new scenario replaces the old one and resets; an
// invalid one is refused and changes nothing.
func suiteScenario(t *testing.T, m mockplatform.Mock) {
	old := ChatCreate(t, m)
	if err := m.LoadScenarioYAML([]byte(suiteScenarioYAML)); err != nil {
		t.Fatalf("LoadScenarioYAML: %v", err)
	}
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	if now := m.Now(); !now.Equal(start) {
		t.Fatalf("Now() = %v, want the new scenario's start %v", now, start)
	}
	r := Do(t, m, "POST", m.RuntimeURL("us-1")+suiteChatPath+"/create", map[string]any{})
	MustStatus(t, r, http.StatusOK)
	if got := r.Object(t)["response"]; got != "Suite says hello." {
		t.Fatalf("greeting = %v, want the new scenario's", got)
	}
	MustStatus(t, ChatRespond(t, m, old, "hi"), http.StatusNotFound)

	err := m.LoadScenarioYAML([]byte("name: broken\naccounts:\n  - slug: [not, a, string]\n"))
	if err == nil {
		t.Fatal("LoadScenarioYAML(invalid) = nil, want an error")
	}
	if len(m.Requests(mockplatform.RequestFilter{})) != 2 {
		t.Fatal("a refused scenario reset the journal")
	}
	if now := m.Now(); !now.Equal(start) {
		t.Fatalf("Now() after a refused scenario = %v, want %v", now, start)
	}
}

// suiteTimelineYAML adds a timeline: a chat a minute for five minutes,
// and chat answering 502 from 2m to 3m.
const suiteTimelineYAML = suiteScenarioYAML + `
timeline:
  - id: chats
    until: 5m
    traffic: {project: support, chats_per_minute: 1, arrivals: even, turns: 1, think: 20s}
  - id: outage
    at: 2m
    for: 1m
    fault: {match: {family: chat}, action: {status: 502}}
`

// suiteTimeline: a timeline's chats and a client's requests meet its fault
// window alike, and its steps are journaled apart.
func suiteTimeline(t *testing.T, m mockplatform.Mock) {
	if err := m.LoadScenarioYAML([]byte(suiteTimelineYAML)); err != nil {
		t.Fatalf("LoadScenarioYAML: %v", err)
	}
	m.Advance(2*time.Minute + 30*time.Second)
	MustStatus(t, Do(t, m, "POST", m.RuntimeURL("us-1")+suiteChatPath+"/create", map[string]any{}), http.StatusBadGateway)
	m.Advance(3 * time.Minute)
	MustStatus(t, Do(t, m, "POST", m.RuntimeURL("us-1")+suiteChatPath+"/create", map[string]any{}), http.StatusOK)

	type step struct {
		At             time.Duration
		Op, Step, Path string
		Status         int
	}
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var got []step
	for _, e := range m.Requests(mockplatform.RequestFilter{Source: "timeline"}) {
		if e.Source != "timeline" || e.Timeline == nil {
			t.Fatalf("entry %+v is not marked", e)
		}
		got = append(got, step{e.Time.Sub(start), e.Timeline.Operation, e.Timeline.Step, strings.TrimPrefix(e.Path, "/runtime/us-1"+suiteChatPath), e.Status})
	}
	var want []step
	for i := range 5 {
		at := time.Duration(i) * time.Minute
		if i == 2 { // in the window: the create fails, and nothing follows
			want = append(want, step{at, "chatCreate", "start", "/create", http.StatusBadGateway})
			continue
		}
		want = append(want, step{at, "chatCreate", "start", "/create", http.StatusOK},
			step{at + 20*time.Second, "chatRespond", "turn", "/respond", http.StatusOK},
			step{at + 40*time.Second, "chatClose", "end", "/close", http.StatusOK})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("the timeline's steps (-want +got):\n%s", diff)
	}
	if n := len(m.Requests(mockplatform.RequestFilter{Source: "client"})); n != 2 {
		t.Errorf("%d client requests journaled, want 2", n)
	}
	st := m.Timeline()
	if len(st.Entries) != 2 || !st.Start.Equal(start) || st.Entries[0].Ran != 13 || st.Entries[0].Failed != 1 ||
		st.Entries[0].Occurrences != 5 || st.Entries[1].Occurrences != 1 || st.Entries[1].Active {
		t.Fatalf("Timeline() = %+v", st)
	}
}
