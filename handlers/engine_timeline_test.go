package handlers

import (
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/coverage"
	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/store"

	"github.com/google/go-cmp/cmp"
)

// timelineHarness is a harness of the default scenario with a timeline
// (YAML, from "timeline:" on).
func timelineHarness(t *testing.T, tl string) *harness {
	t.Helper()
	return newHarness(t, string(scenarioDefaultYAML())+"\n"+tl)
}

// stepRow is a journaled timeline step, for comparisons.
type stepRow struct {
	At     time.Duration
	Method string
	Path   string
	Status int
	Fault  string
	Op     string
	Step   string
	Occ    int64
	Error  string
}

// timelineRows are the journal's timeline entries.
func (h *harness) timelineRows() []stepRow {
	h.t.Helper()
	var out []stepRow
	for _, e := range h.journal.List(Filter{Source: SourceTimeline}) {
		if e.Source != SourceTimeline || e.Timeline == nil {
			h.t.Fatalf("entry %d: source %q, step %v", e.Seq, e.Source, e.Timeline)
		}
		out = append(out, stepRow{At: e.Time.Sub(h.start), Method: e.Method, Path: e.Path, Status: e.Status, Fault: e.Fault,
			Op: e.Timeline.Operation, Step: e.Timeline.Step, Occ: e.Timeline.Occurrence, Error: e.Timeline.Error})
	}
	return out
}

// conversations lists the default project's conversations, oldest first.
func (h *harness) conversations() []*store.Conversation {
	h.t.Helper()
	list, _, err := h.store.ListConversations(store.ConversationQuery{Region: "us", AccountID: "1001", ProjectID: "2001"})
	if err != nil {
		h.t.Fatal(err)
	}
	return list
}

// chatTrafficEntry is a timeline entry of two background chats, one a
// minute from the start, each spoken to once and closed.
const chatTrafficEntry = `  - id: chats
    until: 2m
    traffic: {project: support, chats_per_minute: 1, arrivals: even, turns: 1, think: 10s, messages: ["where is my order 7"]}
`

// TestTimelineChatTraffic: background chats are created, spoken to and
// closed through the chat API's engine at their times, inside the
// Advance that makes each due; each step is journaled as the request it
// stands for, marked as the timeline's, apart from the client's.
func TestTimelineChatTraffic(t *testing.T) {
	t.Parallel()
	h := timelineHarness(t, "timeline:\n"+chatTrafficEntry)
	if rows := h.timelineRows(); rows != nil {
		t.Fatalf("before any Advance: %+v", rows)
	}
	h.advance(0) // the entry at 0s is due at the start
	mustStatus(t, h.do("POST", chatBase+"/create", `{}`, chatHeaders...), 200)
	h.advance(2 * time.Minute)

	base := "/runtime/us-1/v1/acme/support/chat/"
	want := []stepRow{
		{0, "POST", base + "create", 200, "", "chatCreate", "start", 0, ""},
		{10 * time.Second, "POST", base + "respond", 200, "", "chatRespond", "turn", 0, ""},
		{20 * time.Second, "PUT", base + "close", 200, "", "chatClose", "end", 0, ""},
		{time.Minute, "POST", base + "create", 200, "", "chatCreate", "start", 1, ""},
		{70 * time.Second, "POST", base + "respond", 200, "", "chatRespond", "turn", 1, ""},
		{80 * time.Second, "PUT", base + "close", 200, "", "chatClose", "end", 1, ""},
	}
	if diff := cmp.Diff(want, h.timelineRows()); diff != "" {
		t.Fatalf("timeline steps (-want +got):\n%s", diff)
	}
	if n := len(h.journal.List(Filter{Source: SourceClient})); n != 1 {
		t.Errorf("%d client entries, want 1 (the client's create)", n)
	}
	convs := h.conversations()
	if len(convs) != 3 {
		t.Fatalf("%d conversations, want 3", len(convs))
	}
	closed := 0
	for _, c := range convs {
		if c.InProgress {
			continue // the client's
		}
		closed++
		if c.Channel != "CHAT" || c.State["closed_by"] != "client" || len(c.Turns) != 2 ||
			c.Turns[1].UserInput != "where is my order 7" || c.Turns[1].AgentResponse != "Thanks, I found order 7. It is on its way." {
			t.Errorf("conversation %s: channel %s, closed by %v, turns %+v", c.ID, c.Channel, c.State["closed_by"], c.Turns)
		}
	}
	if closed != 2 {
		t.Errorf("%d conversations closed, want the timeline's 2", closed)
	}
	st := h.api.Timeline()
	if len(st.Entries) != 1 || st.Entries[0].Ran != 6 || st.Entries[0].Failed != 0 || st.Entries[0].Occurrences != 2 || st.Entries[0].Active {
		t.Errorf("status = %+v", st.Entries)
	}
}

