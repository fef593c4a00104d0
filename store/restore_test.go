package store

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/buntdb"
)

// Tests of Restore's copy on write: a memory store takes a snapshot's
// derived data (lookup index, aggregates, concurrency index, layers,
// string table) shared, and rewrites only the keys that differ.

// restoreSeed is a store with records of every kind: generated ones,
// stored conversations of several projects (open and finished spans),
// documents and handoff states, and API errors (which Restore clears).
func restoreSeed(t *testing.T) *Store {
	t.Helper()
	s := openMem(t)
	if err := s.Generate(testSpec(300), nil); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 11))
	var cs []*Conversation
	for i := range 120 {
		cs = append(cs, randomConv(r, fmt.Sprintf("R%03d", i)))
	}
	for i := range 30 {
		cs = append(cs, mkConv("us", "1001", "2001", fmt.Sprintf("M%03d", i), metricsT0.Add(time.Duration(i)*7*time.Minute)))
	}
	for i := range 5 { // old enough for retention
		cs = append(cs, mkConv("us", "1001", "2001", fmt.Sprintf("OLD%d", i), testSpec(1).From.Add(time.Duration(i)*time.Hour)))
	}
	if err := s.PutConversations(cs); err != nil {
		t.Fatal(err)
	}
	if err := s.PutDoc("agent", "us", "a1", map[string]any{"name": "one"}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutHandoffState(&HandoffState{Region: "us", AccountID: "1001", ProjectID: "2001", ID: "M001", SharedID: "sh", CreatedAt: base}); err != nil {
		t.Fatal(err)
	}
	s.RecordAPIError("us", "1", "p1", metricsT0, time.Hour)
	return s
}

// restoreWrites are writes to each of a store's structures (i varies
// them); each returns an error rather than failing, for use from
// goroutines.
var restoreWrites = []struct {
	name  string
	write func(s *Store, i int) error
}{
	{"insert", func(s *Store, i int) error {
		return s.InsertConversation(mkConv("us", "1001", "2001", fmt.Sprint("NEW", i), metricsT0.Add(time.Duration(i)*time.Minute)))
	}},
	{"put over a stored record", func(s *Store, i int) error {
		c := randomConv(rand.New(rand.NewPCG(uint64(i), 1)), fmt.Sprintf("R%03d", i%120))
		return s.PutConversation(c)
	}},
	{"update that moves a record", func(s *Store, i int) error {
		_, err := s.UpdateConversation("us", fmt.Sprintf("M%03d", i%30), func(c *Conversation) error {
			c.StartedAt = c.StartedAt.Add(48 * time.Hour)
			c.EndedAt = time.Time{}
			c.InProgress = true
			return nil
		})
		return err
	}},
	{"append turns", func(s *Store, i int) error {
		_, err := s.AppendTurns("us", fmt.Sprintf("M%03d", i%30), func(c *Conversation) error {
			c.Turns = append(c.Turns, Turn{UserInput: "more", UserInputAt: c.StartedAt.Add(time.Minute), Latency: time.Second})
			return nil
		})
		return err
	}},
	{"bulk put", func(s *Store, i int) error {
		r := rand.New(rand.NewPCG(uint64(i), 2))
		var cs []*Conversation
		for j := range 5 {
			cs = append(cs, randomConv(r, fmt.Sprintf("B%d-%d", i, j)))
		}
		return s.PutConversations(cs)
	}},
	{"write of a generated record", func(s *Store, i int) error {
		list, _, err := s.ListConversations(ConversationQuery{Region: "us", AccountID: "1001", ProjectID: "2001", Limit: 50})
		if err != nil {
			return err
		}
		_, err = s.UpdateConversation("us", list[i%len(list)].ID, func(c *Conversation) error {
			c.Channel = "CHAT"
			return nil
		})
		return err
	}},
	{"retention", func(s *Store, i int) error {
		_, err := s.DropConversationsBefore(testSpec(1).From.Add(time.Duration(24+i) * time.Hour))
		return err
	}},
	{"generate", func(s *Store, i int) error {
		sp := testSpec(50)
		sp.Seed1, sp.ProjectID = uint64(100+i), "2002"
		return s.Generate(sp, nil)
	}},
	{"documents", func(s *Store, i int) error {
		if err := s.PutDoc("agent", "us", fmt.Sprint("a", i+2), map[string]any{"n": i}); err != nil {
			return err
		}
		if err := s.DeleteDoc("agent", "us", "a1"); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		return nil
	}},
	{"handoff state", func(s *Store, i int) error {
		return s.PutHandoffState(&HandoffState{Region: "us", AccountID: "1001", ProjectID: "2001", ID: "M001", SharedID: fmt.Sprint("other", i)})
	}},
	{"string table", func(s *Store, i int) error {
		// A string written twice enters the table.
		for j := range 2 {
			c := mkConv("eu", "1", "p9", fmt.Sprintf("S%d-%d", i, j), metricsT0)
			c.VariantName = fmt.Sprint("a variant name never seen ", i)
			if err := s.PutConversation(c); err != nil {
				return err
			}
		}
		return nil
	}},
	{"api errors", func(s *Store, i int) error {
		s.RecordAPIError("us", "1", "p2", metricsT0.Add(time.Duration(i)*time.Second), time.Hour)
		return nil
	}},
	{"many records", func(s *Store, i int) error {
		// More than a quarter of the keys: every key is rewritten.
		var cs []*Conversation
		for j := range 200 {
			cs = append(cs, mkConv("uk", "1", "p1", fmt.Sprintf("U%d-%03d", i, j), base.Add(time.Duration(j)*time.Second)))
		}
		return s.PutConversations(cs)
	}},
}

