package coverage

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testCatalogue is a small catalogue: two families, one machine with a
// clock-driven move, a clock event and two presets.
func testCatalogue() *Catalogue {
	cat := &Catalogue{Families: []Family{
		{
			Name: "calls",
			Operations: []Operation{
				{ID: "callCreate", Method: "POST", Path: "/calls", Statuses: []int{201, 400, 429}, Codes: []Code{{400, "BAD_NUMBER"}, {429, "RATE_LIMITED"}}},
				{ID: "callGet", Method: "GET", Path: "/calls/:id", Statuses: []int{200, 404}},
			},
			Machines: []Machine{{Name: "call", States: []string{"queued", "calling", "busy"}, Transitions: []Transition{
				{From: "", To: "queued"}, {From: "queued", To: "calling", Clock: true}, {From: "calling", To: "busy", Clock: true},
			}}},
			ClockEvents: []ClockEvent{{Kind: "calls.step", Doc: "A call moves on."}},
			Presets:     []string{"calls.outcome:busy", "calls.jam"},
		},
		{
			Name:       "notes",
			Operations: []Operation{{ID: "noteList", Method: "GET", Path: "/notes", Statuses: []int{200}}},
		},
	}}
	for fi := range cat.Families {
		for oi := range cat.Families[fi].Operations {
			cat.Families[fi].Operations[oi].Normalize()
		}
	}
	return cat.Index()
}

// record makes a little traffic on c.
func record(c *Counts) {
	create := c.Catalogue().OperationIndex("callCreate")
	c.Request(create, 201, "", "", "", SourceClient)
	c.Request(create, 201, "", "", "", SourceTimeline)
	c.Request(create, 400, "BAD_NUMBER", "", "", SourceClient)
	c.Request(create, 503, "", "f1", "", SourceClient)                   // a fault rule's answer
	c.Request(create, 201, "", "f2", "calls.outcome:busy", SourceClient) // a preset
	c.Request(-1, 404, "NOT_FOUND", "", "", SourceClient)
	c.Transition("call", "", "queued")
	c.From(SourceTimeline).Transition("call", "queued", "calling")
	c.Transition("call", "calling", "exploded") // outside the catalogue
	c.ClockEvent("calls.step")
	c.ClockEvent("calls.mystery")
}

func TestReport(t *testing.T) {
	t.Parallel()
	c := NewCounts(testCatalogue())
	record(c)
	r := Build(c.Catalogue(), c.Snapshot(), []string{"f1", "f3", "f1"})

	wantTotals := Totals{
		Operations:  Ratio{Covered: 1, Total: 3, Percent: 33.3},
		Statuses:    Ratio{Covered: 2, Total: 6, Percent: 33.3},
		Codes:       Ratio{Covered: 1, Total: 2, Percent: 50},
		Transitions: Ratio{Covered: 2, Total: 3, Percent: 66.6},
		ClockEvents: Ratio{Covered: 1, Total: 1, Percent: 100},
		Presets:     Ratio{Covered: 1, Total: 2, Percent: 50},
		FaultRules:  Ratio{Covered: 1, Total: 2, Percent: 50},
	}
	if diff := cmp.Diff(wantTotals, r.Totals); diff != "" {
		t.Errorf("totals (-want +got):\n%s", diff)
	}
	wantCreate := OperationReport{ID: "callCreate", Method: "POST", Path: "/calls", Calls: 5, Timeline: 1,
		Statuses: []StatusCount{{201, 3}, {400, 1}, {429, 0}},
		Codes:    []CodeCount{{400, "BAD_NUMBER", 1}, {429, "RATE_LIMITED", 0}},
		Answers: []AnswerReport{
			{Status: 201, Count: 2}, {Status: 201, Fault: true, Count: 1}, {Status: 400, Code: "BAD_NUMBER", Count: 1},
			{Status: 503, Fault: true, Uncatalogued: true, Count: 1},
		}}
	if diff := cmp.Diff(wantCreate, r.Families[0].Operations[0]); diff != "" {
		t.Errorf("callCreate (-want +got):\n%s", diff)
	}
	wantMachine := MachineReport{Name: "call", States: []string{"queued", "calling", "busy"}, Transitions: []TransitionReport{
		{From: "", To: "queued", Count: Count{N: 1}},
		{From: "queued", To: "calling", Clock: true, Count: Count{N: 1, Timeline: 1}},
		{From: "calling", To: "busy", Clock: true},
	}}
	if diff := cmp.Diff(wantMachine, r.Families[0].Machines[0]); diff != "" {
		t.Errorf("machine (-want +got):\n%s", diff)
	}
	wantUncat := []Uncatalogued{
		{Kind: "transition", Machine: "call", From: "calling", To: "exploded", Count: Count{N: 1}},
		{Kind: "clock_event", Name: "calls.mystery", Count: Count{N: 1}},
	}
	if diff := cmp.Diff(wantUncat, r.Uncatalogued); diff != "" {
		t.Errorf("uncatalogued (-want +got):\n%s", diff)
	}
	wantRules := []FaultRuleReport{{ID: "f1", InForce: true, Fired: 1}, {ID: "f3", InForce: true}, {ID: "f2", Fired: 1}}
	if diff := cmp.Diff(wantRules, r.FaultRules); diff != "" {
		t.Errorf("fault rules (-want +got):\n%s", diff)
	}
	if r.Unrouted != 1 {
		t.Errorf("unrouted = %d, want 1", r.Unrouted)
	}
	var never []string
	for _, it := range r.NeverExercised {
		never = append(never, fmt.Sprintf("%d %s", it.Rank, it.Text))
	}
	wantNever := []string{
		"1 call calling → busy",
		"2 callCreate never answered 429",
		"3 callCreate never answered 429 RATE_LIMITED",
		"4 preset calls.jam never fired",
		"4 fault rule f3 never fired",
		"6 callGet (GET /calls/:id) never called",
		"6 noteList (GET /notes) never called",
	}
	if diff := cmp.Diff(wantNever, never); diff != "" {
		t.Errorf("never exercised (-want +got):\n%s", diff)
	}
}

