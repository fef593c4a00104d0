package store

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestAppendTurnsEqualsUpdate runs the same random writes on two stores,
// one updating with UpdateConversation and the other with AppendTurns
// (whose fn leaves the turns as they are), interleaved with updates that
// change earlier turns in place, puts and restores: the stored records,
// the reads, what fn sees and what AppendTurns returns are the same, and
// a value AppendTurns returned never changes afterwards.
func TestAppendTurnsEqualsUpdate(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	full, app := openMem(t), openMem(t)
	both := func(fn func(s *Store) error) (error, error) { return fn(full), fn(app) }
	type kept struct {
		c    *Conversation
		want *Conversation // a deep copy of c when it was returned
	}
	var returned []kept
	for i := range 12 {
		c := randConv(r, i)
		c.ID = fmt.Sprint("c", i)
		if e1, e2 := both(func(s *Store) error { c := *c; return s.PutConversation(&c) }); e1 != nil || e2 != nil {
			t.Fatal(e1, e2)
		}
	}
	snap1, _ := full.Snapshot()
	snap2, _ := app.Snapshot()
	for i := range 2000 {
		id := fmt.Sprint("c", r.IntN(12))
		op := r.IntN(10)
		seed := r.Uint64()
		mutate := func(c *Conversation) error {
			r := rand.New(rand.NewPCG(seed, 1))
			c.State["n"] = float64(i)
			c.NumOOD++
			switch r.IntN(12) {
			case 0:
				c.StartedAt = c.StartedAt.Add(time.Hour) // moves the key
			case 1:
				c.ProjectID = "other" // moves it to another project
			}
			for range r.IntN(3) {
				c.Turns = append(c.Turns, Turn{UserInput: randString(r), AgentResponse: "Sure.", UserInputAt: randTime(r),
					Intents: []string{"hours"}, Entities: map[string]string{}, Metadata: randObject(r),
					Latency: time.Duration(r.IntN(2000)) * time.Millisecond})
			}
			if r.IntN(5) == 0 {
				c.FunctionErrors = append(c.FunctionErrors, randTime(r))
			}
			if r.IntN(6) == 0 {
				return errors.New("fail")
			}
			return nil
		}
		switch op {
		case 0: // an update that changes an earlier turn in place
			e1, e2 := both(func(s *Store) error {
				_, err := s.UpdateConversation("us", id, func(c *Conversation) error {
					if len(c.Turns) > 0 {
						c.Turns[0].UserInput = fmt.Sprint("changed ", i)
						if c.Turns[0].Metadata != nil {
							c.Turns[0].Metadata["changed"] = true
						}
					}
					return nil
				})
				return err
			})
			if e1 != nil || e2 != nil {
				t.Fatal(e1, e2)
			}
		case 1:
			if r.IntN(5) == 0 {
				if err := full.Restore(snap1); err != nil {
					t.Fatal(err)
				}
				if err := app.Restore(snap2); err != nil {
					t.Fatal(err)
				}
			}
		default:
			upd, e1 := full.UpdateConversation("us", id, mutate)
			got, e2 := app.AppendTurns("us", id, mutate)
			if (e1 == nil) != (e2 == nil) {
				t.Fatalf("op %d: update %v, append %v", i, e1, e2)
			}
			if e2 == nil {
				// What fn made, but for its turns, which are as stored
				// (compared below); times as instants.
				u := *upd
				u.Turns = got.Turns
				if d := cmp.Diff(&u, got); d != "" {
					t.Fatalf("op %d: returned (-update +append):\n%s", i, d)
				}
				// The turns are as stored, or (a value the cache cannot
				// hold) as fn made them.
				if d := cmp.Diff(rawDecoded(t, app, "us", id).Turns, got.Turns, exactTime); d != "" {
					if d2 := cmp.Diff(upd.Turns, got.Turns); d2 != "" {
						t.Fatalf("op %d: AppendTurns returned turns (-stored +returned):\n%s\n(-update +append):\n%s", i, d, d2)
					}
				}
				returned = append(returned, kept{got, copyConv(got)})
			}
		}
		if d := cmp.Diff(rawDecoded(t, full, "us", id), rawDecoded(t, app, "us", id), exactTime); d != "" {
			t.Fatalf("op %d: stored records differ (-update +append):\n%s", i, d)
		}
		if d := cmp.Diff(rawDecoded(t, app, "us", id), mustGet(t, app, "us", id), exactTime); d != "" {
			t.Fatalf("op %d: get differs from the stored record (-want +got):\n%s", i, d)
		}
		mustSee(t, i, rawDecoded(t, app, "us", id), "us", id, app.UpdateConversation, app.AppendTurns)
	}
	for i, k := range returned {
		if d := cmp.Diff(k.want, k.c, exactTime); d != "" {
			t.Fatalf("returned value %d changed afterwards (-then +now):\n%s", i, d)
		}
	}
}