// restoredState is what a store holds, derived data included, in a
// comparable form.
type restoredState struct {
	Keys    map[string]string
	Index   map[string]string
	Strings []string
	Layers  []string
	Counts  map[string]int
	Len     int
	Metrics []MetricsResult
	Conc    []string
	Listed  []string
}

var restoreProjects = []ProjectRef{{"us", "1", "p1"}, {"us", "1", "p2"}, {"eu", "1", "p1"}, {"us", "1001", "2001"}, {"us", "1001", "2002"}, {"eu", "1", "p9"}}

func stateOf(t *testing.T, s *Store) restoredState {
	t.Helper()
	var st restoredState
	st.Keys = map[string]string{}
	for _, p := range dump(t, s) {
		st.Keys[p.k] = p.v
	}
	st.Index = indexed(s)
	st.Counts = map[string]int{}
	for _, region := range []string{"us", "eu", "uk"} {
		n, err := s.CountConversations(region)
		if err != nil {
			t.Fatal(err)
		}
		st.Counts[region] = n
	}
	n, err := s.Len()
	if err != nil {
		t.Fatal(err)
	}
	st.Len = n
	if err := s.view(func(*buntdb.Tx) error {
		st.Strings = slices.Clone(s.tab.load())
		for _, ls := range s.gen {
			st.Layers = append(st.Layers, fmt.Sprintf("%s cut %d shadowed %d %x", ls.key, ls.cut, ls.nShad, ls.shadow))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	from := metricsT0.Add(-3 * time.Hour)
	for _, ref := range restoreProjects {
		m, err := s.QueryMetrics(MetricsQuery{Projects: []ProjectRef{ref}, From: from, To: from.Add(6 * time.Hour), Percentiles: []int{50, 90}})
		if err != nil {
			t.Fatal(err)
		}
		st.Metrics = append(st.Metrics, m)
		for _, win := range []time.Time{from, testSpec(1).From} {
			for _, env := range []string{"", "live", "sandbox"} {
				q := ConcurrencyQuery{Region: ref.Region, AccountID: ref.AccountID, ProjectID: ref.ProjectID,
					Start: win, Intervals: 2016, Now: win.Add(72 * time.Hour), Environment: env, ByVariant: env == "sandbox"}
				cs, _, err := s.ConcurrencySeries(q)
				if err != nil {
					t.Fatal(err)
				}
				st.Conc = append(st.Conc, fmt.Sprint(cs))
			}
		}
	}
	for _, c := range listAll(t, s, ConversationQuery{}) {
		st.Listed = append(st.Listed, c.ID+" "+c.Channel)
	}
	return st
}

// mustBeConsistent checks that a memory store's lookup index holds
// exactly its stored conversations, and that its string table holds each
// string once, those of the snapshot (restored) first.
func mustBeConsistent(t *testing.T, st, restored restoredState) {
	t.Helper()
	if !slices.Equal(restored.Strings, st.Strings[:min(len(st.Strings), len(restored.Strings))]) {
		t.Fatalf("string table %q does not start with the snapshot's %q", st.Strings, restored.Strings)
	}
	seen := map[string]bool{}
	for _, x := range st.Strings {
		if seen[x] {
			t.Fatalf("string table holds %q twice", x)
		}
		seen[x] = true
	}
	want := map[string]string{}
	for k := range st.Keys {
		if parts, ok := parseConvKey(k); ok {
			want[parts.region+"/"+parts.id] = k
		}
	}
	if d := cmp.Diff(want, st.Index); d != "" {
		t.Fatalf("lookup index (-records +index):\n%s", d)
	}
}

// TestRestoreAfterWrites: after a write to each of a memory store's
// structures, Restore gives exactly the snapshot's state (what a fresh
// store restored from it holds), also the second time, and the store's
// aggregates still match its records.
func TestRestoreAfterWrites(t *testing.T) {
	t.Parallel()
	snap := mustSnapshot(t, restoreSeed(t))
	fresh := openMem(t)
	if err := fresh.Restore(snap); err != nil {
		t.Fatal(err)
	}
	want := stateOf(t, fresh)
	if want.Metrics[1].APIErrors != 0 {
		t.Fatal("Restore kept API errors")
	}
	for _, w := range restoreWrites {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			s := openMem(t)
			for round := range 3 {
				if err := s.Restore(snap); err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, stateOf(t, s)); d != "" {
					t.Fatalf("round %d: state after restore (-fresh store +restored):\n%s", round, d)
				}
				if err := w.write(s, round); err != nil {
					t.Fatal(err)
				}
				written := stateOf(t, s)
				if cmp.Equal(want, written) {
					t.Fatalf("round %d: the write changed nothing", round)
				}
				mustBeConsistent(t, written, want)
				sameAfterRebuild(t, s, MetricsQuery{Projects: restoreProjects, From: metricsT0.Add(-3 * time.Hour), To: metricsT0.Add(3 * time.Hour), Percentiles: []int{50}},
					&ConcurrencyQuery{Region: "us", AccountID: "1001", ProjectID: "2001", Start: testSpec(1).From, Intervals: 2016, Now: testSpec(1).Now, ByVariant: true})
			}
		})
	}
}