// TestClearAndReuse: Clear forgets everything; counting goes on after.
func TestClearAndReuse(t *testing.T) {
	t.Parallel()
	c := NewCounts(testCatalogue())
	record(c)
	c.Clear()
	if diff := cmp.Diff(NewSnapshot(), c.Snapshot()); diff != "" {
		t.Errorf("after Clear (-want +got):\n%s", diff)
	}
	c.Transition("call", "", "queued")
	if got := c.Snapshot().Transitions[TransitionKey{"call", "", "queued"}]; got != (Count{N: 1}) {
		t.Errorf("after Clear, a transition counts %+v, want 1", got)
	}
}

// TestBounded: whatever the traffic, what falls outside the catalogue
// stays within its bounds; the rest is counted as dropped.
func TestBounded(t *testing.T) {
	t.Parallel()
	c := NewCounts(testCatalogue())
	op := c.Catalogue().OperationIndex("callGet")
	const n = 5000
	for i := range n {
		code := fmt.Sprintf("CODE_%d", i)
		c.Request(op, 500+i%100, code, fmt.Sprintf("rule-%d", i), "x.y:"+code, SourceClient)
		c.Transition("m", code, "z")
		c.ClockEvent(code)
	}
	s := c.Snapshot()
	checks := []struct {
		what     string
		got, max int
	}{
		{"answers", len(s.Operations["callGet"].Answers), maxAnswersPerOp},
		{"fault rules", len(s.FaultRules), maxFaultRules},
		{"transitions", len(s.Transitions), maxExtra},
		{"clock events", len(s.ClockEvents), maxExtra},
		{"presets", len(s.Presets), maxExtra},
	}
	dropped := 0
	for _, ck := range checks {
		if ck.got != ck.max {
			t.Errorf("%s: %d kept, want the bound %d", ck.what, ck.got, ck.max)
		}
		dropped += n - ck.max
	}
	if s.Dropped != uint64(dropped) {
		t.Errorf("dropped = %d, want %d", s.Dropped, dropped)
	}
	if s.Operations["callGet"].Calls != n {
		t.Errorf("calls = %d, want %d (counted even when the answer is dropped)", s.Operations["callGet"].Calls, n)
	}
}

// TestMergeShards: two shards' reports, through their JSON, merge into
// the report of one run that made both shards' requests.
func TestMergeShards(t *testing.T) {
	t.Parallel()
	cat := testCatalogue()
	one, a, b := NewCounts(cat), NewCounts(cat), NewCounts(cat)
	record(one)
	record(one)
	record(a)
	record(b)
	create := cat.OperationIndex("callCreate")
	for _, c := range []*Counts{one, b} {
		c.Request(create, 429, "RATE_LIMITED", "", "", SourceClient)
		c.Transition("call", "calling", "busy")
	}
	viaJSON := func(r *Report) *Report {
		t.Helper()
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back Report
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		return &back
	}
	want := Build(cat, one.Snapshot(), []string{"f1"})
	got := Merge(viaJSON(Build(cat, a.Snapshot(), []string{"f1"})), viaJSON(Build(cat, b.Snapshot(), nil)))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged shards differ from one run (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, Merge(viaJSON(want))); diff != "" {
		t.Errorf("a report merged alone changed (-want +got):\n%s", diff)
	}
}

