package timeline

import (
	"encoding/json"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
)

// TestPeriodicFirings: windows open and close, actions repeat until
// their end, a campaign places its calls paced, all in order.
func TestPeriodicFirings(t *testing.T) {
	t.Parallel()
	s := schedule(t,
		"{at: 10m, for: 10m, every: 1h, until: 2h, fault: {match: {family: chat}, action: {status: 502}}}",
		"{at: 30m, do: {webhook_receiver: down, for: 15m}}",
		"{at: 2h, do: {webhook_receiver: up}}",
		"{every: 1h, do: {outbound_campaign: {project: support, first: \"+15550100000\", count: 3, pace: 2s}}}",
		"{at: 2h, do: {promote: {agent: support, to: live}}}",
	)
	got := brief(s.Between(t0.Add(-time.Nanosecond), at(t, "2h30m")))
	want := `0s #3 call 0 0 +15550100000
2s #3 call 0 1 +15550100001
4s #3 call 0 2 +15550100002
10m0s #0 open 0
20m0s #0 close 0
30m0s #1 open 0
45m0s #1 close 0
1h0m0s #3 call 1 0 +15550100000
1h0m2s #3 call 1 1 +15550100001
1h0m4s #3 call 1 2 +15550100002
1h10m0s #0 open 1
1h20m0s #0 close 1
2h0m0s #2 do 0
2h0m0s #3 call 2 0 +15550100000
2h0m0s #4 do 0
2h0m2s #3 call 2 1 +15550100001
2h0m4s #3 call 2 2 +15550100002
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("firings (-want +got):\n%s", diff)
	}
	fs := s.Between(at(t, "1h59m"), at(t, "2h"))
	if len(fs) != 3 || fs[0].Kind != scenario.EntryAction || fs[0].Action != scenario.ActionWebhookReceiver ||
		fs[2].Action != scenario.ActionPromote {
		t.Errorf("firings at 2h: %+v", fs)
	}
	if got := s.Between(at(t, "2h"), at(t, "2h")); got != nil {
		t.Errorf("an empty window has firings: %v", got)
	}
}

// TestInboundCall: the caller's lines, paused, then the hang-up.
func TestInboundCall(t *testing.T) {
	t.Parallel()
	s := schedule(t, `{at: 1h, do: {inbound_call: {number: "+14155550150", from: "+447700900123", say: ["order 42", "bye"], think: 10s}}}`)
	got := brief(s.Between(t0, at(t, "2h")))
	want := "1h0m0s #0 start 0\n1h0m10s #0 turn 0 1 order 42\n1h0m20s #0 turn 0 2 bye\n1h0m30s #0 end 0\n"
	if got != want {
		t.Errorf("firings:\n%s\nwant:\n%s", got, want)
	}
	fs := s.Between(t0, at(t, "2h"))
	if c := fs[0].Conversation; c.From != "+447700900123" || !c.End.Equal(at(t, "1h0m30s")) {
		t.Errorf("plan %+v", c)
	}
	b, err := json.Marshal(fs[1])
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"at":"2026-01-01T01:00:10Z","entry":0,"kind":"do","action":"inbound_call","step":"turn","occurrence":0,"turn":1}`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
}

// TestCursor: walking with a cursor, taking at any times, gives the
// firings Between gives for the whole span, the ones at the start
// included.
func TestCursor(t *testing.T) {
	t.Parallel()
	s := schedule(t,
		"{every: 20m, for: 5m, fault: {action: {status: 503}}}",
		"{until: 3h, traffic: {project: support, chats_per_minute: 2, ramp_to: 6, turns: 1-4, think: 0s-40s}}",
		"{from: 30m, until: 2h, calls: {number: \"+14155550150\", calls_per_minute: 1, arrivals: even, think: 5s}}",
		"{until: 1h, sessions: {project: support, sessions_per_minute: 0, ramp_to: 3}}",
		"{every: 45m, do: {evaluate_alerts: true}}",
	)
	end := at(t, "4h")
	want := s.Between(t0.Add(-time.Nanosecond), end)
	c := s.Cursor()
	var got []Firing
	now := t0
	for i := 0; ; i++ {
		next, ok := c.Next()
		if !ok || next.After(end) {
			break
		}
		// Alternate between taking at the next firing and jumping ahead.
		if i%3 == 0 {
			now = next
		} else {
			now = next.Add(time.Duration(i%7) * time.Minute)
		}
		if now.After(end) {
			now = end
		}
		got = c.Take(now, got)
	}
	if diff := cmp.Diff(brief(want), brief(got)); diff != "" {
		t.Errorf("cursor and Between differ (-between +cursor):\n%s", diff)
	}
	if len(want) < 1000 {
		t.Errorf("only %d firings", len(want))
	}
	if !slices.IsSortedFunc(want, func(a, b Firing) int {
		if less(&a, &b) {
			return -1
		}
		if less(&b, &a) {
			return 1
		}
		return 0
	}) {
		t.Error("firings are not in order")
	}
	if want[0].At != t0 {
		t.Errorf("the first firing is at %s, want the start", want[0].At)
	}
}

