package mockplatform

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/scenario"
)

// timelineYAML is the default scenario with a timeline: a chat a minute
// for two minutes (each says one thing 10s in and ends 10s later), chat
// answering 503 from 1m to 1m30s, and API errors recorded at 90s.
var timelineYAML = append(scenario.DefaultYAML(), `
timeline:
  - id: chats
    until: 2m
    traffic: {project: support, chats_per_minute: 1, arrivals: even, turns: 1, think: 10s}
  - id: blip
    at: 1m
    for: 30s
    fault: {match: {family: chat}, action: {status: 503}}
  - id: errors
    at: 90s
    do: {api_errors: {project: support}}
`...)

// TestControlTimeline: GET /_mock/timeline lists the entries with their
// last and next firing and what their steps did, as Timeline() does; the
// journal's source filter tells the timeline's requests from the
// clients'.
func TestControlTimeline(t *testing.T) {
	t.Parallel()
	p, ctl := controlClient(t, WithScenarioYAML(timelineYAML))
	at := func(d time.Duration) time.Time { return defaultStart.Add(d) }
	status := func() TimelineStatus {
		t.Helper()
		r := ctl("GET", "/timeline", nil)
		mustStatus(t, r, http.StatusOK)
		mustJSON(t, r, p.Timeline())
		return p.Timeline()
	}
	want := TimelineStatus{Start: defaultStart, Now: defaultStart, Entries: []TimelineEntryStatus{
		// Due at the start itself: it has not run before an Advance.
		{Entry: 0, ID: "chats", Kind: "traffic", Last: at(0), Next: at(time.Minute), Occurrences: 1, Active: true},
		{Entry: 1, ID: "blip", Kind: "fault", Next: at(time.Minute)},
		{Entry: 2, ID: "errors", Kind: "do", Action: "api_errors", Next: at(90 * time.Second)},
	}}
	if diff := cmp.Diff(want, status()); diff != "" {
		t.Fatalf("at the start (-want +got):\n%s", diff)
	}
	p.Advance(70 * time.Second)
	mustStatus(t, send(t, p.Client(), "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/create", nil, chatHeaders...), 503) // at 70s
	want = TimelineStatus{Start: defaultStart, Now: at(70 * time.Second), Entries: []TimelineEntryStatus{
		{Entry: 0, ID: "chats", Kind: "traffic", Last: at(time.Minute), Occurrences: 2, Active: true,
			Ran: 4, Failed: 1, LastError: "fault rule blip answered 503"},
		{Entry: 1, ID: "blip", Kind: "fault", Last: at(time.Minute), Next: at(90 * time.Second), Occurrences: 1, Active: true},
		{Entry: 2, ID: "errors", Kind: "do", Action: "api_errors", Next: at(90 * time.Second)},
	}}
	if diff := cmp.Diff(want, status()); diff != "" {
		t.Fatalf("at 70s (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		source string
		n      int
	}{{"", 5}, {"timeline", 4}, {"client", 1}} {
		q := ""
		if tc.source != "" {
			q = "?source=" + tc.source
		}
		r := ctl("GET", "/requests"+q, nil)
		mustStatus(t, r, http.StatusOK)
		list := p.Requests(RequestFilter{Source: tc.source})
		if len(list) != tc.n {
			t.Fatalf("source %q: %d entries, want %d", tc.source, len(list), tc.n)
		}
		mustJSON(t, r, map[string]any{"requests": list})
	}
	// The client's create met the window too.
	if got := p.Requests(RequestFilter{Source: "client"}); got[0].Status != 503 || got[0].Fault != "blip" || got[0].Timeline != nil {
		t.Errorf("the client's request %+v", got[0])
	}
	r := ctl("GET", "/requests?source=bogus", nil)
	mustStatus(t, r, http.StatusBadRequest)
	mustJSON(t, r, map[string]any{"error": "source must be client or timeline"})
}

// TestTimelineEachWorld: every world runs its own timeline on its own
// clock: advancing one leaves the host's and the other world's alone.
func TestTimelineEachWorld(t *testing.T) {
	t.Parallel()
	host := Start(t, WithoutListener(), WithScenarioYAML(timelineYAML))
	a, b := host.World(t), host.World(t)
	a.Advance(2 * time.Minute)
	b.Advance(30 * time.Second)
	ran := func(p *Platform) int64 { return p.Timeline().Entries[0].Ran }
	// a: the first chat's three steps and the second's failed create; b:
	// the first chat's.
	if ran(host) != 0 || ran(a) != 4 || ran(b) != 3 {
		t.Fatalf("steps run: host %d, a %d, b %d; want 0, 4, 3", ran(host), ran(a), ran(b))
	}
	if n := len(b.Requests(RequestFilter{Source: "timeline"})); n != 3 {
		t.Errorf("world b journaled %d steps, want 3", n)
	}
}