// TestTimelineCoverage: the operations a timeline runs count in the
// coverage as calls the timeline made (docs/coverage.md), with their
// answers and the fault rule that decided one; a client's call of the
// same operation counts apart.
func TestTimelineCoverage(t *testing.T) {
	t.Parallel()
	h := timelineHarness(t, "timeline:\n"+chatTrafficEntry+`  - id: outage
    at: 1m
    for: 15s
    fault: {id: close-down, match: {family: chat, path: "/v1/*/*/chat/respond"}, action: {status: 503}}
`)
	h.advance(0)
	mustStatus(t, h.do("POST", chatBase+"/create", `{}`, chatHeaders...), 200)
	h.advance(2 * time.Minute)

	ok := coverage.Answer{Status: 200}
	want := map[string]coverage.OperationCount{
		"chatCreate":  {Calls: 3, Timeline: 2, Answers: map[coverage.Answer]uint64{ok: 3}},
		"chatRespond": {Calls: 2, Timeline: 2, Answers: map[coverage.Answer]uint64{ok: 1, {Status: 503, Fault: true}: 1}},
		"chatClose":   {Calls: 2, Timeline: 2, Answers: map[coverage.Answer]uint64{ok: 2}},
	}
	s := h.api.Coverage().Snapshot()
	if diff := cmp.Diff(want, s.Operations); diff != "" {
		t.Errorf("operations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]uint64{"close-down": 1}, s.FaultRules); diff != "" {
		t.Errorf("fault rules (-want +got):\n%s", diff)
	}
}

// TestTimelineEveryAdvanceGivesTheSameRun: one Advance or many small ones
// give the same journal and records.
func TestTimelineEveryAdvanceGivesTheSameRun(t *testing.T) {
	t.Parallel()
	tl := `timeline:
  - until: 30m
    traffic: {project: support, chats_per_minute: 4, ramp_to: 10, turns: 1-4, think: 5s-40s}
  - at: 7m
    for: 3m
    fault: {id: blip, match: {family: chat, path: /v1/*/*/chat/respond}, action: {status: 503}, probability: 0.5}
`
	run := func(steps []time.Duration) ([]Entry, []*store.Conversation) {
		h := timelineHarness(t, tl)
		for _, d := range steps {
			h.advance(d)
		}
		return h.journal.List(Filter{}), h.conversations()
	}
	oneJ, oneC := run([]time.Duration{40 * time.Minute})
	var small []time.Duration
	for range 80 {
		small = append(small, 30*time.Second)
	}
	manyJ, manyC := run(small)
	if len(oneC) < 100 || len(oneJ) < 300 {
		t.Fatalf("%d conversations, %d journal entries: too few to mean anything", len(oneC), len(oneJ))
	}
	if diff := cmp.Diff(oneJ, manyJ); diff != "" {
		t.Errorf("journals differ (-one +many):\n%s", diff)
	}
	if diff := cmp.Diff(oneC, manyC); diff != "" {
		t.Errorf("records differ (-one +many):\n%s", diff)
	}
}

// TestTimelineFaultWindow: a fault window holds for requests whose
// virtual time is inside it, the clients' and the timeline's alike: the
// timeline's chats in the window are answered 502 (a conversation that
// failed to start takes no further step), count as API errors, and the
// window closes on time.
func TestTimelineFaultWindow(t *testing.T) {
	t.Parallel()
	h := timelineHarness(t, `timeline:
  - id: outage
    at: 1m
    for: 1m
    fault: {match: {family: chat}, action: {status: 502, message: upstream unavailable}}
  - until: 3m
    traffic: {project: support, chats_per_minute: 1, arrivals: even, turns: 1, think: 30s}
`)
	mustStatus(t, h.do("POST", chatBase+"/create", `{}`, chatHeaders...), 200)
	h.advance(time.Minute)
	// The clock stands at the window's opening: a client meets it.
	r := h.do("POST", chatBase+"/create", `{}`, chatHeaders...)
	mustStatus(t, r, 502)
	h.advance(2 * time.Minute)
	mustStatus(t, h.do("POST", chatBase+"/create", `{}`, chatHeaders...), 200)

	base := "/runtime/us-1/v1/acme/support/chat/"
	want := []stepRow{
		{0, "POST", base + "create", 200, "", "chatCreate", "start", 0, ""},
		{30 * time.Second, "POST", base + "respond", 200, "", "chatRespond", "turn", 0, ""},
		// The window opens at 1m: the first chat's close meets it too.
		{time.Minute, "PUT", base + "close", 502, "outage", "chatClose", "end", 0, "fault rule outage answered 502"},
		{time.Minute, "POST", base + "create", 502, "outage", "chatCreate", "start", 1, "fault rule outage answered 502"},
		{2 * time.Minute, "POST", base + "create", 200, "", "chatCreate", "start", 2, ""},
		{150 * time.Second, "POST", base + "respond", 200, "", "chatRespond", "turn", 2, ""},
		{3 * time.Minute, "PUT", base + "close", 200, "", "chatClose", "end", 2, ""},
	}
	if diff := cmp.Diff(want, h.timelineRows()); diff != "" {
		t.Fatalf("timeline steps (-want +got):\n%s", diff)
	}
	// Three 502s (the client's and the timeline's) in the API error input.
	if n := h.apiErrors(); n != 3 {
		t.Errorf("%d API errors, want 3", n)
	}
	st := h.api.Timeline().Entries
	if st[0].Active || st[0].Occurrences != 1 || st[1].Ran != 7 || st[1].Failed != 2 || st[1].LastError != "fault rule outage answered 502" {
		t.Errorf("status = %+v", st)
	}
}

// TestTimelineResetStartsAgain: a reset drops the run and starts the
// timeline again from the clock's start.
func TestTimelineResetStartsAgain(t *testing.T) {
	t.Parallel()
	h := timelineHarness(t, `timeline:
  - at: 1m
    every: 1m
    do: {api_errors: {project: support, count: 2}}
`)
	h.advance(150 * time.Second)
	if rows := h.timelineRows(); len(rows) != 2 || rows[1].Op != "recordAlertInput" || rows[1].Path != "/_mock/alerts/inputs" || rows[1].At != 2*time.Minute {
		t.Fatalf("before the reset: %+v", rows)
	}
	if err := h.api.Reset(); err != nil {
		t.Fatal(err)
	}
	if rows := h.timelineRows(); rows != nil {
		t.Fatalf("after the reset: %+v", rows)
	}
	h.advance(time.Minute)
	if rows := h.timelineRows(); len(rows) != 1 || rows[0].At != time.Minute {
		t.Fatalf("after the reset and a minute: %+v", rows)
	}
	if got := h.api.Timeline().Entries[0]; got.Ran != 1 || got.Occurrences != 1 || !got.Next.Equal(h.start.Add(2*time.Minute)) ||
		!got.Last.Equal(h.start.Add(time.Minute)) {
		t.Errorf("status after the reset = %+v", got)
	}
}

// apiErrors counts the default project's API errors since the start.
func (h *harness) apiErrors() int64 {
	h.t.Helper()
	res, err := h.store.QueryMetrics(store.MetricsQuery{Projects: []store.ProjectRef{{Region: "us", AccountID: "1001", ProjectID: "2001"}},
		From: h.start, To: h.clock.Now().Add(time.Second)})
	if err != nil {
		h.t.Fatal(err)
	}
	return res.APIErrors
}

var _ = engine.SourceTimeline

// TestTimelineMeetsFaultRules: a timeline step meets a fault rule as its
// request would, with what the rule does to a step: a status or a body
// answers it, drop leaves it without an answer, a delay is not waited,
// a header predicate never matches (a step has no headers), a preset of
// another family's kind does not apply.
func TestTimelineMeetsFaultRules(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, rule string
		status     int
		fault      string
		err        string
		body       string
	}{
		{"status", `{id: r, match: {family: chat}, action: {status: 429}}`, 429, "r", "fault rule r answered 429", ""},
		{"body", `{id: r, match: {family: chat}, action: {body: '{"oops":true}'}}`, 500, "r", "fault rule r answered 500", `{"oops":true}`},
		{"drop", `{id: r, match: {family: chat}, action: {drop: true}}`, 0, "r", "dropped by fault rule r", ""},
		{"delay", `{id: r, match: {family: chat}, action: {delay: 1h, delay_clock: virtual}}`, 200, "r", "", "*"},
		{"header", `{id: r, match: {family: chat, headers: {X-API-KEY: "*"}}, action: {status: 503}}`, 200, "", "", "*"},
		{"other path", `{id: r, match: {family: chat, path: /v1/*/*/chat/respond}, action: {status: 503}}`, 200, "", "", "*"},
		{"preset", `{id: r, match: {family: messaging}, action: {preset: messaging.expire_session}}`, 200, "r", "", "*"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			traffic := "traffic: {project: support, chats_per_minute: 60, arrivals: even, turns: 1, think: 10s}"
			if tc.name == "preset" {
				traffic = "sessions: {project: support, sessions_per_minute: 60, arrivals: even, turns: 1, think: 10s}"
			}
			h := timelineHarness(t, "faults:\n  - "+tc.rule+"\ntimeline:\n  - until: 1s\n    "+traffic+"\n")
			h.advance(0)
			if h.clock.Now() != h.start {
				t.Fatalf("the clock moved to %v", h.clock.Now())
			}
			e := h.journal.List(Filter{Source: SourceTimeline})
			if len(e) != 1 {
				t.Fatalf("%d steps journaled", len(e))
			}
			got := e[0]
			if got.Status != tc.status || got.Fault != tc.fault || got.Timeline.Error != tc.err ||
				tc.body != "*" && got.ResponseBody != tc.body {
				t.Errorf("step %+v (timeline %+v)", got, *got.Timeline)
			}
			if tc.name == "preset" && len(h.api.MessagingSessions()) != 1 {
				t.Errorf("the preset expired the timeline's session: %+v", h.api.MessagingSessions())
			}
		})
	}
}

// TestTimelineConversationEndedByTheAgent: when the agent ends a
// background chat (a handoff), its remaining steps are not run.
func TestTimelineConversationEndedByTheAgent(t *testing.T) {
	t.Parallel()
	h := timelineHarness(t, `timeline:
  - until: 1s
    traffic: {project: support, chats_per_minute: 60, arrivals: even, turns: 3, think: 10s, messages: ["I want a human"]}
`)
	h.advance(time.Minute)
	rows := h.timelineRows()
	if len(rows) != 2 || rows[1].Op != "chatRespond" || rows[1].Status != 200 {
		t.Fatalf("steps %+v, want the create and the one turn that hands off", rows)
	}
	e := h.journal.List(Filter{Source: SourceTimeline})[1]
	if !strings.Contains(e.ResponseBody, `"end_conversation":true`) || !strings.Contains(e.ResponseBody, "live_agent_queue") {
		t.Errorf("the handoff's answer %s", e.ResponseBody)
	}
	if st := h.api.Timeline().Entries[0]; st.Ran != 2 || st.Failed != 0 {
		t.Errorf("status %+v", st)
	}
}