// TestDeterminism: one seed gives the same firings, plans included,
// however the time is cut into windows; another seed others.
func TestDeterminism(t *testing.T) {
	t.Parallel()
	entries := []string{
		"{until: 6h, traffic: {project: support, chats_per_minute: 5, ramp_to: 20, turns: 2-6, messages: [a, b, c, d]}}",
		"{until: 6h, calls: {number: \"+14155550150\", calls_per_minute: 2}}",
		"{every: 1h, do: {inbound_call: {number: \"+14155550100\", say: [x, y]}}}",
	}
	a, b := schedule(t, entries...), schedule(t, entries...)
	whole := a.Between(t0.Add(-time.Nanosecond), at(t, "7h"))
	same(t, "two schedules of one seed", whole, b.Between(t0.Add(-time.Nanosecond), at(t, "7h")))
	var pieces []Firing
	from := t0.Add(-time.Nanosecond)
	for _, cut := range []string{"13m", "1h", "1h0m0.5s", "2h47m", "5h", "7h"} {
		to := at(t, cut)
		pieces = append(pieces, b.Between(from, to)...)
		from = to
	}
	same(t, "cut into windows", whole, pieces)
	sc := parse(t, entries...)
	other, err := New(sc.Timeline, t0, sc.Seed+1)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(whole, other.Between(t0.Add(-time.Nanosecond), at(t, "7h"))) {
		t.Error("another seed gives the same firings")
	}
}

// same fails when two lists of firings differ, plans included.
func same(t *testing.T, what string, want, got []Firing) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("%s: the firings differ (-want +got):\n%s", what, cmp.Diff(brief(want), brief(got)))
	}
}

// starts counts the conversations started in a window.
func starts(s *Schedule, from, to time.Time) int {
	n := 0
	for _, f := range s.Between(from, to) {
		if f.Step == StepStart {
			n++
		}
	}
	return n
}

// TestArrivals: even arrivals are exact, the Poisson ones near their
// expectation; a ramp puts more of them late.
func TestArrivals(t *testing.T) {
	t.Parallel()
	before := t0.Add(-time.Nanosecond)
	even := schedule(t, "{until: 24h, traffic: {project: support, chats_per_minute: 5, arrivals: even, think: 0s}}")
	if n := starts(even, before, at(t, "24h")); n != 7200 {
		t.Errorf("even, 5 a minute for 24h: %d conversations, want 7200", n)
	}
	fs := even.Between(before, at(t, "1m"))
	var times []string
	for _, f := range fs {
		if f.Step == StepStart {
			times = append(times, f.At.Sub(t0).String())
		}
	}
	if want := []string{"0s", "12s", "24s", "36s", "48s", "1m0s"}; !slices.Equal(times, want) {
		t.Errorf("even arrivals %v, want %v", times, want)
	}
	ramp := schedule(t, "{until: 2h, traffic: {project: support, chats_per_minute: 0, ramp_to: 40, arrivals: even, think: 0s}}")
	// Arrival 600 is at 1h exactly: it opens the second hour.
	hour := at(t, "1h").Add(-time.Nanosecond)
	if first, second := starts(ramp, before, hour), starts(ramp, hour, at(t, "2h")); first != 600 || second != 1800 {
		t.Errorf("even ramp 0 to 40 over 2h: %d then %d, want 600 then 1800", first, second)
	}
	poisson := schedule(t, "{until: 24h, traffic: {project: support, chats_per_minute: 5}}")
	// 7200 expected; five standard deviations are 424.
	if n := starts(poisson, before, at(t, "24h")); math.Abs(float64(n)-7200) > 424 {
		t.Errorf("poisson, 5 a minute for 24h: %d conversations, want about 7200", n)
	}
	pramp := schedule(t, "{until: 2h, traffic: {project: support, ramp_to: 40}}")
	if first, second := starts(pramp, before, at(t, "1h")), starts(pramp, at(t, "1h"), at(t, "2h")); math.Abs(float64(first)-600) > 123 ||
		math.Abs(float64(second)-1800) > 213 {
		t.Errorf("poisson ramp: %d then %d, want about 600 then 1800", first, second)
	}
	// No conversation starts outside [from, until).
	late := schedule(t, "{from: 1h, until: 2h, calls: {number: \"+14155550150\", calls_per_minute: 30}}")
	for _, f := range late.Between(before, at(t, "4h")) {
		if f.Step == StepStart && (f.At.Before(at(t, "1h")) || !f.At.Before(at(t, "2h"))) {
			t.Fatalf("a call starts at %s", f.At.Sub(t0))
		}
	}
}

