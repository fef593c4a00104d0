package faults

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/google/go-cmp/cmp"
)

// status500 is a minimal valid rule.
func status500(m Match) Rule { return Rule{Match: m, Action: Action{Status: 500}} }

func TestValidate(t *testing.T) {
	ok := Action{Status: 503}
	tests := []struct {
		name string
		rule Rule
		want string // "" for valid; else the whole error text
	}{
		{"minimal status", Rule{Action: ok}, ""},
		{"body only", Rule{Action: Action{Body: `{"x":1}`}}, ""},
		{"delay only", Rule{Action: Action{Delay: clock.Duration(time.Second)}}, ""},
		{"drop only", Rule{Action: Action{Drop: true}}, ""},
		{"preset only", Rule{Action: Action{Preset: "chat_timeout"}}, ""},
		{"full", Rule{
			ID: "x",
			Match: Match{Family: "chat", Method: "post", Path: "/v1/*/*/chat/respond", Region: "us-1",
				Headers: map[string]string{"X-Trace": "*"}, Query: map[string]string{"q": "1"}},
			Action: Action{Status: 429, Headers: map[string]string{"Retry-After": "1"},
				Delay: clock.Duration(time.Second), DelayClock: "virtual"},
			Times: 3, After: 2, Probability: 0.5,
		}, ""},
		{"every family", Rule{Match: Match{Family: "external_events"}, Action: ok}, ""},
		{"probability 1", Rule{Action: ok, Probability: 1}, ""},
		{"delay clock real", Rule{Action: Action{Delay: 1, DelayClock: "real"}}, ""},
		{"status 100", Rule{Action: Action{Status: 100}}, ""},
		{"status 599", Rule{Action: Action{Status: 599}}, ""},
		{"method delete", Rule{Match: Match{Method: "DELETE"}, Action: ok}, ""},
		{"method patch lower", Rule{Match: Match{Method: "patch"}, Action: ok}, ""},
		{"glob path", Rule{Match: Match{Path: "/conversations/CONV-*/**"}, Action: ok}, ""},

		{"status 42", Rule{Action: Action{Status: 42}}, "faults: action.status: 42 is not an HTTP status"},
		{"status 600", Rule{Action: Action{Status: 600}}, "faults: action.status: 600 is not an HTTP status"},
		{"status negative", Rule{Action: Action{Status: -1}}, "faults: action.status: -1 is not an HTTP status"},
		{"empty action", Rule{}, "faults: action: nothing to do (set status, body, delay, drop or preset)"},
		{"code only", Rule{Action: Action{Code: "X", Message: "y", Headers: map[string]string{"a": "b"}}},
			"faults: action: nothing to do (set status, body, delay, drop or preset)"},
		{"bad family", Rule{Match: Match{Family: "email"}, Action: ok}, `faults: match.family: "email" is not a family`},
		{"family case", Rule{Match: Match{Family: "Chat"}, Action: ok}, `faults: match.family: "Chat" is not a family`},
		{"bad method", Rule{Match: Match{Method: "HEAD"}, Action: ok}, `faults: match.method: "HEAD" is not one of GET, POST, PUT, PATCH, DELETE`},
		{"relative path", Rule{Match: Match{Path: "v1/x"}, Action: ok}, `faults: match.path: "v1/x" must start with "/"`},
		{"bad glob", Rule{Match: Match{Path: "/v1/[x"}, Action: ok}, `faults: match.path: "/v1/[x": bad glob segment "[x"`},
		{"empty header name", Rule{Match: Match{Headers: map[string]string{"": "x"}}, Action: ok}, "faults: match.headers: empty header name"},
		{"empty query name", Rule{Match: Match{Query: map[string]string{"": "x"}}, Action: ok}, "faults: match.query: empty parameter name"},
		{"empty action header", Rule{Action: Action{Status: 500, Headers: map[string]string{" ": "x"}}}, "faults: action.headers: empty header name"},
		{"negative delay", Rule{Action: Action{Delay: clock.Duration(-time.Second)}}, "faults: action.delay: -1s must not be negative"},
		{"bad delay clock", Rule{Action: Action{Delay: 1, DelayClock: "wall"}}, `faults: action.delay_clock: "wall" is not "real" or "virtual"`},
		{"probability > 1", Rule{Action: ok, Probability: 1.5}, "faults: probability: 1.5 is not in [0, 1]"},
		{"probability < 0", Rule{Action: ok, Probability: -0.1}, "faults: probability: -0.1 is not in [0, 1]"},
		{"probability NaN", Rule{Action: ok, Probability: math.NaN()}, "faults: probability: NaN is not in [0, 1]"},
		{"times negative", Rule{Action: ok, Times: -1}, "faults: times: -1 must not be negative"},
		{"after negative", Rule{Action: ok, After: -2}, "faults: after: -2 must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := testVoc.Validate(tt.rule)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate: nil, want %q", tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("Validate: %q, want prefix %q", err, tt.want)
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate: %T is not a *ValidationError", err)
			}
		})
	}
}

