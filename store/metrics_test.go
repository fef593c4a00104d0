package store

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var metricsT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// mustMatchOracle checks that s's aggregates were kept up by the writes
// (not dropped for a rebuild, which would match the records whatever the
// writes did to them) and that for q they are what its records give
// (metricsOracle); what names the case in the failure.
func mustMatchOracle(t *testing.T, s *Store, q MetricsQuery, what string) {
	t.Helper()
	if !s.metrics.valid {
		t.Fatalf("%sthe aggregates were dropped for a rebuild", what)
	}
	agg, err := s.QueryMetrics(q)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(metricsOracle(t, s, q), agg); d != "" {
		t.Errorf("%saggregates (-oracle +got):\n%s", what, d)
	}
}

// metricsOracle computes a window the slow way, from the records: every
// conversation of the projects that started in [from-MetricsLookback, to]
// is read, and its events in [from, to] are counted (starts: in [from,
// to]); percentiles are nearest-rank over the sorted latencies.
func metricsOracle(t *testing.T, s *Store, q MetricsQuery) MetricsResult {
	t.Helper()
	var res MetricsResult
	var lat []int64
	in := func(x time.Time) bool { return !x.Before(q.From) && !x.After(q.To) }
	seen := map[ProjectRef]bool{}
	for _, ref := range q.Projects {
		if seen[ref] {
			continue
		}
		seen[ref] = true
		list, _, err := s.ListConversations(ConversationQuery{Region: ref.Region, AccountID: ref.AccountID, ProjectID: ref.ProjectID,
			From: q.From.Add(-MetricsLookback), To: q.To.Add(time.Nanosecond)})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range list {
			if in(c.StartedAt) {
				res.Starts++
			}
			for i, tr := range c.Turns {
				if i == 0 && tr.UserInput == "" && !tr.IsSilence && !tr.IsOOD && tr.Latency == 0 {
					continue
				}
				if in(tr.UserInputAt) {
					res.Turns++
					lat = append(lat, tr.Latency.Milliseconds())
				}
			}
			for _, x := range c.FunctionErrors {
				if in(x) {
					res.FunctionErrors++
				}
			}
			for _, x := range c.Crashes {
				if in(x) {
					res.Crashes++
				}
			}
		}
	}
	slices.Sort(lat)
	for _, p := range q.Percentiles {
		v := int64(0)
		if len(lat) > 0 {
			rank := max((p*len(lat)+99)/100, 1)
			v = lat[rank-1]
		}
		res.Percentiles = append(res.Percentiles, v)
	}
	return res
}

// randomConv makes a conversation of one of a few projects, with turns,
// errors and crashes around its start (some over an hour later, some
// before it, several at the same instant, latencies repeating).
func randomConv(r *rand.Rand, id string) *Conversation {
	projects := []ProjectRef{{"us", "1", "p1"}, {"us", "1", "p2"}, {"eu", "1", "p1"}}
	ref := projects[r.IntN(len(projects))]
	at := func(base time.Time) time.Time {
		switch r.IntN(10) {
		case 0:
			return base.Add(-time.Duration(r.IntN(600)) * time.Second) // before the start
		case 1:
			return base.Add(time.Hour + time.Duration(r.IntN(3600))*time.Second) // over an hour later
		case 2:
			return base.Add(time.Hour) // exactly the lookback
		case 3:
			return base.Truncate(time.Minute) // a minute boundary
		}
		return base.Add(time.Duration(r.Int64N(int64(50 * time.Minute))))
	}
	start := metricsT0.Add(time.Duration(r.Int64N(int64(4*time.Hour))) - 2*time.Hour)
	if r.IntN(8) == 0 {
		start = start.Truncate(time.Minute)
	}
	c := &Conversation{ID: id, Region: ref.Region, AccountID: ref.AccountID, ProjectID: ref.ProjectID, StartedAt: start}
	for i := range r.IntN(6) {
		tr := Turn{UserInput: "hi", UserInputAt: at(start), Latency: time.Duration(400+r.IntN(40)*25) * time.Millisecond}
		if i == 0 && r.IntN(2) == 0 {
			tr = Turn{UserInputAt: start} // a greeting
		}
		c.Turns = append(c.Turns, tr)
	}
	for range r.IntN(3) {
		c.FunctionErrors = append(c.FunctionErrors, at(start))
	}
	if r.IntN(5) == 0 {
		c.Crashes = append(c.Crashes, at(start))
	}
	return c
}