// TestPlans: each conversation's turns, pauses and messages are within
// what the entry says; occurrences number the conversations in order.
func TestPlans(t *testing.T) {
	t.Parallel()
	s := schedule(t,
		"{until: 3h, traffic: {project: support, chats_per_minute: 3, turns: 2-5, think: 10s-20s, messages: [alpha, beta]}}",
		"{until: 3h, calls: {number: \"+14155550150\", calls_per_minute: 1}}",
		"{until: 3h, calls: {number: \"+14155550150\", from: \"+447700900123\", calls_per_minute: 1}}",
	)
	caller := regexp.MustCompile(`^\+1555[0-9]{7}$`)
	next := map[int]int64{}
	for _, f := range s.Between(t0.Add(-time.Nanosecond), at(t, "5h")) {
		c := f.Conversation
		if f.Step == StepStart {
			if f.Occurrence != next[f.Entry] {
				t.Fatalf("entry %d: conversation %d, want %d", f.Entry, f.Occurrence, next[f.Entry])
			}
			next[f.Entry]++
		}
		switch f.Entry {
		case 0:
			if n := len(c.Turns); n < 2 || n > 5 {
				t.Fatalf("%d turns", n)
			}
			prev := c.Start
			for _, tn := range append(c.Turns, Turn{At: c.End, Message: "alpha"}) {
				if gap := tn.At.Sub(prev); gap < 10*time.Second || gap > 20*time.Second {
					t.Fatalf("a pause of %s", gap)
				}
				if tn.Message != "alpha" && tn.Message != "beta" {
					t.Fatalf("message %q", tn.Message)
				}
				prev = tn.At
			}
		case 1:
			if !caller.MatchString(c.From) {
				t.Fatalf("caller %q", c.From)
			}
		case 2:
			if c.From != "+447700900123" {
				t.Fatalf("caller %q", c.From)
			}
		}
		if f.Step == StepTurn && f.Message() != c.Turns[f.Turn-1].Message {
			t.Fatalf("Message() = %q", f.Message())
		}
	}
	if next[0] < 400 || next[1] < 100 || next[2] < 100 {
		t.Errorf("conversations %v", next)
	}
}

// TestFaultRules: the windows' rules go into a fault set, which applies
// them by the request's time.
func TestFaultRules(t *testing.T) {
	t.Parallel()
	s := schedule(t,
		"{id: outage, at: 10m, for: 10m, fault: {match: {family: chat}, action: {status: 502}}}",
		"{at: 5m, every: 1h, for: 1m, until: 3h, fault: {id: blip, action: {status: 503}}}",
		"{at: 2h, fault: {match: {family: webhooks}, action: {status: 500}}}",
		"{at: 1m, do: {evaluate_alerts: true}}",
	)
	want := []faults.Windowed{
		{Rule: faults.Rule{ID: "outage", Match: faults.Match{Family: "chat"}, Action: faults.Action{Status: 502}},
			Window: faults.Window{Start: at(t, "10m"), For: scenario.Duration(10 * time.Minute)}},
		{Rule: faults.Rule{ID: "blip", Action: faults.Action{Status: 503}},
			Window: faults.Window{Start: at(t, "5m"), For: scenario.Duration(time.Minute), Every: scenario.Duration(time.Hour), Stop: at(t, "3h")}},
		{Rule: faults.Rule{Match: faults.Match{Family: "webhooks"}, Action: faults.Action{Status: 500}},
			Window: faults.Window{Start: at(t, "2h")}},
	}
	if diff := cmp.Diff(want, s.FaultRules()); diff != "" {
		t.Fatalf("FaultRules (-want +got):\n%s", diff)
	}
	set := faults.NewSet(voc.Faults, 1)
	if err := set.ReplaceWindowed(s.FaultRules(), nil, 1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		at, family, want string
		active           []string
	}{
		{"0s", "chat", "", nil},
		{"5m30s", "chat", "blip", []string{"blip"}},
		{"10m", "chat", "outage", []string{"outage"}},
		{"19m59s", "agents", "", []string{"outage"}},
		{"20m", "chat", "", nil},
		{"2h5m", "webhooks", "blip", []string{"blip", "fault-1"}},
		{"2h10m", "webhooks", "fault-1", []string{"fault-1"}},
		{"3h5m", "chat", "", []string{"fault-1"}},
	} {
		r, _ := set.Match(faults.Request{Family: tc.family, Path: "/x", Time: at(t, tc.at)})
		if r.ID != tc.want {
			t.Errorf("at %s, %s: rule %q fired, want %q", tc.at, tc.family, r.ID, tc.want)
		}
		var active []string
		for _, w := range s.ActiveFaults(at(t, tc.at)) {
			active = append(active, w.Rule.ID)
		}
		if strings.HasPrefix(tc.at, "2h") || tc.at == "3h5m" {
			// The third rule has no id in the timeline: the set named it.
			for i, id := range active {
				if id == "" {
					active[i] = "fault-1"
				}
			}
		}
		if !slices.Equal(active, tc.active) {
			t.Errorf("ActiveFaults at %s = %v, want %v", tc.at, active, tc.active)
		}
	}
}