// TestAppendTurnsMetrics: the aggregates that AppendTurns moves by the new
// turns' events match the slow path, moves of the start and project
// included.
func TestAppendTurnsMetrics(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	s := openMem(t)
	var ids []*Conversation
	for i := range 100 {
		c := randomConv(r, fmt.Sprintf("C%04d", i))
		if err := s.InsertConversation(c); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c)
	}
	for i := range 600 {
		c := ids[r.IntN(len(ids))]
		_, err := s.AppendTurns(c.Region, c.ID, func(c *Conversation) error {
			c.Turns = append(c.Turns, Turn{UserInput: "x", UserInputAt: c.StartedAt.Add(time.Duration(r.IntN(7200)) * time.Second),
				Latency: time.Duration(r.IntN(2000)) * time.Millisecond})
			switch r.IntN(10) {
			case 0:
				c.FunctionErrors = append(c.FunctionErrors, c.StartedAt.Add(time.Minute))
			case 1:
				c.StartedAt = c.StartedAt.Add(time.Duration(r.IntN(600)-300) * time.Second)
			case 2:
				c.ProjectID = []string{"p1", "p2"}[r.IntN(2)]
			case 3:
				c.Crashes = nil
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if i%100 == 99 {
			for range 40 {
				q := randomQuery(r)
				got, err := s.QueryMetrics(q)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(metricsOracle(t, s, q), got); d != "" {
					t.Fatalf("after %d appends: window %v..%v of %v (-oracle +aggregates):\n%s", i+1, q.From, q.To, q.Projects, d)
				}
			}
		}
	}
	if !s.metrics.valid {
		t.Fatal("the aggregates drifted")
	}
}

// TestAppendTurnsRefusesRemovedTurns: an fn that drops turns is an error
// and changes nothing.
func TestAppendTurnsRefusesRemovedTurns(t *testing.T) {
	s := openMem(t)
	if err := s.InsertConversation(mkConv("us", "acc", "proj", "c1", base)); err != nil {
		t.Fatal(err)
	}
	before := mustGet(t, s, "us", "c1")
	_, err := s.AppendTurns("us", "c1", func(c *Conversation) error { c.Turns = c.Turns[:1]; return nil })
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
	if d := cmp.Diff(before, mustGet(t, s, "us", "c1"), exactTime); d != "" {
		t.Fatalf("changed (-before +after):\n%s", d)
	}
}

// TestAppendTurnsUncachedAsCached: an append to a record that is not in
// the decoded-conversation cache (decoded, with where its turns are, whose
// encoding it copies) stores what an append to a cached one stores, over
// random records and appends. (The bytes of two stores may differ: the
// string table's order follows map iteration.)
func TestAppendTurnsUncachedAsCached(t *testing.T) {
	cached, uncached := openMem(t), openMem(t)
	for _, s := range []*Store{cached, uncached} {
		r := rand.New(rand.NewPCG(21, 22)) // the same records in both
		for i := range 8 {
			c := randConv(r, i)
			c.ID = fmt.Sprint("c", i)
			if err := s.PutConversation(c); err != nil {
				t.Fatal(err)
			}
		}
	}
	r := rand.New(rand.NewPCG(23, 24))
	for i := range 400 {
		id := fmt.Sprint("c", r.IntN(8))
		seed := r.Uint64()
		mutate := func(c *Conversation) error {
			r := rand.New(rand.NewPCG(seed, 2))
			c.NumOOD++
			for range 1 + r.IntN(2) {
				c.Turns = append(c.Turns, Turn{UserInput: randString(r), AgentResponse: "Sure.", UserInputAt: randTime(r),
					Intents: []string{"hours"}, Entities: map[string]string{"k": randString(r)}, Metadata: randObject(r),
					Latency: time.Duration(r.IntN(2000)) * time.Millisecond})
			}
			return nil
		}
		uncached.convs.clear()
		_, e1 := cached.AppendTurns("us", id, mutate)
		_, e2 := uncached.AppendTurns("us", id, mutate)
		if e1 != nil || e2 != nil {
			t.Fatalf("append %d: %v, %v", i, e1, e2)
		}
		if d := cmp.Diff(rawDecoded(t, cached, "us", id), rawDecoded(t, uncached, "us", id), exactTime); d != "" {
			t.Fatalf("append %d to %s (-cached +uncached):\n%s", i, id, d)
		}
		if d := cmp.Diff(rawDecoded(t, uncached, "us", id), mustGet(t, uncached, "us", id), exactTime); d != "" {
			t.Fatalf("append %d to %s: get differs from the stored record (-want +got):\n%s", i, id, d)
		}
	}
}

// sameInstant compares times as instants and offsets (a time's location
// is as fn made it or as stored).
var sameInstant = cmp.Comparer(func(a, b time.Time) bool {
	return a.Equal(b) && a.Format(time.RFC3339Nano) == b.Format(time.RFC3339Nano)
})

// TestAppendNewTurnsEqualsUpdate runs the same random appends on two
// stores, one with UpdateConversation and the other with AppendNewTurns,
// whose fn also leaves values that only a round trip normalises (ints),
// one map as two fields, and a map it shares with the test (as a
// scenario's value is shared): the stored records and reads are the
// same, what fn sees is the stored record without its turns and prior
// describes them, the head returned is the update's without maps and
// slices, and a change to the shared map after the append shows nowhere.
// Some ops clear the cache or have the record cached whole (an update's)
// first, so appends meet a cached head, a cached whole record and none;
// some are AppendTurns, for which a cached head is a miss. The metric
// aggregates end the same as the updates'.
func TestAppendNewTurnsEqualsUpdate(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	full, head := openMem(t), openMem(t)
	for i := range 3 {
		c := randConv(r, i)
		c.ID = fmt.Sprint("c", i)
		for _, s := range []*Store{full, head} {
			c := *c
			if err := s.PutConversation(&c); err != nil {
				t.Fatal(err)
			}
		}
	}
	shared := map[string]any{"k": "v"}
	for i := range 300 {
		id := fmt.Sprint("c", r.IntN(3))
		seed := r.Uint64()
		mutate := func(c *Conversation) error {
			r := rand.New(rand.NewPCG(seed, 3))
			if c.State == nil {
				c.State = map[string]any{}
			}
			c.State["n"] = i // an int: stored as a float64
			c.State["shared"] = shared
			switch r.IntN(4) {
			case 0:
				c.IntegrationAttributes = c.State // one map, two fields
			case 1:
				c.IntegrationAttributes = map[string]any{"customer": randString(r), "list": []string{"a"}}
				c.State["integration_attributes"] = c.IntegrationAttributes
			case 2:
				c.Metrics = map[string]any{"m": []any{"x", float64(i)}}
			}
			if r.IntN(6) == 0 {
				// A turn like a greeting, which counts only as a
				// conversation's first.
				c.Turns = append(c.Turns, Turn{AgentResponse: "Hello.", UserInputAt: randTime(r)})
			}
			c.Turns = append(c.Turns, Turn{UserInput: randString(r), AgentResponse: "Sure.", UserInputAt: randTime(r),
				Intents: []string{"hours"}, Entities: map[string]string{}, Metadata: map[string]any{"i": int64(i)},
				Latency: time.Duration(r.IntN(2000)) * time.Millisecond})
			if r.IntN(4) == 0 {
				c.InProgress = false
				c.EndedAt = randTime(r)
			}
			if r.IntN(8) == 0 {
				return errors.New("fail")
			}
			return nil
		}
		before := rawDecoded(t, head, "us", id)
		upd, e1 := full.UpdateConversation("us", id, mutate)
		var got *Conversation
		var e2 error
		if i%7 == 6 {
			// AppendTurns after an AppendNewTurns: a cached head is a
			// miss for it (it needs the turns).
			_, e2 = head.AppendTurns("us", id, mutate)
		} else {
			got, e2 = head.AppendNewTurns("us", id, func(c *Conversation, prior PriorTurns) error {
				if c.Turns != nil || prior != priorOf(before.Turns) {
					return fmt.Errorf("fn given %d turns and %+v, want none and %+v", len(c.Turns), prior, priorOf(before.Turns))
				}
				return mutate(c)
			})
		}
		if (e1 == nil) != (e2 == nil) {
			t.Fatalf("op %d: update %v, append %v", i, e1, e2)
		}
		if e2 == nil && i%7 != 6 {
			want := *upd
			want.Metrics, want.State, want.IntegrationAttributes, want.Turns = nil, nil, nil, nil
			want.FunctionErrors, want.Crashes, want.AwaitedEvents, want.Events = nil, nil, nil, nil
			if d := cmp.Diff(&want, got, sameInstant); d != "" {
				t.Fatalf("op %d: head (-want +got):\n%s", i, d)
			}
		}
		shared[fmt.Sprint("after", i)] = i // shows in no record
		if d := cmp.Diff(rawDecoded(t, full, "us", id), rawDecoded(t, head, "us", id), exactTime); d != "" {
			t.Fatalf("op %d: stored records differ (-update +head):\n%s", i, d)
		}
		stored := rawDecoded(t, head, "us", id)
		if d := cmp.Diff(stored, mustGet(t, head, "us", id), exactTime); d != "" {
			t.Fatalf("op %d: get differs from the stored record (-want +got):\n%s", i, d)
		}
		switch i % 10 {
		case 0:
			mustSeeNew(t, i, stored, head, "us", id) // a failed fn: the record is uncached
			mustSee(t, i, stored, "us", id, head.UpdateConversation)
		case 5:
			// A whole record cached (an update that changes nothing),
			// which the next append takes without its turns.
			if _, err := head.UpdateConversation("us", id, func(*Conversation) error { return nil }); err != nil {
				t.Fatal(err)
			}
		case 1, 3, 7:
			head.convs.clear()
		}
	}
	// The metric aggregates moved by the appended turns alone: the same
	// as the updates', and as the records give them.
	q := MetricsQuery{Projects: []ProjectRef{{"us", "acc", "proj"}}, From: base.Add(-time.Hour), To: base.Add(1e15), Percentiles: []int{50, 99}}
	if !head.metrics.valid {
		t.Fatal("the appends dropped the aggregates for a rebuild")
	}
	want, err := full.QueryMetrics(q)
	if err != nil {
		t.Fatal(err)
	}
	got, err := head.QueryMetrics(q)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("aggregates (-update +append):\n%s", d)
	}
	if d := cmp.Diff(metricsOracle(t, head, q), got); d != "" {
		t.Errorf("aggregates (-oracle +append):\n%s", d)
	}
}

// mustSeeNew checks that AppendNewTurns gives fn want (the stored record)
// without its turns, and prior describes them; fn fails, so nothing
// changes (but the cache entry).
func mustSeeNew(t *testing.T, op int, want *Conversation, s *Store, region, id string) {
	t.Helper()
	head := *want
	head.Turns = nil
	if _, err := s.AppendNewTurns(region, id, func(c *Conversation, prior PriorTurns) error {
		if d := cmp.Diff(&head, c, exactTime); d != "" {
			return fmt.Errorf("fn's value differs from the stored record without its turns (-want +got):\n%s", d)
		}
		if prior != priorOf(want.Turns) {
			return fmt.Errorf("prior %+v, want %+v", prior, priorOf(want.Turns))
		}
		return errors.New("read only")
	}); err == nil || err.Error() != "read only" {
		t.Fatalf("op %d: %v", op, err)
	}
}

// TestAppendMissSharesSafely: an append that misses the cache decodes the
// record's turns sharing memory (one empty entities map, intents cut from
// one array), kept by the cache; an update that then changes one turn's
// entities or intents changes only that turn.
func TestAppendMissSharesSafely(t *testing.T) {
	s := openMem(t)
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	c := mkConv("us", "acc", "proj", "c1", base)
	for i := range c.Turns {
		c.Turns[i].Entities = map[string]string{}
		c.Turns[i].Intents = []string{fmt.Sprint("intent", i)}
	}
	if err := s.PutConversation(c); err != nil {
		t.Fatal(err)
	}
	s.convs.clear()
	add := func(c *Conversation) error {
		c.Turns = append(c.Turns, Turn{UserInput: "more", UserInputAt: base.Add(time.Hour), Intents: []string{"x"}, Entities: map[string]string{}})
		return nil
	}
	got, err := s.AppendTurns("us", "c1", add)
	if err != nil {
		t.Fatal(err)
	}
	if e := got.Turns; !sameEntities(e[0].Entities, e[1].Entities) {
		t.Fatal("the missed record's turns do not share their empty entities (the decode this test is about)")
	}
	if _, err := s.UpdateConversation("us", "c1", func(c *Conversation) error {
		c.Turns[0].Entities["k"] = "v"
		c.Turns[0].Intents[0] = "changed"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := rawDecoded(t, s, "us", "c1")
	for i, tu := range want.Turns {
		wantEnt, wantIntent := map[string]string{}, fmt.Sprint("intent", i)
		if i == 0 {
			wantEnt, wantIntent = map[string]string{"k": "v"}, "changed"
		}
		if i == len(want.Turns)-1 {
			wantIntent = "x"
		}
		if d := cmp.Diff(wantEnt, tu.Entities); d != "" {
			t.Errorf("turn %d entities (-want +got):\n%s", i, d)
		}
		if d := cmp.Diff([]string{wantIntent}, tu.Intents); d != "" {
			t.Errorf("turn %d intents (-want +got):\n%s", i, d)
		}
	}
	if d := cmp.Diff(want, mustGet(t, s, "us", "c1"), exactTime); d != "" {
		t.Errorf("get differs from the stored record (-want +got):\n%s", d)
	}
}

func sameEntities(a, b map[string]string) bool {
	return a != nil && b != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// TestAppendNewTurnsUncacheable: a conversation the encoder or the cache
// cannot hold exactly (a value only a JSON round trip stores as it is, in
// the head or in the new turn) is stored as UpdateConversation stores it,
// after an append that meets it uncached and after one that meets its
// head cached (whose turns are then decoded to encode it in full), and
// neither the head returned nor the metric aggregates lose anything to
// the failed normalisation.
func TestAppendNewTurnsUncacheable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(c *Conversation)
	}{
		{"invalid UTF-8 in a head string", func(c *Conversation) { c.SharedID = "shared-\xff" }},
		{"an integer above 2^53 in the state", func(c *Conversation) { c.State["order"] = int64(1<<53 + 1) }},
		{"an integer above 2^53 in the new turn's metadata", func(c *Conversation) {
			c.Turns = append(c.Turns, Turn{UserInput: "big", UserInputAt: metricsT0.Add(time.Minute), Metadata: map[string]any{"n": int64(1<<53 + 1)}})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// s appends with AppendNewTurns, ref the same with
			// UpdateConversation: their records end the same.
			s, ref := openMem(t), openMem(t)
			for _, s := range []*Store{s, ref} {
				c := mkConv("us", "1", "p1", "y", metricsT0)
				c.Turns = c.Turns[:1]
				c.FunctionErrors, c.Crashes = []time.Time{metricsT0.Add(time.Minute)}, []time.Time{metricsT0.Add(2 * time.Minute)}
				if err := s.InsertConversation(c); err != nil {
					t.Fatal(err)
				}
			}
			appendBoth := func(fn func(c *Conversation)) *Conversation {
				t.Helper()
				got, err := s.AppendNewTurns("us", "y", func(c *Conversation, _ PriorTurns) error { fn(c); return nil })
				if err != nil {
					t.Fatal(err)
				}
				if _, err := ref.UpdateConversation("us", "y", func(c *Conversation) error { fn(c); return nil }); err != nil {
					t.Fatal(err)
				}
				return got
			}
			// The first append meets the record uncached, the second its
			// head cached; each run makes the record uncacheable once.
			for _, cachedFirst := range []bool{false, true} {
				s.convs.clear()
				if cachedFirst {
					appendBoth(func(c *Conversation) {
						c.Turns = append(c.Turns, Turn{UserInput: "first", UserInputAt: metricsT0.Add(time.Minute)})
					})
				}
				got := appendBoth(func(c *Conversation) {
					tc.change(c)
					c.Turns = append(c.Turns, Turn{UserInput: "hi", UserInputAt: metricsT0.Add(time.Minute), Latency: time.Second})
				})
				stored := mustGet(t, s, "us", "y")
				if !got.StartedAt.Equal(stored.StartedAt) || !got.EndedAt.Equal(stored.EndedAt) {
					t.Errorf("head started %v, ended %v; stored %v, %v", got.StartedAt, got.EndedAt, stored.StartedAt, stored.EndedAt)
				}
				if d := cmp.Diff(rawDecoded(t, ref, "us", "y"), rawDecoded(t, s, "us", "y"), exactTime); d != "" {
					t.Errorf("cached first %v: stored records differ (-update +append):\n%s", cachedFirst, d)
				}
			}
			q := MetricsQuery{Projects: []ProjectRef{{"us", "1", "p1"}}, From: metricsT0.Add(-time.Hour), To: metricsT0.Add(time.Hour)}
			mustMatchOracle(t, s, q, "")
		})
	}
}

// TestPriorTurns: every turn is a user's but a first turn without input
// that is neither a silence nor out of domain (the greeting); after
// appends, the count grows and the first turn stays the one described.
func TestPriorTurns(t *testing.T) {
	t.Parallel()
	greeting := Turn{AgentResponse: "Hi"}
	user := Turn{UserInput: "hello", AgentResponse: "Hi"}
	for _, tc := range []struct {
		name  string
		turns []Turn
		want  int
	}{
		{"none", nil, 0},
		{"greeting", []Turn{greeting}, 0},
		{"greeting and two", []Turn{greeting, user, user}, 2},
		{"user first", []Turn{user, user}, 2},
		{"silence first", []Turn{{IsSilence: true}, user}, 2},
		{"out of domain first", []Turn{{IsOOD: true}}, 1},
		{"empty later", []Turn{greeting, {}, {}}, 2},
	} {
		if got := priorOf(tc.turns).UserTurns(); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
		for cut := range len(tc.turns) + 1 {
			if got, want := priorOf(tc.turns[:cut]).after(tc.turns[cut:]), priorOf(tc.turns); got != want {
				t.Errorf("%s: %d turns then %d: %+v, want %+v", tc.name, cut, len(tc.turns)-cut, got, want)
			}
		}
	}
}

// TestAppendNewTurnsKeepsPlace: an fn that changes the record's start,
// account or project fails with ErrInvalid and nothing changes.
func TestAppendNewTurnsKeepsPlace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		change func(c *Conversation)
	}{
		{"start", func(c *Conversation) { c.StartedAt = c.StartedAt.Add(time.Second) }},
		{"account", func(c *Conversation) { c.AccountID = "other" }},
		{"project", func(c *Conversation) { c.ProjectID = "other" }},
	} {
		s := openMem(t)
		if err := s.InsertConversation(mkConv("us", "1", "p1", "y", metricsT0)); err != nil {
			t.Fatal(err)
		}
		before := rawDecoded(t, s, "us", "y")
		_, err := s.AppendNewTurns("us", "y", func(c *Conversation, _ PriorTurns) error {
			tc.change(c)
			c.Turns = append(c.Turns, Turn{UserInput: "hi", UserInputAt: metricsT0.Add(time.Minute)})
			return nil
		})
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", tc.name, err)
		}
		if d := cmp.Diff(before, rawDecoded(t, s, "us", "y"), exactTime); d != "" {
			t.Errorf("%s: the record changed (-before +after):\n%s", tc.name, d)
		}
	}
}