// TestMergeCatalogues: a report of another catalogue (another mockd
// version) adds its items.
func TestMergeCatalogues(t *testing.T) {
	t.Parallel()
	x := &Catalogue{Families: []Family{{Name: "calls", Operations: []Operation{{ID: "callGet", Statuses: []int{200}}}}}}
	y := &Catalogue{Families: []Family{{Name: "calls", Operations: []Operation{{ID: "callGet", Statuses: []int{404}}, {ID: "callNew", Statuses: []int{201}}}}}}
	got := Merge(Build(x.Index(), NewSnapshot(), nil), Build(y.Index(), NewSnapshot(), nil))
	var ops []string
	for _, op := range got.Families[0].Operations {
		ops = append(ops, fmt.Sprintf("%s %v", op.ID, op.Statuses))
	}
	if diff := cmp.Diff([]string{"callGet [{200 0} {404 0}]", "callNew [{201 0}]"}, ops); diff != "" {
		t.Errorf("merged catalogue (-want +got):\n%s", diff)
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	c := NewCounts(testCatalogue())
	record(c)
	r := Build(c.Catalogue(), c.Snapshot(), nil)
	empty := Build((&Catalogue{}).Index(), NewSnapshot(), nil)
	for _, tc := range []struct {
		name string
		r    *Report
		reqs []Requirement
		want []string
	}{
		{"met", r, []Requirement{MinOperations(33), MinTransitions(66.6), TransitionTaken("call", "", "queued")}, nil},
		{"below", r, []Requirement{MinOperations(80), MinStatuses(10), MinCodes(51)}, []string{
			"operations: 33.3% covered (1 of 3), below 80%",
			"codes: 50% covered (1 of 2), below 51%",
		}},
		{"transition missing", r, []Requirement{TransitionTaken("call", "calling", "busy")}, []string{"transition call calling → busy never happened"}},
		{"uncatalogued transition taken", r, []Requirement{TransitionTaken("call", "calling", "exploded")}, nil},
		{"nothing to cover", empty, []Requirement{MinClockEvents(1)}, []string{"clock events: the catalogue has none to cover (wanted 1%)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, tc.r.Check(tc.reqs...)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseTransition(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		want    TransitionKey
		wantErr bool
	}{
		{"outbound_call:calling->busy", TransitionKey{"outbound_call", "calling", "busy"}, false},
		{"outbound_call:new->queued", TransitionKey{"outbound_call", "", "queued"}, false},
		{"outbound_call:->queued", TransitionKey{"outbound_call", "", "queued"}, false},
		{"outbound_call", TransitionKey{}, true},
		{"outbound_call:calling", TransitionKey{}, true},
		{":a->b", TransitionKey{}, true},
		{"m:a->", TransitionKey{}, true},
	} {
		q, err := ParseTransition(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParseTransition(%q): err %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if err == nil && q.trans != tc.want {
			t.Errorf("ParseTransition(%q) = %+v, want %+v", tc.in, q.trans, tc.want)
		}
	}
}

// TestConcurrentRecording: every count arrives under concurrent use
// (run with -race).
func TestConcurrentRecording(t *testing.T) {
	t.Parallel()
	c := NewCounts(testCatalogue())
	op := c.Catalogue().OperationIndex("callGet")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				c.Request(op, 200, "", "", "", SourceClient)
				c.Transition("call", "", "queued")
				c.ClockEvent("calls.step")
				_ = c.Snapshot()
			}
		})
	}
	wg.Wait()
	s := c.Snapshot()
	if s.Operations["callGet"].Calls != 800 || s.Transitions[TransitionKey{"call", "", "queued"}].N != 800 || s.ClockEvents["calls.step"].N != 800 {
		t.Errorf("counts after 8×100 of each: %+v", s)
	}
}

// BenchmarkRequest measures recording one request (the target is at most
// 1 µs).
func BenchmarkRequest(b *testing.B) {
	c := NewCounts(testCatalogue())
	op := c.Catalogue().OperationIndex("callCreate")
	b.ReportAllocs()
	for b.Loop() {
		c.Request(op, 400, "BAD_NUMBER", "", "", SourceClient)
	}
}

// BenchmarkRequestParallel is BenchmarkRequest from every core at once
// (one instance's lock shared).
func BenchmarkRequestParallel(b *testing.B) {
	c := NewCounts(testCatalogue())
	op := c.Catalogue().OperationIndex("callCreate")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Request(op, 201, "", "", "", SourceClient)
		}
	})
}

// BenchmarkTransition measures recording one transition.
func BenchmarkTransition(b *testing.B) {
	c := NewCounts(testCatalogue())
	b.ReportAllocs()
	for b.Loop() {
		c.Transition("call", "queued", "calling")
	}
}

// TestMachineCheck: a machine needs a name, states and transitions, each
// between its states and once.
func TestMachineCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		m    Machine
		ok   bool
	}{
		{"good", Machine{Name: "m", States: []string{"a", "b"}, Transitions: []Transition{{To: "a"}, {From: "a", To: "b"}}}, true},
		{"no name", Machine{States: []string{"a"}, Transitions: []Transition{{To: "a"}}}, false},
		{"no states", Machine{Name: "m", Transitions: []Transition{{To: "a"}}}, false},
		{"no transitions", Machine{Name: "m", States: []string{"a"}}, false},
		{"unknown to", Machine{Name: "m", States: []string{"a"}, Transitions: []Transition{{From: "a", To: "z"}}}, false},
		{"unknown from", Machine{Name: "m", States: []string{"a"}, Transitions: []Transition{{From: "z", To: "a"}}}, false},
		{"twice", Machine{Name: "m", States: []string{"a"}, Transitions: []Transition{{To: "a"}, {To: "a", Clock: true}}}, false},
	} {
		if err := tc.m.Check(); (err == nil) != tc.ok {
			t.Errorf("%s: Check() = %v", tc.name, err)
		}
	}
}