// TestNewRefuses: a timeline whose schedule would be endless or
// unbounded is refused.
func TestNewRefuses(t *testing.T) {
	t.Parallel()
	d := func(x time.Duration) scenario.Duration { return scenario.Duration(x) }
	rate := func(r float64) *float64 { return &r }
	for _, tc := range []struct {
		name string
		e    scenario.TimelineEntry
		want string
	}{
		{"nothing", scenario.TimelineEntry{}, "timeline[0]: entry does nothing"},
		{"every too short", scenario.TimelineEntry{Every: d(time.Millisecond), Do: &scenario.TimelineAction{EvaluateAlerts: true}},
			"timeline[0]: every 1ms is shorter than 1s"},
		{"window as long as every", scenario.TimelineEntry{Every: d(time.Minute), For: d(time.Minute), Fault: &faults.Rule{}},
			"timeline[0]: an occurrence lasts 1m0s, not shorter than every (1m0s)"},
		{"no action", scenario.TimelineEntry{Do: &scenario.TimelineAction{}}, "timeline[0]: no action"},
		{"until before from", scenario.TimelineEntry{From: d(time.Hour), Until: d(time.Minute), Traffic: &scenario.ChatTraffic{ChatsPerMinute: 1}},
			"timeline[0]: until 1m0s is not after from 1h0m0s"},
		{"rate", scenario.TimelineEntry{Until: d(time.Hour), Traffic: &scenario.ChatTraffic{ChatsPerMinute: 1, Flow: scenario.Flow{RampTo: rate(math.NaN())}}},
			"timeline[0]: rate NaN is not from 0 to 600 a minute"},
		{"no traffic", scenario.TimelineEntry{Until: d(time.Hour), Sessions: &scenario.SessionTraffic{}}, "timeline[0]: no traffic: the rate is 0 throughout"},
		{"too much traffic", scenario.TimelineEntry{Until: d(8000 * time.Hour), Calls: &scenario.CallTraffic{CallsPerMinute: 100}},
			"timeline: 48000000 conversations expected, more than 1000000"},
		{"turns", scenario.TimelineEntry{Until: d(time.Hour), Calls: &scenario.CallTraffic{CallsPerMinute: 1, Flow: scenario.Flow{Turns: scenario.Range{Min: 1, Max: 1000}}}},
			"timeline[0]: turns 1-1000 or think 0s out of range"},
	} {
		if _, err := New([]scenario.TimelineEntry{tc.e}, t0, 1); err == nil || err.Error() != tc.want {
			t.Errorf("%s: New = %v, want %q", tc.name, err, tc.want)
		}
	}
	if s, err := New(nil, t0, 0); err != nil || s.Len() != 0 || !s.Start().Equal(t0) {
		t.Errorf("New(nil) = %v, %v", s, err)
	}
	if _, ok := (&Schedule{}).Cursor().Next(); ok {
		t.Error("an empty schedule has a next firing")
	}
	if strings.Contains(brief(nil), "\n") {
		t.Error("brief(nil) is not empty")
	}
}