// TestAppendNewTurnsGenerated: an append to a generated record is given
// it without its turns, and stores it with them and the new one (as an
// update that appends the same turn does).
func TestAppendNewTurnsGenerated(t *testing.T) {
	t.Parallel()
	gen, upd := openMem(t), openMem(t)
	for _, s := range []*Store{gen, upd} {
		if err := s.Generate(testSpec(10), nil); err != nil {
			t.Fatal(err)
		}
	}
	ls := slices.Collect(gen.layersOf(ProjectRef{"us", "1001", "2001"}))[0]
	id := ls.id(3)
	want, err := gen.GetConversation("us", id)
	if err != nil {
		t.Fatal(err)
	}
	turn := Turn{UserInput: "more", UserInputAt: want.StartedAt.Add(time.Hour), Intents: []string{"x"}, Entities: map[string]string{}}
	if _, err := gen.AppendNewTurns("us", id, func(c *Conversation, prior PriorTurns) error {
		if c.Turns != nil || prior != priorOf(want.Turns) {
			return fmt.Errorf("fn given %d turns and %+v, want none and %+v", len(c.Turns), prior, priorOf(want.Turns))
		}
		c.Turns = append(c.Turns, turn)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := upd.UpdateConversation("us", id, func(c *Conversation) error {
		c.Turns = append(c.Turns, turn)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(rawDecoded(t, upd, "us", id), rawDecoded(t, gen, "us", id), exactTime); d != "" {
		t.Errorf("stored records differ (-update +append):\n%s", d)
	}
	q := MetricsQuery{Projects: []ProjectRef{{"us", "1001", "2001"}}, From: want.StartedAt.Add(-24 * time.Hour), To: want.StartedAt.Add(24 * time.Hour), Percentiles: []int{50}}
	mustMatchOracle(t, gen, q, "")
}

// TestAppendNewTurnsMetrics: the metric aggregates move by the appended
// turns as the records give them, a turn like a greeting included: it is
// a user's turn unless the conversation had none before it.
func TestAppendNewTurnsMetrics(t *testing.T) {
	t.Parallel()
	greetingLike := Turn{AgentResponse: "Hello.", UserInputAt: metricsT0.Add(time.Minute)}
	user := Turn{UserInput: "hi", UserInputAt: metricsT0.Add(2 * time.Minute), Latency: 700 * time.Millisecond}
	for _, stored := range []int{0, 1, 4} {
		s := openMem(t)
		c := mkConv("us", "1", "p1", "y", metricsT0)
		c.Turns = c.Turns[:stored]
		c.InProgress = true
		if err := s.InsertConversation(c); err != nil {
			t.Fatal(err)
		}
		q := MetricsQuery{Projects: []ProjectRef{{"us", "1", "p1"}}, From: metricsT0.Add(-time.Hour), To: metricsT0.Add(time.Hour), Percentiles: []int{50}}
		for range 2 { // uncached, then its head cached
			if _, err := s.AppendNewTurns("us", "y", func(c *Conversation, _ PriorTurns) error {
				c.Turns = append(c.Turns, greetingLike, user)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		mustMatchOracle(t, s, q, fmt.Sprintf("%d stored turns: ", stored))
	}
}

// TestAppendNewTurnsThenReplaced: a conversation whose head is cached
// after an append (no turns in the entry) and which is then replaced or
// dropped moves the metric aggregates by all its turns: what replaces or
// drops it reads the record, not the head-only entry.
func TestAppendNewTurnsThenReplaced(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		then func(s *Store) error
	}{
		{"replaced", func(s *Store) error { return s.PutConversation(mkConv("us", "1", "p1", "y", metricsT0)) }},
		{"dropped", func(s *Store) error {
			_, err := s.DropConversationsBefore(metricsT0.Add(time.Hour))
			return err
		}},
	} {
		s := openMem(t)
		if err := s.InsertConversation(mkConv("us", "1", "p1", "y", metricsT0)); err != nil { // ended
			t.Fatal(err)
		}
		q := MetricsQuery{Projects: []ProjectRef{{"us", "1", "p1"}}, From: metricsT0.Add(-time.Hour), To: metricsT0.Add(time.Hour), Percentiles: []int{50}}
		if _, err := s.AppendNewTurns("us", "y", func(c *Conversation, _ PriorTurns) error {
			c.Turns = append(c.Turns, Turn{UserInput: "bye", UserInputAt: metricsT0.Add(4 * time.Minute), Latency: time.Second})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(s.convs.m) != 1 {
			t.Fatalf("%s: %d cache entries, want the append's", tc.name, len(s.convs.m))
		}
		for _, e := range s.convs.m {
			if !e.headOnly {
				t.Fatalf("%s: the append left a whole entry (this test is about a head-only one)", tc.name)
			}
		}
		if err := tc.then(s); err != nil {
			t.Fatal(err)
		}
		mustMatchOracle(t, s, q, tc.name+": ")
	}
}
