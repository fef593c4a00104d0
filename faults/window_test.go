package faults

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func mins(n int) time.Duration { return time.Duration(n) * time.Minute }

func cd(d time.Duration) clock.Duration { return clock.Duration(d) }

func TestWindowSpan(t *testing.T) {
	t.Parallel()
	once := Window{Start: t0.Add(mins(10)), For: cd(mins(10))}
	open := Window{Start: t0.Add(mins(10))}
	hourly := Window{Start: t0.Add(mins(10)), For: cd(mins(5)), Every: cd(time.Hour)}
	stopped := Window{Start: t0.Add(mins(10)), For: cd(mins(5)), Every: cd(time.Hour), Stop: t0.Add(2 * time.Hour)}
	tests := []struct {
		name   string
		w      Window
		at     time.Time
		want   int64
		inside bool
	}{
		{"before", once, t0.Add(mins(9)), 0, false},
		{"at the start", once, t0.Add(mins(10)), 0, true},
		{"inside", once, t0.Add(mins(19)), 0, true},
		{"at the end", once, t0.Add(mins(20)), 0, false},
		{"after", once, t0.Add(time.Hour), 0, false},
		{"zero time", once, time.Time{}, 0, false},
		{"open window, much later", open, t0.Add(1000 * time.Hour), 0, true},
		{"repeated, first span", hourly, t0.Add(mins(12)), 0, true},
		{"repeated, between spans", hourly, t0.Add(mins(30)), 0, false},
		{"repeated, third span", hourly, t0.Add(2*time.Hour + mins(14)), 2, true},
		{"repeated, end of third span", hourly, t0.Add(2*time.Hour + mins(15)), 0, false},
		{"stopped, second span", stopped, t0.Add(time.Hour + mins(10)), 1, true},
		{"stopped, a span starting after stop", stopped, t0.Add(2*time.Hour + mins(10)), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k, ok := tt.w.Span(tt.at)
			if k != tt.want || ok != tt.inside {
				t.Errorf("Span(%s) = %d, %v; want %d, %v", tt.at.Format(time.RFC3339), k, ok, tt.want, tt.inside)
			}
		})
	}
}

func TestAddWindowedValidates(t *testing.T) {
	t.Parallel()
	rule := Rule{Action: Action{Status: 502}}
	tests := []struct {
		name string
		w    Window
		want string
	}{
		{"no start", Window{For: cd(time.Minute)}, "faults: window.start: required"},
		{"negative for", Window{Start: t0, For: cd(-time.Minute)}, "faults: window.for: -1m0s must not be negative"},
		{"every without for", Window{Start: t0, Every: cd(time.Hour)}, "faults: window.every: a repeated window needs a length (for)"},
		{"for not shorter than every", Window{Start: t0, For: cd(time.Hour), Every: cd(time.Hour)},
			"faults: window.for: 1h0m0s must be shorter than every (1h0m0s)"},
		{"stop before start", Window{Start: t0, For: cd(time.Minute), Every: cd(time.Hour), Stop: t0},
			"faults: window.stop: must be after start"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSet(1)
			_, err := s.AddWindowed(rule, tt.w)
			var ve *ValidationError
			if err == nil || err.Error() != tt.want || !errors.As(err, &ve) {
				t.Fatalf("AddWindowed: %v, want %q", err, tt.want)
			}
			if s.Len() != 0 {
				t.Errorf("a refused rule was added")
			}
		})
	}
	s := newSet(1)
	if _, err := s.AddWindowed(Rule{Action: Action{Status: 42}}, Window{Start: t0}); err == nil {
		t.Error("AddWindowed accepted a bad rule")
	}
}

// TestWindowedMatch: a windowed rule fires only for requests whose time is
// inside its window, and never for a request without a time.
func TestWindowedMatch(t *testing.T) {
	t.Parallel()
	s := newSet(1)
	w := Window{Start: t0.Add(mins(10)), For: cd(mins(10))}
	if _, err := s.AddWindowed(Rule{ID: "outage", Match: Match{Family: "chat"}, Action: Action{Status: 502}}, w); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, s, Rule{ID: "always", Match: Match{Family: "chat"}, Action: Action{Status: 500}, Probability: 0})
	at := func(d time.Duration) Request { return Request{Family: "chat", Path: "/x", Time: t0.Add(d)} }
	steps := []struct {
		req  Request
		want string
	}{
		{at(0), "always"},
		{at(mins(10)), "outage"},
		{at(mins(15)), "outage"},
		{at(mins(20)), "always"},
		{Request{Family: "chat", Path: "/x"}, "always"},
		{Request{Family: "agents", Path: "/x", Time: t0.Add(mins(12))}, ""},
	}
	for i, st := range steps {
		r, ok := s.Match(st.req)
		if r.ID != st.want || ok != (st.want != "") {
			t.Errorf("step %d: Match = %q, %v; want %q", i, r.ID, ok, st.want)
		}
	}
	want := []Status{
		{Rule: Rule{ID: "outage", Match: Match{Family: "chat"}, Action: Action{Status: 502}}, Matched: 2, Fired: 2, Window: &w},
		{Rule: Rule{ID: "always", Match: Match{Family: "chat"}, Action: Action{Status: 500}}, Matched: 3, Fired: 3},
	}
	if diff := cmp.Diff(want, s.List()); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
}