func randomQuery(r *rand.Rand) MetricsQuery {
	all := []ProjectRef{{"us", "1", "p1"}, {"us", "1", "p2"}, {"eu", "1", "p1"}, {"us", "9", "none"}}
	var q MetricsQuery
	for _, p := range all {
		if r.IntN(2) == 0 {
			q.Projects = append(q.Projects, p)
		}
	}
	if r.IntN(4) == 0 {
		q.Projects = append(q.Projects, all[0]) // a duplicate counts once
	}
	to := metricsT0.Add(time.Duration(r.Int64N(int64(5*time.Hour))) - 2*time.Hour)
	if r.IntN(2) == 0 {
		to = to.Truncate(time.Minute)
	}
	win := []time.Duration{5 * time.Minute, 10 * time.Minute, time.Hour, 0, 90 * time.Second}[r.IntN(5)]
	q.From, q.To = to.Add(-win), to
	q.Percentiles = []int{50, 95, 1, 100}[:r.IntN(5)]
	return q
}

// TestMetricsMatchOracle: over random data and random writes (inserts,
// replacements that move a record to another project or start, updates,
// bulk loads), every window of the aggregates equals the slow path.
func TestMetricsMatchOracle(t *testing.T) {
	t.Parallel()
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(seed, 42))
			s := openMem(t)
			n := 0
			ids := func() string { n++; return fmt.Sprintf("C%04d", n) }
			var bulk []*Conversation
			for range 200 {
				bulk = append(bulk, randomConv(r, ids()))
			}
			if err := s.PutConversations(bulk); err != nil {
				t.Fatal(err)
			}
			check := func(step string) {
				t.Helper()
				for range 40 {
					q := randomQuery(r)
					got, err := s.QueryMetrics(q)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(metricsOracle(t, s, q), got); diff != "" {
						t.Fatalf("%s: window %v..%v of %v (-oracle +aggregates):\n%s", step, q.From, q.To, q.Projects, diff)
					}
				}
			}
			check("bulk")
			for i := range 300 {
				pick := func() *Conversation { return bulk[r.IntN(len(bulk))] }
				switch r.IntN(5) {
				case 0:
					c := randomConv(r, ids())
					if err := s.InsertConversation(c); err != nil {
						t.Fatal(err)
					}
					bulk = append(bulk, c)
				case 1: // replace: maybe another project and start
					c := randomConv(r, pick().ID)
					c.Region = "us"
					if err := s.PutConversation(c); err != nil && i >= 0 {
						// The region is part of the identity: a "us" record with
						// an "eu" twin is a new record, which is fine.
						t.Fatal(err)
					}
				case 2: // append a turn, an error
					c := pick()
					_, err := s.UpdateConversation(c.Region, c.ID, func(c *Conversation) error {
						c.Turns = append(c.Turns, Turn{UserInput: "x", UserInputAt: c.StartedAt.Add(time.Duration(r.IntN(7200)) * time.Second),
							Latency: time.Duration(r.IntN(2000)) * time.Millisecond})
						if r.IntN(2) == 0 {
							c.FunctionErrors = append(c.FunctionErrors, c.StartedAt.Add(time.Minute))
						}
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
				case 3: // rewrite: drop turns, move the start
					c := pick()
					_, err := s.UpdateConversation(c.Region, c.ID, func(c *Conversation) error {
						if len(c.Turns) > 0 {
							c.Turns = c.Turns[:len(c.Turns)-1]
						}
						c.StartedAt = c.StartedAt.Add(time.Duration(r.IntN(600)-300) * time.Second)
						c.Crashes = nil
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
				case 4: // a bulk replacement of a few
					var cs []*Conversation
					for range 3 {
						c := randomConv(r, pick().ID)
						c.Region = pick().Region
						cs = append(cs, c)
					}
					if err := s.PutConversations(cs); err != nil {
						t.Fatal(err)
					}
				}
				if i%50 == 49 {
					check(fmt.Sprintf("after %d writes", i+1))
				}
			}
			// A snapshot restored carries the aggregates; so does a rebuild.
			snap, err := s.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Restore(nil); err != nil {
				t.Fatal(err)
			}
			if err := s.Restore(snap); err != nil {
				t.Fatal(err)
			}
			check("restored")
			s.metricsInvalid()
			check("rebuilt")
		})
	}
}

