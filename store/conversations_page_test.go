package store

import (
	"cmp"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
)

// TestEachConversationAsList: EachConversation lends the records that
// ListConversations returns, in the same order and with the same next
// position, over generated records, stored ones, generated ones written
// over and moved, and every kind of query; fn nil gives the position
// alone; an error of fn ends the listing.
func TestEachConversationAsList(t *testing.T) {
	t.Parallel()
	sp := testSpec(300)
	s, _ := openGenerated(t, sp)
	all := listAll(t, s, ConversationQuery{})
	for i, c := range fill(t, s, "us", "1001", "2001", 40) {
		c.StartedAt = all[i*7].StartedAt.Add(time.Second) // among the generated ones
		if err := s.PutConversation(c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.UpdateConversation("us", all[10].ID, func(c *Conversation) error { c.NumOOD = 9; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateConversation("us", all[11].ID, func(c *Conversation) error {
		c.StartedAt = c.StartedAt.Add(30 * time.Hour) // moves it in the order
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sandbox := func(sum *Summary) bool { return sum.Environment == "sandbox" }
	voice := func(c *Conversation) bool { return c.Channel == "VOICE-SIP" }
	mid := all[150].StartedAt
	queries := map[string]ConversationQuery{
		"all":           {},
		"limit 1":       {Limit: 1},
		"limit 7":       {Limit: 7},
		"desc":          {Limit: 9, Desc: true},
		"from to":       {From: mid, To: mid.Add(12 * time.Hour), Limit: 5},
		"select":        {Select: sandbox, Limit: 4},
		"filter":        {Filter: voice, Limit: 6},
		"select filter": {Select: sandbox, Filter: voice, Limit: 3},
	}
	for name, q := range queries {
		q.Region, q.AccountID, q.ProjectID = "us", "1001", "2001"
		for page := 0; page < 200; page++ {
			want, wantNext, err := s.ListConversations(q)
			if err != nil {
				t.Fatal(err)
			}
			var got []*Conversation
			var lent *Conversation
			next, err := s.EachConversation(q, func(c *Conversation) error {
				cp := copyConv(c)
				for i := range cp.Turns {
					if cp.Turns[i].Entities == nil { // lent turns have nil entities
						cp.Turns[i].Entities = map[string]string{}
					}
				}
				got = append(got, cp)
				lent = c
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, name, want, got)
			if next != wantNext {
				t.Fatalf("%s page %d: next %q, want %q", name, page, next, wantNext)
			}
			if skip, err := s.EachConversation(q, nil); err != nil || skip != wantNext {
				t.Fatalf("%s page %d: skip next %q (%v), want %q", name, page, skip, err, wantNext)
			}
			if len(want) > 0 && lent == nil {
				t.Fatalf("%s: nothing lent", name)
			}
			if q.Limit == 0 || wantNext == "" {
				break
			}
			q.After = wantNext
		}
	}
	q := ConversationQuery{Region: "us", AccountID: "1001", ProjectID: "2001", Limit: 5}
	stop := errors.New("stop")
	calls := 0
	if _, err := s.EachConversation(q, func(*Conversation) error { calls++; return stop }); err != stop || calls != 1 {
		t.Fatalf("fn error: %v after %d calls", err, calls)
	}
}

// TestEachConversationReusesGenerated: the generated records of a page
// are made into one record (a page allocates no record per record).
func TestEachConversationReusesGenerated(t *testing.T) {
	s, _ := openGenerated(t, testSpec(50))
	q := ConversationQuery{Region: "us", AccountID: "1001", ProjectID: "2001", Limit: 20}
	seen := map[*Conversation]bool{}
	if _, err := s.EachConversation(q, func(c *Conversation) error { seen[c] = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 {
		t.Fatalf("%d records lent for a page of 20 generated ones", len(seen))
	}
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := s.EachConversation(q, func(*Conversation) error { return nil }); err != nil {
			t.Fatal(err)
		}
	})
	// Per record: its id, the id boxed in its state and the caller
	// number (voice); per page: the walk, the cursor and the reused
	// record's buffers as they grow.
	if allocs > 20*3+30 {
		t.Fatalf("%.0f allocations for a page of 20", allocs)
	}
}

// TestGeneratedWithoutTurns: a generator of records without turns makes
// them with an empty list of turns, not a nil one (a copy marshals as []),
// whether they are listed, read or lent.
func TestGeneratedWithoutTurns(t *testing.T) {
	t.Parallel()
	sp := testSpec(5)
	sp.TurnsMin, sp.TurnsMax = 0, 0
	s, _ := openGenerated(t, sp)
	list := listAll(t, s, ConversationQuery{})
	got, err := s.GetConversation("us", list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range append(list, got) {
		if c.Turns == nil || len(c.Turns) != 0 {
			t.Fatalf("%s: turns %#v", c.ID, c.Turns)
		}
	}
	q := ConversationQuery{Region: "us", AccountID: "1001", ProjectID: "2001"}
	if _, err := s.EachConversation(q, func(c *Conversation) error {
		if c.Turns == nil || len(c.Turns) != 0 {
			t.Fatalf("lent %s: turns %#v", c.ID, c.Turns)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestListingMergesLayers: a project with three generators (more
// layers than the walk's cursor buffer holds) and a stored record lists
// every record once, in key order, ascending and descending, whole and
// in pages, with and without a Select; the reference is each
// generator's records made one after the other.
func TestListingMergesLayers(t *testing.T) {
	t.Parallel()
	s := openMem(t)
	first := testSpec(150)
	stored := mkConv("us", "1001", "2001", "CONV-STORED", first.From.Add(36*time.Hour))
	if err := s.PutConversation(stored); err != nil {
		t.Fatal(err)
	}
	taken := map[string]bool{stored.ID: true}
	var want []string
	wantOf := map[string]*Conversation{stored.ID: stored}
	for seed := range uint64(3) {
		sp := testSpec(150)
		sp.Seed1 = 7 + seed
		if err := s.Generate(sp, nil); err != nil {
			t.Fatal(err)
		}
		for _, c := range sequential(t, sp, taken) {
			wantOf[c.ID] = c
		}
	}
	for id := range wantOf {
		want = append(want, id)
	}
	slices.SortFunc(want, func(a, b string) int {
		return cmp.Or(wantOf[a].StartedAt.Compare(wantOf[b].StartedAt), strings.Compare(a, b))
	})
	sandbox := func(sum *Summary) bool { return sum.Environment == "sandbox" }
	var wantSandbox []string
	for _, id := range want {
		if wantOf[id].Environment == "sandbox" {
			wantSandbox = append(wantSandbox, id)
		}
	}
	if len(want) != 451 || len(wantSandbox) == 0 {
		t.Fatalf("reference: %d records, %d sandbox; want 451 and some", len(want), len(wantSandbox))
	}
	for _, tc := range []struct {
		name   string
		q      ConversationQuery
		wantID []string
	}{
		{"all", ConversationQuery{}, want},
		{"select", ConversationQuery{Select: sandbox}, wantSandbox},
	} {
		for _, desc := range []bool{false, true} {
			exp := slices.Clone(tc.wantID)
			if desc {
				slices.Reverse(exp)
			}
			q := tc.q
			q.Desc = desc
			if got := ids(listAll(t, s, q)); !slices.Equal(got, exp) {
				t.Errorf("%s, desc %v: whole listing differs:\n%s", tc.name, desc, gocmp.Diff(exp, got))
			}
			var paged []string
			q.Region, q.AccountID, q.ProjectID, q.Limit = "us", "1001", "2001", 7
			for range 100 {
				page, next, err := s.ListConversations(q)
				if err != nil {
					t.Fatal(err)
				}
				paged = append(paged, ids(page)...)
				if next == "" {
					break
				}
				q.After = next
			}
			if !slices.Equal(paged, exp) {
				t.Errorf("%s, desc %v: pages of 7 differ:\n%s", tc.name, desc, gocmp.Diff(exp, paged))
			}
		}
	}
}