// TestWindowedCountsPerSpan: after and times count afresh in every span
// of a repeated window; the totals go on.
func TestWindowedCountsPerSpan(t *testing.T) {
	t.Parallel()
	s := newSet(1)
	w := Window{Start: t0, For: cd(mins(10)), Every: cd(time.Hour)}
	if _, err := s.AddWindowed(Rule{Action: Action{Status: 503}, After: 1, Times: 2}, w); err != nil {
		t.Fatal(err)
	}
	var got string
	for span := range 3 {
		for i := range 4 {
			req := Request{Path: "/", Time: t0.Add(time.Duration(span)*time.Hour + time.Duration(i)*time.Minute)}
			if _, ok := s.Match(req); ok {
				got += "1"
			} else {
				got += "0"
			}
		}
		got += "|"
	}
	if want := "0110|0110|0110|"; got != want {
		t.Errorf("fired %s, want %s", got, want)
	}
	st := s.List()[0]
	if st.Matched != 12 || st.Fired != 6 || !st.Exhausted {
		t.Errorf("status matched=%d fired=%d exhausted=%v, want 12 6 true", st.Matched, st.Fired, st.Exhausted)
	}
}

func TestReplaceWindowed(t *testing.T) {
	t.Parallel()
	s := newSet(1)
	w := Window{Start: t0, For: cd(time.Minute)}
	err := s.ReplaceWindowed([]Windowed{{Rule: Rule{ID: "tl", Action: Action{Status: 502}}, Window: w}},
		[]Rule{{Action: Action{Status: 500}}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"tl", "fault-1"}, ids(s)); diff != "" {
		t.Errorf("IDs (-want +got):\n%s", diff)
	}
	if r, _ := s.Match(Request{Path: "/", Time: t0}); r.ID != "tl" {
		t.Errorf("inside the window: %q fired, want the windowed rule first", r.ID)
	}
	if r, _ := s.Match(Request{Path: "/", Time: t0.Add(time.Minute)}); r.ID != "fault-1" {
		t.Errorf("after the window: %q fired, want fault-1", r.ID)
	}

	before := s.List()
	for _, tc := range []struct {
		name     string
		windowed []Windowed
		rules    []Rule
		want     string
	}{
		{"bad window", []Windowed{{Rule: Rule{Action: Action{Status: 500}}, Window: Window{Start: t0, Every: cd(time.Hour)}}}, nil,
			"faults: windowed[0].window.every: a repeated window needs a length (for)"},
		{"bad rule", []Windowed{{Rule: Rule{}, Window: w}}, nil,
			"faults: windowed[0].action: nothing to do (set status, body, delay, drop or preset)"},
		{"id used twice", []Windowed{{Rule: Rule{ID: "a", Action: Action{Status: 500}}, Window: w}},
			[]Rule{{ID: "a", Action: Action{Status: 500}}}, `faults: rules[0].id: "a" is used twice`},
	} {
		if err := s.ReplaceWindowed(tc.windowed, tc.rules, 1); err == nil || err.Error() != tc.want {
			t.Errorf("%s: ReplaceWindowed = %v, want %q", tc.name, err, tc.want)
		}
	}
	if diff := cmp.Diff(before, s.List()); diff != "" {
		t.Errorf("a failed ReplaceWindowed changed the set (-before +after):\n%s", diff)
	}
}

func TestWindowedStatusJSON(t *testing.T) {
	t.Parallel()
	s := newSet(1)
	w := Window{Start: t0.Add(mins(10)), For: cd(mins(10)), Every: cd(time.Hour), Stop: t0.Add(3 * time.Hour)}
	if _, err := s.AddWindowed(Rule{ID: "w", Action: Action{Status: 502}}, w); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, s, Rule{ID: "plain", Action: Action{Status: 500}})
	b, err := json.Marshal(s.List())
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"id":"w","match":{},"action":{"status":502},"matched":0,"fired":0,"exhausted":false,` +
		`"window":{"start":"2026-01-01T00:10:00Z","for":"10m0s","every":"1h0m0s","stop":"2026-01-01T03:00:00Z"}},` +
		`{"id":"plain","match":{},"action":{"status":500},"matched":0,"fired":0,"exhausted":false}]`
	if string(b) != want {
		t.Errorf("JSON\n got %s\nwant %s", b, want)
	}
	if got, want := w.String(), "from 2026-01-01T00:10:00Z for 10m0s, every 1h0m0s until 2026-01-01T03:00:00Z"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}