// req builds a request with headers and query parameters as net/http has
// them.
func req(family, method, path string, hdr http.Header, q url.Values) Request {
	return Request{
		Family: family, Method: method, Path: path, Region: "us-1",
		Header: hdr.Get,
		Query: func(name string) (string, bool) {
			v, ok := q[name]
			if !ok || len(v) == 0 {
				return "", false
			}
			return v[0], true
		},
	}
}

func TestMatchPredicates(t *testing.T) {
	hdr := http.Header{}
	hdr.Set("X-Trace-Id", "abc")
	hdr.Set("X-Empty", "")
	q := url.Values{"page": {"2"}, "flag": {""}}
	r := req("chat", "POST", "/v1/acme/support/chat/respond", hdr, q)

	tests := []struct {
		name  string
		match Match
		want  bool
	}{
		{"empty match", Match{}, true},
		{"family", Match{Family: "chat"}, true},
		{"other family", Match{Family: "agents"}, false},
		{"method case", Match{Method: "post"}, true},
		{"other method", Match{Method: "GET"}, false},
		{"path", Match{Path: "/v1/*/*/chat/respond"}, true},
		{"other path", Match{Path: "/v1/*/*/chat/stream"}, false},
		{"region", Match{Region: "us-1"}, true},
		{"region exact", Match{Region: "us"}, false},
		{"region case", Match{Region: "US-1"}, false},
		{"header value", Match{Headers: map[string]string{"X-Trace-Id": "abc"}}, true},
		{"header name case", Match{Headers: map[string]string{"x-trace-id": "abc"}}, true},
		{"header other value", Match{Headers: map[string]string{"X-Trace-Id": "abd"}}, false},
		{"header star present", Match{Headers: map[string]string{"x-trace-id": "*"}}, true},
		{"header star empty", Match{Headers: map[string]string{"X-Empty": "*"}}, false},
		{"header star absent", Match{Headers: map[string]string{"X-Missing": "*"}}, false},
		{"header all must hold", Match{Headers: map[string]string{"X-Trace-Id": "abc", "X-Missing": "*"}}, false},
		{"query value", Match{Query: map[string]string{"page": "2"}}, true},
		{"query other value", Match{Query: map[string]string{"page": "3"}}, false},
		{"query star", Match{Query: map[string]string{"page": "*"}}, true},
		{"query star empty value", Match{Query: map[string]string{"flag": "*"}}, true},
		{"query star absent", Match{Query: map[string]string{"nope": "*"}}, false},
		{"query name case", Match{Query: map[string]string{"PAGE": "2"}}, false},
		{"all", Match{Family: "chat", Method: "Post", Path: "/v1/**", Region: "us-1",
			Headers: map[string]string{"x-trace-id": "*"}, Query: map[string]string{"page": "2"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSet(1)
			if _, err := s.Add(status500(tt.match)); err != nil {
				t.Fatal(err)
			}
			if _, got := s.Match(r); got != tt.want {
				t.Errorf("Match = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMatchNilFuncs(t *testing.T) {
	s := newSet(1)
	mustAdd(t, s, Rule{ID: "h", Match: Match{Headers: map[string]string{"X": "*"}}, Action: Action{Status: 500}})
	mustAdd(t, s, Rule{ID: "q", Match: Match{Query: map[string]string{"x": "*"}}, Action: Action{Status: 500}})
	if r, ok := s.Match(Request{Path: "/x"}); ok {
		t.Fatalf("Match with nil Header/Query fired %q", r.ID)
	}
}

func mustAdd(t *testing.T, s *Set, r Rule) Rule {
	t.Helper()
	got, err := s.Add(r)
	if err != nil {
		t.Fatalf("Add: %v", err)
	}
	return got
}

// fires runs n requests and returns which ones fired (as a string of 1/0).
func fires(s *Set, n int, r Request) string {
	var b strings.Builder
	for range n {
		if _, ok := s.Match(r); ok {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	return b.String()
}

func TestCounting(t *testing.T) {
	tests := []struct {
		name        string
		times       int
		after       int
		want        string
		wantMatched int
		wantFired   int
		exhausted   bool
	}{
		{"unlimited", 0, 0, "11111111", 8, 8, false},
		{"times", 3, 0, "11100000", 8, 3, true},
		{"after", 0, 2, "00111111", 8, 6, false},
		{"after and times", 2, 3, "00011000", 8, 2, true},
		{"times 1", 1, 0, "10000000", 8, 1, true},
		{"after beyond", 0, 10, "00000000", 8, 0, false},
		{"times not reached", 10, 0, "11111111", 8, 8, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSet(1)
			mustAdd(t, s, Rule{Action: Action{Status: 500}, Times: tt.times, After: tt.after})
			if got := fires(s, 8, Request{Path: "/x"}); got != tt.want {
				t.Errorf("fired %s, want %s", got, tt.want)
			}
			st := s.List()[0]
			if st.Matched != tt.wantMatched || st.Fired != tt.wantFired || st.Exhausted != tt.exhausted {
				t.Errorf("status matched=%d fired=%d exhausted=%v, want %d %d %v",
					st.Matched, st.Fired, st.Exhausted, tt.wantMatched, tt.wantFired, tt.exhausted)
			}
		})
	}
}

func TestCountingOnlyMatching(t *testing.T) {
	s := newSet(1)
	mustAdd(t, s, Rule{Match: Match{Method: "POST"}, Action: Action{Status: 500}, After: 1, Times: 1})
	get := Request{Method: "GET", Path: "/x"}
	post := Request{Method: "POST", Path: "/x"}
	seq := []struct {
		r    Request
		want bool
	}{{get, false}, {post, false}, {get, false}, {post, true}, {post, false}}
	for i, step := range seq {
		if _, ok := s.Match(step.r); ok != step.want {
			t.Fatalf("step %d (%s): fired %v, want %v", i, step.r.Method, ok, step.want)
		}
	}
	if st := s.List()[0]; st.Matched != 3 || st.Fired != 1 {
		t.Errorf("matched=%d fired=%d, want 3 1", st.Matched, st.Fired)
	}
}

func TestFirstMatchOrdering(t *testing.T) {
	s := newSet(1)
	mustAdd(t, s, Rule{ID: "specific", Match: Match{Path: "/v1/chat/respond"}, Action: Action{Status: 503}, Times: 1})
	mustAdd(t, s, Rule{ID: "after", Match: Match{Path: "/v1/**"}, Action: Action{Status: 502}, After: 2})
	mustAdd(t, s, Rule{ID: "general", Match: Match{Path: "/**"}, Action: Action{Status: 500}})

	respond := Request{Path: "/v1/chat/respond"}
	other := Request{Path: "/v2/x"}
	steps := []struct {
		r    Request
		want string
	}{
		{respond, "specific"}, // specific fires first
		{respond, "general"},  // specific exhausted; "after" lets 1st through
		{respond, "general"},  // "after" lets 2nd through
		{respond, "after"},    // "after" now fires
		{other, "general"},    // only general matches
		{respond, "after"},
	}
	for i, st := range steps {
		r, ok := s.Match(st.r)
		if !ok || r.ID != st.want {
			t.Fatalf("step %d: Match = %q, %v; want %q", i, r.ID, ok, st.want)
		}
	}
	got := map[string][2]int{}
	for _, st := range s.List() {
		got[st.ID] = [2]int{st.Matched, st.Fired}
	}
	want := map[string][2]int{
		"specific": {5, 1}, // every respond request reaches it
		"after":    {4, 2},
		"general":  {3, 3}, // only requests no earlier rule fired for
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counters (-want +got):\n%s", diff)
	}
}

func TestMatchNone(t *testing.T) {
	s := newSet(1)
	if r, ok := s.Match(Request{Path: "/"}); ok || r.ID != "" {
		t.Fatalf("empty set: Match = %+v, %v", r, ok)
	}
	mustAdd(t, s, status500(Match{Family: "chat"}))
	if _, ok := s.Match(Request{Family: "agents", Path: "/"}); ok {
		t.Fatal("fired for another family")
	}
	if st := s.List()[0]; st.Matched != 0 {
		t.Errorf("matched = %d, want 0", st.Matched)
	}
}

func TestProbabilityDeterminism(t *testing.T) {
	run := func(seed int64) string {
		s := newSet(seed)
		mustAdd(t, s, Rule{Action: Action{Status: 500}, Probability: 0.5})
		return fires(s, 200, Request{Path: "/"})
	}
	a, b := run(42), run(42)
	if a != b {
		t.Fatalf("same seed gave different decisions:\n%s\n%s", a, b)
	}
	if c := run(43); c == a {
		t.Errorf("seeds 42 and 43 gave the same 200 decisions")
	}

	// Replace reseeds: the sequence starts over.
	s := newSet(7)
	r := Rule{ID: "p", Action: Action{Status: 500}, Probability: 0.5}
	mustAdd(t, s, r)
	first := fires(s, 100, Request{Path: "/"})
	if err := s.Replace([]Rule{r}, 7); err != nil {
		t.Fatal(err)
	}
	if again := fires(s, 100, Request{Path: "/"}); again != first {
		t.Errorf("after Replace with the same seed:\n%s\nwant\n%s", again, first)
	}
}

func TestProbabilityFraction(t *testing.T) {
	for _, p := range []float64{0.1, 0.25, 0.5, 0.9} {
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			const n = 10000
			s := newSet(12345)
			mustAdd(t, s, Rule{Action: Action{Status: 500}, Probability: p})
			got := strings.Count(fires(s, n, Request{Path: "/"}), "1")
			// 5 standard deviations: never flaky for a fixed seed, and
			// still tight enough to catch a wrong comparison.
			sd := math.Sqrt(n * p * (1 - p))
			if math.Abs(float64(got)-n*p) > 5*sd {
				t.Errorf("fired %d of %d, want about %.0f", got, n, n*p)
			}
			st := s.List()[0]
			if st.Matched != n || st.Fired != got {
				t.Errorf("matched=%d fired=%d, want %d %d", st.Matched, st.Fired, n, got)
			}
		})
	}
}

func TestProbabilityOne(t *testing.T) {
	s := newSet(1)
	mustAdd(t, s, Rule{Action: Action{Status: 500}, Probability: 1})
	if got := fires(s, 1000, Request{Path: "/"}); strings.Contains(got, "0") {
		t.Fatal("probability 1 did not always fire")
	}
}

func TestProbabilityFallsThrough(t *testing.T) {
	s := newSet(3)
	mustAdd(t, s, Rule{ID: "maybe", Action: Action{Status: 503}, Probability: 0.5})
	mustAdd(t, s, Rule{ID: "always", Action: Action{Status: 500}})
	counts := map[string]int{}
	for range 1000 {
		r, ok := s.Match(Request{Path: "/"})
		if !ok {
			t.Fatal("no rule fired")
		}
		counts[r.ID]++
	}
	if counts["maybe"] == 0 || counts["always"] == 0 || counts["maybe"]+counts["always"] != 1000 {
		t.Errorf("counts = %v", counts)
	}
}

func TestAddIDs(t *testing.T) {
	s := newSet(1)
	a := mustAdd(t, s, status500(Match{}))
	b := mustAdd(t, s, Rule{ID: "mine", Action: Action{Status: 500}})
	c := mustAdd(t, s, status500(Match{}))
	if a.ID != "fault-1" || b.ID != "mine" || c.ID != "fault-2" {
		t.Fatalf("IDs %q %q %q, want fault-1 mine fault-2", a.ID, b.ID, c.ID)
	}
	if _, err := s.Add(Rule{ID: "mine", Action: Action{Status: 500}}); err == nil ||
		err.Error() != `faults: id: "mine" is already in use` {
		t.Fatalf("duplicate Add: %v", err)
	}
	// An explicit "fault-3" is skipped by the counter.
	mustAdd(t, s, Rule{ID: "fault-3", Action: Action{Status: 500}})
	if d := mustAdd(t, s, status500(Match{})); d.ID != "fault-4" {
		t.Fatalf("ID %q, want fault-4", d.ID)
	}
	// Removed IDs are not reused.
	s.Remove("fault-4")
	if e := mustAdd(t, s, status500(Match{})); e.ID != "fault-5" {
		t.Fatalf("ID %q, want fault-5", e.ID)
	}
	// A separate set counts on its own.
	if f := mustAdd(t, newSet(1), status500(Match{})); f.ID != "fault-1" {
		t.Fatalf("new set: ID %q, want fault-1", f.ID)
	}
	// An invalid rule is not added and uses no ID.
	if _, err := s.Add(Rule{}); err == nil {
		t.Fatal("Add of an invalid rule succeeded")
	}
	if n := len(s.List()); n != 5 {
		t.Fatalf("%d rules, want 5", n)
	}
	if g := mustAdd(t, s, status500(Match{})); g.ID != "fault-6" {
		t.Fatalf("ID %q, want fault-6", g.ID)
	}
}

func TestAddCopies(t *testing.T) {
	s := newSet(1)
	r := Rule{Match: Match{Headers: map[string]string{"X": "1"}}, Action: Action{Status: 500, Headers: map[string]string{"A": "b"}}}
	stored := mustAdd(t, s, r)
	r.Match.Headers["X"] = "changed"
	r.Action.Headers["A"] = "changed"
	stored.Match.Headers["X"] = "changed too"
	got := s.List()[0]
	if got.Match.Headers["X"] != "1" || got.Action.Headers["A"] != "b" {
		t.Fatalf("stored rule changed through the caller's maps: %+v", got.Rule)
	}
	// The rule Match returns is a copy too.
	hdr := http.Header{"X": {"1"}}
	m, ok := s.Match(Request{Path: "/", Header: hdr.Get})
	if !ok {
		t.Fatal("no fire")
	}
	m.Action.Headers["A"] = "changed"
	if s.List()[0].Action.Headers["A"] != "b" {
		t.Fatal("stored rule changed through Match's result")
	}
}

func TestRemoveClear(t *testing.T) {
	s := newSet(1)
	for range 3 {
		mustAdd(t, s, status500(Match{}))
	}
	if !s.Remove("fault-2") {
		t.Fatal("Remove(fault-2) = false")
	}
	if s.Remove("fault-2") {
		t.Fatal("second Remove(fault-2) = true")
	}
	if s.Remove("nope") {
		t.Fatal("Remove(nope) = true")
	}
	if diff := cmp.Diff([]string{"fault-1", "fault-3"}, ids(s)); diff != "" {
		t.Fatalf("after Remove (-want +got):\n%s", diff)
	}
	s.Clear()
	if n := len(s.List()); n != 0 {
		t.Fatalf("after Clear: %d rules", n)
	}
	if _, ok := s.Match(Request{Path: "/"}); ok {
		t.Fatal("fired after Clear")
	}
	// Clear keeps the ID counter going.
	if r := mustAdd(t, s, status500(Match{})); r.ID != "fault-4" {
		t.Fatalf("ID after Clear %q, want fault-4", r.ID)
	}
}

func ids(s *Set) []string {
	var out []string
	for _, st := range s.List() {
		out = append(out, st.ID)
	}
	return out
}

func TestReplace(t *testing.T) {
	s := newSet(1)
	for range 3 {
		mustAdd(t, s, Rule{Action: Action{Status: 500}, Times: 1})
	}
	s.Match(Request{Path: "/"})

	err := s.Replace([]Rule{
		{Action: Action{Status: 502}},
		{ID: "fault-1", Action: Action{Status: 503}},
		{Action: Action{Status: 504}},
		{ID: "x", Action: Action{Status: 505}},
	}, 9)
	if err != nil {
		t.Fatal(err)
	}
	// The ID counter restarts and skips the explicit "fault-1".
	if diff := cmp.Diff([]string{"fault-2", "fault-1", "fault-3", "x"}, ids(s)); diff != "" {
		t.Fatalf("IDs (-want +got):\n%s", diff)
	}
	for _, st := range s.List() {
		if st.Matched != 0 || st.Fired != 0 || st.Exhausted {
			t.Errorf("%s: counters not reset: %+v", st.ID, st)
		}
	}
	if r, ok := s.Match(Request{Path: "/"}); !ok || r.ID != "fault-2" || r.Action.Status != 502 {
		t.Errorf("Match after Replace = %q %v", r.ID, ok)
	}
	if r := mustAdd(t, s, status500(Match{})); r.ID != "fault-4" {
		t.Errorf("Add after Replace: ID %q, want fault-4", r.ID)
	}

	// Replace with nothing empties the set and restarts the counter.
	if err := s.Replace(nil, 1); err != nil {
		t.Fatal(err)
	}
	if n := len(s.List()); n != 0 {
		t.Fatalf("%d rules after Replace(nil)", n)
	}
	if r := mustAdd(t, s, status500(Match{})); r.ID != "fault-1" {
		t.Errorf("ID %q, want fault-1", r.ID)
	}
}

func TestReplaceAllOrNothing(t *testing.T) {
	tests := []struct {
		name  string
		rules []Rule
		want  string
	}{
		{"invalid rule", []Rule{{Action: Action{Status: 500}}, {Action: Action{Status: 42}}},
			"faults: rules[1].action.status: 42 is not an HTTP status"},
		{"duplicate id", []Rule{{ID: "a", Action: Action{Status: 500}}, {ID: "a", Action: Action{Status: 500}}},
			`faults: rules[1].id: "a" is used twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSet(1)
			mustAdd(t, s, Rule{ID: "keep", Action: Action{Status: 500}})
			s.Match(Request{Path: "/"})
			before := s.List()
			err := s.Replace(tt.rules, 2)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Replace: %v, want %q", err, tt.want)
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Errorf("Replace error %T is not a *ValidationError", err)
			}
			if diff := cmp.Diff(before, s.List()); diff != "" {
				t.Errorf("set changed by a failed Replace (-before +after):\n%s", diff)
			}
			if r := mustAdd(t, s, status500(Match{})); r.ID != "fault-1" {
				t.Errorf("ID counter changed by a failed Replace: %q", r.ID)
			}
		})
	}
}

func TestReplaceCopies(t *testing.T) {
	s := newSet(1)
	rules := []Rule{{Match: Match{Headers: map[string]string{"X": "1"}}, Action: Action{Status: 500}}}
	if err := s.Replace(rules, 1); err != nil {
		t.Fatal(err)
	}
	rules[0].Match.Headers["X"] = "2"
	rules[0].Action.Status = 400
	if got := s.List()[0]; got.Match.Headers["X"] != "1" || got.Action.Status != 500 || rules[0].ID != "" {
		t.Errorf("Replace shares the caller's rules: stored %+v, caller's ID %q", got.Rule, rules[0].ID)
	}
}

func TestListCopies(t *testing.T) {
	s := newSet(1)
	mustAdd(t, s, Rule{ID: "a", Match: Match{Headers: map[string]string{"X": "1"}, Query: map[string]string{"q": "*"}},
		Action: Action{Status: 500, Headers: map[string]string{"Retry-After": "1"}}})
	mustAdd(t, s, Rule{ID: "b", Action: Action{Status: 502}})
	want := s.List()

	got := s.List()
	got[0].ID = "changed"
	got[0].Fired = 99
	got[0].Match.Headers["X"] = "changed"
	got[0].Match.Query["q"] = "changed"
	got[0].Action.Headers["Retry-After"] = "changed"
	got[1], got[0] = got[0], got[1]
	_ = append(got[:1], Status{})

	if diff := cmp.Diff(want, s.List()); diff != "" {
		t.Errorf("set changed through List's result (-want +got):\n%s", diff)
	}
	if r, ok := s.Match(Request{Path: "/", Header: http.Header{"X": {"1"}}.Get,
		Query: func(string) (string, bool) { return "", true }}); !ok || r.ID != "a" {
		t.Errorf("Match = %q %v, want a", r.ID, ok)
	}
}

func TestConcurrentMatch(t *testing.T) {
	s := newSet(1)
	mustAdd(t, s, Rule{ID: "five", Match: Match{Method: "POST"}, Action: Action{Status: 500}, Times: 5})
	mustAdd(t, s, Rule{ID: "half", Action: Action{Status: 502}, Probability: 0.5, Times: 100})

	const goroutines, per = 32, 200
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		count = map[string]int{}
	)
	for g := range goroutines {
		wg.Go(func() {
			local := map[string]int{}
			for i := range per {
				method := "POST"
				if i%2 == 1 {
					method = "GET"
				}
				if r, ok := s.Match(Request{Method: method, Path: fmt.Sprintf("/g/%d", g)}); ok {
					local[r.ID]++
				}
				if i%50 == 0 {
					_ = s.List()
				}
			}
			mu.Lock()
			for k, v := range local {
				count[k] += v
			}
			mu.Unlock()
		})
	}
	// Concurrent edits of other rules must not disturb the counts.
	wg.Go(func() {
		for i := range 100 {
			id := fmt.Sprintf("tmp-%d", i)
			mustAddNoT(s, Rule{ID: id, Match: Match{Family: "dni"}, Action: Action{Status: 500}})
			s.Remove(id)
		}
	})
	wg.Wait()

	if count["five"] != 5 {
		t.Errorf("rule with Times=5 fired %d times", count["five"])
	}
	if count["half"] != 100 {
		t.Errorf("rule with Times=100 fired %d times", count["half"])
	}
	for _, st := range s.List() {
		switch st.ID {
		case "five":
			if st.Matched != goroutines*per/2 || st.Fired != 5 || !st.Exhausted {
				t.Errorf("five: %+v", st)
			}
		case "half":
			if st.Fired != 100 || !st.Exhausted {
				t.Errorf("half: %+v", st)
			}
		}
	}
}

func mustAddNoT(s *Set, r Rule) {
	if _, err := s.Add(r); err != nil {
		panic(err)
	}
}

// Every family of the vocabulary is valid in a match, and no other name.
func TestFamiliesValid(t *testing.T) {
	t.Parallel()
	for _, f := range testVoc.Families {
		if err := testVoc.Validate(Rule{Match: Match{Family: f}, Action: Action{Drop: true}}); err != nil {
			t.Errorf("family %q: %v", f, err)
		}
	}
	other := &Vocabulary{Families: []string{"voice"}}
	if err := other.Validate(Rule{Match: Match{Family: "chat"}, Action: Action{Drop: true}}); err == nil {
		t.Error("a family of another vocabulary is valid")
	}
}
