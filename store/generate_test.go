package store

import (
	"cmp"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	json "github.com/goccy/go-json"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/tidwall/buntdb"
)

// testSpec is a generator of n records, voice and text, some in progress
// at its Now.
func testSpec(n int) *GenSpec {
	return &GenSpec{Region: "us", AccountID: "1001", ProjectID: "2001", Seed1: 7, Seed2: 99, Count: n,
		From: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 2, 8, 0, 0, 0, 0, time.UTC),
		Now:          time.Date(2026, 2, 7, 23, 0, 0, 0, time.UTC),
		Channels:     GenWeights{Keys: []string{"VOICE-SIP", "WEBCHAT"}, Weights: []int{3, 1}},
		Environments: GenWeights{Keys: []string{"live", "sandbox"}, Weights: []int{9, 1}},
		Languages:    GenWeights{Keys: []string{"en-GB"}, Weights: []int{1}},
		Variants:     GenWeights{Keys: []string{"A", "Nope"}, Weights: []int{2, 1}},
		VariantIDs:   []string{"VARIANT-A", ""}, VariantNames: []string{"Alpha", ""},
		Handoff: 0.2, OOD: 0.1, DurationMin: 30 * time.Second, DurationMax: 3 * time.Hour, TurnsMin: 1, TurnsMax: 9,
		AgentNumber: "+18005551234",
		Vocab: GenVocab{Topics: []GenTopic{{Intent: "billing", User: []string{"My bill?", "Charged twice"}, Agent: []string{"Let me see."}},
			{Intent: "refund", User: []string{"Refund please"}, Agent: []string{"Done.", "Three days."}}},
			Greetings: []string{"Hi!", "Hello."}, OOD: []string{"blorp"}, Fallback: "Sorry?",
			HumanAsk: "A human please", HumanReply: "Transferring.", HumanIntent: "live_agent", HandoffDestination: "queue"}}
}

// sequential makes a spec's records one after the other, as the
// generator did before the store kept generators: the reference.
func sequential(t *testing.T, sp *GenSpec, taken map[string]bool) []*Conversation {
	t.Helper()
	r := newGenRand(sp.Seed1, sp.Seed2)
	var out []*Conversation
	for range sp.Count {
		c := new(Conversation)
		var o genOut
		if _, err := genMake(sp, r, c, &o, 0, func(id []byte) bool { return taken[string(id)] }); err != nil {
			t.Fatal(err)
		}
		taken[c.ID] = true
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *Conversation) int {
		return cmp.Or(a.StartedAt.Compare(b.StartedAt), strings.Compare(a.ID, b.ID))
	})
	return out
}

func listAll(t *testing.T, s *Store, q ConversationQuery) []*Conversation {
	t.Helper()
	q.Region, q.AccountID, q.ProjectID = "us", "1001", "2001"
	list, _, err := s.ListConversations(q)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func sameJSON(t *testing.T, what string, want, got any) {
	t.Helper()
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if string(w) != string(g) {
		t.Fatalf("%s differ:\n%s", what, gocmp.Diff(string(w), string(g)))
	}
}

// sameAfterRebuild checks that the store's aggregates answer q (and cq,
// when set) as a rebuild from its records answers them.
func sameAfterRebuild(t *testing.T, s *Store, q MetricsQuery, cq *ConcurrencyQuery) {
	t.Helper()
	read := func() (any, any) {
		m, err := s.QueryMetrics(q)
		if err != nil {
			t.Fatal(err)
		}
		if cq == nil {
			return m, nil
		}
		conc, _, err := s.ConcurrencySeries(*cq)
		if err != nil {
			t.Fatal(err)
		}
		return m, conc
	}
	inc, incConc := read()
	s.metricsInvalid()
	rebuilt, rebuiltConc := read()
	sameJSON(t, "aggregates", rebuilt, inc)
	sameJSON(t, "concurrency", rebuiltConc, incConc)
}

// TestGeneratedRecords: the store's generated records are those the
// generator makes one after the other, in order, by id, by page, by
// cursor, in both directions; ids taken by stored records are drawn again
// and stay so after a reopen.
func TestGeneratedRecords(t *testing.T) {
	t.Parallel()
	sp := testSpec(3000)
	want := sequential(t, sp, map[string]bool{})
	// A stored record takes the id of the 10th generated one: it is
	// drawn again.
	taken := mkConv("us", "1001", "2001", want[10].ID, base)
	path := filepath.Join(t.TempDir(), "data.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutConversation(taken); err != nil {
		t.Fatal(err)
	}
	want = sequential(t, sp, map[string]bool{taken.ID: true})
	if err := s.Generate(sp, nil); err != nil {
		t.Fatal(err)
	}
	check := func(s *Store) {
		t.Helper()
		all := listAll(t, s, ConversationQuery{})
		gen := slices.DeleteFunc(slices.Clone(all), func(c *Conversation) bool { return c.ID == taken.ID })
		sameJSON(t, "generated records", want, gen)
		if len(all) != 3001 {
			t.Fatalf("listed %d, want 3001", len(all))
		}
		n, err := s.CountConversations("us")
		if err != nil || n != 3001 {
			t.Fatalf("count = %d, %v", n, err)
		}
		desc := listAll(t, s, ConversationQuery{Desc: true})
		slices.Reverse(desc)
		sameJSON(t, "descending", all, desc)
		// Pages by cursor.
		var paged []*Conversation
		after := ""
		for {
			q := ConversationQuery{Region: "us", AccountID: "1001", ProjectID: "2001", Limit: 137, After: after,
				Select: func(s *Summary) bool { return s.Environment == "live" }}
			page, next, err := s.ListConversations(q)
			if err != nil {
				t.Fatal(err)
			}
			paged = append(paged, page...)
			if next == "" {
				break
			}
			after = next
		}
		live := slices.DeleteFunc(slices.Clone(all), func(c *Conversation) bool { return c.Environment != "live" })
		sameJSON(t, "pages", live, paged)
		for _, i := range []int{0, 17, 2999} {
			got, err := s.GetConversation("us", want[i].ID)
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "get", want[i], got)
		}
	}
	check(s)
	s = reopen(t, s, path)
	check(s)
}