// TestRestoreCopyOnWrite: stores restored from one snapshot share its
// derived data; writes of every kind to them and to the store it was
// taken from, concurrent with their reads, snapshots and restores, never
// change the snapshot or one another (go test -race checks the sharing).
func TestRestoreCopyOnWrite(t *testing.T) {
	t.Parallel()
	src := restoreSeed(t)
	snap := mustSnapshot(t, src)
	ref := openMem(t)
	if err := ref.Restore(snap); err != nil {
		t.Fatal(err)
	}
	want := stateOf(t, ref)
	stores := []*Store{src, openMem(t), openMem(t)}
	for _, s := range stores[1:] {
		if err := s.Restore(snap); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for n, s := range stores {
		wg.Go(func() {
			for round := range 2 {
				for i, w := range restoreWrites {
					if err := w.write(s, n*100+round*20+i); err != nil {
						errs <- fmt.Errorf("store %d: %s: %w", n, w.name, err)
					}
				}
				if _, err := s.Snapshot(); err != nil {
					errs <- err
				}
				if n > 0 && round == 0 {
					if err := s.Restore(snap); err != nil {
						errs <- err
					}
				}
			}
		})
		wg.Go(func() {
			for range 20 {
				if _, err := s.QueryMetrics(MetricsQuery{Projects: restoreProjects, From: metricsT0.Add(-time.Hour), To: metricsT0.Add(time.Hour), Percentiles: []int{90}}); err != nil {
					errs <- err
				}
				if _, _, err := s.ConcurrencySeries(ConcurrencyQuery{Region: "us", AccountID: "1001", ProjectID: "2001", Start: metricsT0.Add(-time.Hour), Intervals: 24, Now: metricsT0, ByVariant: true}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if d := cmp.Diff(want, stateOf(t, ref)); d != "" {
		t.Fatalf("a store restored and not written changed (-before +after):\n%s", d)
	}
	last := openMem(t)
	if err := last.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, stateOf(t, last)); d != "" {
		t.Fatalf("the snapshot changed (-at first +restored now):\n%s", d)
	}
	for n, s := range stores {
		mustBeConsistent(t, stateOf(t, s), want)
		s.PruneAPIErrors(metricsT0.Add(24 * time.Hour)) // not the records' (the oracle reads those)
		for _, p := range restoreProjects {
			mustMatchOracle(t, s, MetricsQuery{Projects: []ProjectRef{p}, From: metricsT0.Add(-3 * time.Hour), To: metricsT0.Add(3 * time.Hour), Percentiles: []int{50, 99}}, fmt.Sprintf("store %d, %v: ", n, p))
		}
	}
}