// TestMetricsSnapshotSharesBuckets: a snapshot shares the aggregates'
// buckets with the store it was taken from and the stores it is restored
// to (copy on write): writes to any of them after the snapshot leave the
// others as they were. Two stores restored from one snapshot are written
// differently, the first is written too, and each matches the oracle
// over its own records; a last restore matches the state at the snapshot.
func TestMetricsSnapshotSharesBuckets(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 7))
	src := openMem(t)
	var bulk []*Conversation
	for i := range 300 {
		bulk = append(bulk, randomConv(r, fmt.Sprintf("C%04d", i)))
	}
	if err := src.PutConversations(bulk); err != nil {
		t.Fatal(err)
	}
	queries := make([]MetricsQuery, 30)
	for i := range queries {
		queries[i] = randomQuery(r)
	}
	answers := func(s *Store) []MetricsResult {
		t.Helper()
		var out []MetricsResult
		for _, q := range queries {
			got, err := s.QueryMetrics(q)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, got)
		}
		return out
	}
	atSnapshot := answers(src)
	snap, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	a, b := openMem(t), openMem(t)
	for _, s := range []*Store{a, b} {
		if err := s.Restore(snap); err != nil {
			t.Fatal(err)
		}
	}
	// Each store gets writes of its own into the minutes the snapshot
	// holds: new turns and replacements (events removed and added).
	for n, s := range []*Store{src, a, b} {
		for i := range 40 {
			c := bulk[(i*7+n*13)%len(bulk)]
			_, err := s.UpdateConversation(c.Region, c.ID, func(c *Conversation) error {
				c.Turns = append(c.Turns, Turn{UserInput: "x", UserInputAt: c.StartedAt.Add(time.Duration(i+n) * time.Second),
					Latency: time.Duration(100*(n+1)+i) * time.Millisecond})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		for i := range 5 {
			c := randomConv(rand.New(rand.NewPCG(uint64(n), uint64(i))), bulk[n*5+i].ID)
			c.Region = bulk[n*5+i].Region
			if err := s.PutConversation(c); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, s := range map[string]*Store{"source": src, "first restored": a, "second restored": b} {
		for i, q := range queries {
			got, err := s.QueryMetrics(q)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(metricsOracle(t, s, q), got); diff != "" {
				t.Fatalf("%s, query %d (-oracle +aggregates):\n%s", name, i, diff)
			}
		}
	}
	last := openMem(t)
	if err := last.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(atSnapshot, answers(last)); diff != "" {
		t.Fatalf("the snapshot changed after the writes (-at the snapshot +restored now):\n%s", diff)
	}
}

// TestMetricsReopenedFile: a store opened on a file with data rebuilds
// the aggregates from it.
func TestMetricsReopenedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 50 {
		if err := s.InsertConversation(randomConv(r, fmt.Sprintf("C%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	q := MetricsQuery{Projects: []ProjectRef{{"us", "1", "p1"}, {"us", "1", "p2"}, {"eu", "1", "p1"}},
		From: metricsT0.Add(-3 * time.Hour), To: metricsT0.Add(3 * time.Hour), Percentiles: []int{50}}
	before, err := s.QueryMetrics(q)
	if err != nil {
		t.Fatal(err)
	}
	s = reopen(t, s, path)
	after, err := s.QueryMetrics(q)
	if err != nil {
		t.Fatal(err)
	}
	if before.Starts != 50 {
		t.Fatalf("starts = %d, want 50", before.Starts)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Fatalf("after reopening (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(metricsOracle(t, s, q), after); diff != "" {
		t.Fatalf("(-oracle +aggregates):\n%s", diff)
	}
}

// TestMetricsAPIErrors: recorded API errors count in their window, per
// project; pruning drops the old ones; Restore clears them.
func TestMetricsAPIErrors(t *testing.T) {
	s := openMem(t)
	p := ProjectRef{"us", "1", "p1"}
	for _, d := range []time.Duration{0, time.Minute, 30 * time.Second, 2 * time.Hour} {
		s.RecordAPIError(p.Region, p.AccountID, p.ProjectID, metricsT0.Add(d), 24*time.Hour)
	}
	s.RecordAPIError("us", "1", "p2", metricsT0, 24*time.Hour)
	count := func(from, to time.Time) int64 {
		t.Helper()
		res, err := s.QueryMetrics(MetricsQuery{Projects: []ProjectRef{p}, From: from, To: to})
		if err != nil {
			t.Fatal(err)
		}
		return res.APIErrors
	}
	if n := count(metricsT0, metricsT0.Add(time.Minute)); n != 3 {
		t.Fatalf("errors in [t0, t0+1m] = %d, want 3", n)
	}
	if n := count(metricsT0.Add(time.Nanosecond), metricsT0.Add(time.Minute-time.Nanosecond)); n != 1 {
		t.Fatalf("errors in (t0, t0+1m) = %d, want 1", n)
	}
	s.PruneAPIErrors(metricsT0.Add(time.Minute))
	if n := count(metricsT0, metricsT0.Add(3*time.Hour)); n != 2 {
		t.Fatalf("errors after pruning = %d, want 2", n)
	}
	if err := s.Restore(nil); err != nil {
		t.Fatal(err)
	}
	if n := count(metricsT0, metricsT0.Add(3*time.Hour)); n != 0 {
		t.Fatalf("errors after Restore = %d, want 0", n)
	}
}

// TestPercentileOf: nearest rank over several histograms.
func TestPercentileOf(t *testing.T) {
	parts := []*hist{newHist([]int64{5, 1, 3}), newHist([]int64{2, 2, -7}), newHist([]int64{1 << 62, -1 << 62})}
	all := []int64{-1 << 62, -7, 1, 2, 2, 3, 5, 1 << 62}
	for p := 1; p <= 100; p++ {
		rank := max((p*len(all)+99)/100, 1)
		if got := percentileOf(parts, int64(len(all)), p); got != all[rank-1] {
			t.Errorf("p%d = %d, want %d", p, got, all[rank-1])
		}
	}
	if got := percentileOf(nil, 0, 50); got != 0 {
		t.Errorf("no values: %d", got)
	}
}

// TestEndingKeepsAggregates: ending the only conversation of a project,
// one under way, moves the aggregates (they stay built) to what the
// records give.
func TestEndingKeepsAggregates(t *testing.T) {
	t.Parallel()
	s := openMem(t)
	c := mkConv("us", "1", "p1", "y", metricsT0)
	c.InProgress, c.EndedAt = true, time.Time{}
	if err := s.InsertConversation(c); err != nil {
		t.Fatal(err)
	}
	q := MetricsQuery{Projects: []ProjectRef{{"us", "1", "p1"}}, From: metricsT0.Add(-time.Hour), To: metricsT0.Add(time.Hour), Percentiles: []int{50}}
	if _, err := s.UpdateConversation("us", "y", func(c *Conversation) error {
		c.InProgress, c.EndedAt = false, metricsT0.Add(5*time.Minute)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !s.metrics.valid {
		t.Fatal("ending the conversation dropped the aggregates (a rebuild at the next query)")
	}
	mustMatchOracle(t, s, q, "")
}