// TestGeneratedWrites: a written generated record is stored in its place
// (once in every listing), survives a snapshot, a restore and a reopen,
// and the handoff states of generated records are found.
func TestGeneratedWrites(t *testing.T) {
	t.Parallel()
	sp := testSpec(500)
	want := sequential(t, sp, map[string]bool{})
	s, path := openGenerated(t, sp)
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	id := want[3].ID
	if err := s.InsertConversation(want[3]); !errors.Is(err, ErrExists) {
		t.Fatalf("insert of a generated id: %v", err)
	}
	if _, err := s.UpdateConversation("us", id, func(c *Conversation) error { return errors.New("no") }); err == nil {
		t.Fatal("fn error not returned")
	}
	if _, err := s.UpdateConversation("us", id, func(c *Conversation) error {
		c.NumOOD = 42
		c.StartedAt = c.StartedAt.Add(24 * time.Hour) // moves it in the order
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	moved := *want[3]
	moved.NumOOD, moved.StartedAt = 42, moved.StartedAt.Add(24*time.Hour)
	replaced := *want[5]
	replaced.Channel = "CHAT"
	if err := s.PutConversation(&replaced); err != nil {
		t.Fatal(err)
	}
	wantAfter := append(slices.Concat(want[:3], want[4:5], []*Conversation{&replaced}, want[6:]), &moved)
	slices.SortFunc(wantAfter, func(a, b *Conversation) int {
		return cmp.Or(a.StartedAt.Compare(b.StartedAt), strings.Compare(a.ID, b.ID))
	})
	check := func(s *Store) {
		t.Helper()
		sameJSON(t, "records after writes", wantAfter, listAll(t, s, ConversationQuery{}))
		n, err := s.CountConversations("us")
		if err != nil || n != 500 {
			t.Fatalf("count = %d, %v", n, err)
		}
	}
	check(s)
	for i, c := range want {
		if !c.Handoff {
			continue
		}
		h, err := s.GetHandoffState("us", "1001", "2001", c.ID, "")
		if err != nil {
			t.Fatalf("handoff state of %s: %v", c.ID, err)
		}
		if h.CreatedAt != c.EndedAt || h.Data["channel"] != c.Channel || h.ID != c.ID {
			t.Fatalf("handoff state %d: %+v", i, h)
		}
	}
	after, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if snap.Equal(after) {
		t.Fatal("snapshots equal after writes")
	}
	if err := s.Restore(snap); err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "restored", want, listAll(t, s, ConversationQuery{}))
	if err := s.Restore(after); err != nil {
		t.Fatal(err)
	}
	check(s)
	s = reopen(t, s, path)
	check(s)
}

// TestGeneratorRecordChecked: a data file's generator record is checked
// by the store's own decoder when it is opened, as every record is.
func TestGeneratorRecordChecked(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "data.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Generate(testSpec(10), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.update(func(tx *buntdb.Tx) error { return set(tx, pfxGen+"00000001", `{"count":"many"}`) }); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = Open(path)
	var de *DamageError
	if !errors.As(err, &de) || len(de.Damages) != 1 || de.Damages[0].Key != pfxGen+"00000001" {
		t.Fatalf("open of a damaged generator record: %v", err)
	}
}

// TestSearchKey: the generated records' key search finds, for any key
// suffix (a record's, one between records, a bound, garbage), the
// position that comparing encoded keys as strings finds.
func TestSearchKey(t *testing.T) {
	t.Parallel()
	s, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Generate(testSpec(500), nil); err != nil {
		t.Fatal(err)
	}
	ls := slices.Collect(s.layersOf(ProjectRef{"us", "1001", "2001"}))[0]
	key := func(p int) string { return ls.ts(p) + "/" + ls.id(p) }
	keys := []string{"", "\xff", "1", "99999999999999999999999999999", "00000000000000000000000000000/x",
		tsenc(time.Time{}), tsenc(time.Unix(-1<<40, 5)), tsenc(time.Unix(1<<40, 0)) + "/"}
	for p := range len(ls.recs) {
		at := ls.start(p)
		keys = append(keys, key(p), ls.ts(p), key(p)+"0", ls.ts(p)+"/", tsenc(at.Add(time.Nanosecond)), tsenc(at.Add(-time.Nanosecond))+"/~")
	}
	for _, k := range keys {
		for _, orEqual := range []bool{false, true} {
			want := sortSearch(len(ls.recs), func(p int) bool {
				if orEqual {
					return key(p) >= k
				}
				return key(p) > k
			})
			if got := ls.searchKey(k, orEqual); got != want {
				t.Fatalf("searchKey(%q, %v) = %d, want %d", k, orEqual, got, want)
			}
		}
	}
}

// TestGeneratedAggregatesMatchRebuild: the aggregates a generator adds in
// bulk (each minute's metric buckets found in slices over its range, or
// in the maps over a range too long for slices) equal a rebuild that adds
// the records' events one by one, with and without other records in the
// region; the concurrency series agree too (the index against a scan of
// the records: handlers' TestConcurrencyIndexMatchesScan).
func TestGeneratedAggregatesMatchRebuild(t *testing.T) {
	t.Parallel()
	long := testSpec(600)
	long.To = long.From.Add(200 * 24 * time.Hour) // more than maxBulkMinutes
	long.Now = long.To.Add(-time.Hour)
	for _, tc := range []struct {
		name   string
		sp     *GenSpec
		stored bool
	}{{"week", testSpec(600), false}, {"week after a stored record", testSpec(600), true}, {"200 days", long, false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sp := tc.sp
			s := openMem(t)
			if tc.stored {
				if err := s.PutConversation(mkConv("us", "1001", "2001", "STORED", sp.From.Add(time.Hour))); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Generate(sp, nil); err != nil {
				t.Fatal(err)
			}
			ref := ProjectRef{"us", "1001", "2001"}
			q := MetricsQuery{Projects: []ProjectRef{ref}, From: sp.From, To: sp.To.Add(2 * time.Hour), Percentiles: []int{50, 99}}
			cq := ConcurrencyQuery{Region: "us", AccountID: "1001", ProjectID: "2001", Start: sp.From,
				Intervals: 2016, ByVariant: true, Now: sp.Now}
			sameAfterRebuild(t, s, q, &cq)
		})
	}
}

// TestIDIndex: the generation's id index keeps the latest index of each
// hash, 0 and 1 included (they share a slot), through collisions and
// wrap-around.
func TestIDIndex(t *testing.T) {
	x := newIDIndex(100)
	want := map[uint64]int32{}
	for i := range 99 { // with the 1 below, the 100 it was made for
		h := uint64(i) << 58 // equal low bits: every key probes from one region
		x.put(h, int32(i))
		want[max(h, 1)] = int32(i)
	}
	x.put(1, 7)
	want[1] = 7
	for h, i := range want {
		if got, ok := x.get(h); !ok || got != i {
			t.Errorf("get(%#x) = %d, %v; want %d", h, got, ok, i)
		}
	}
	if _, ok := x.get(12345); ok {
		t.Error("get of an absent hash found it")
	}
}

// TestGenRandMatchesMathRand: the generator's own IntN, Int64N and
// Float64 draw exactly what math/rand/v2's do from the same PCG state
// (generated records depend on it, byte for byte).
func TestGenRandMatchesMathRand(t *testing.T) {
	g := newGenRand(3, 4)
	std := rand.New(rand.NewPCG(3, 4))
	for i := range 20_000 {
		n := []int{1, 2, 3, 10, 16, 1000, 1 << 40, 6_048_000_000_000 + i}[i%8]
		switch i % 3 {
		case 0:
			if a, b := g.IntN(n), std.IntN(n); a != b {
				t.Fatalf("draw %d: IntN(%d) = %d, math/rand/v2 %d", i, n, a, b)
			}
		case 1:
			if a, b := g.Int64N(int64(n)), std.Int64N(int64(n)); a != b {
				t.Fatalf("draw %d: Int64N(%d) = %d, math/rand/v2 %d", i, n, a, b)
			}
		default:
			if a, b := g.Float64(), std.Float64(); a != b {
				t.Fatalf("draw %d: Float64 = %v, math/rand/v2 %v", i, a, b)
			}
		}
	}
}
