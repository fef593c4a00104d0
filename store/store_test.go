package store

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tidwall/buntdb"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction(LeakIgnoreFunction))
}

var base = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

var cmpOpts = []cmp.Option{cmpopts.EquateApproxTime(0), cmpopts.EquateEmpty()}

// openGenerated opens a store on a fresh data file and adds sp's records.
func openGenerated(t *testing.T, sp *GenSpec) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Generate(sp, nil); err != nil {
		t.Fatal(err)
	}
	return s, path
}

// reopen closes s and opens its data file again, closed when the test ends.
func reopen(t *testing.T, s *Store, path string) *Store {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// mkConv builds a realistic conversation with 4 turns.
func mkConv(region, account, project, id string, started time.Time) *Conversation {
	c := &Conversation{
		ID: id, Region: region, AccountID: account, ProjectID: project,
		VariantID: "var-1", VariantName: "Default variant", Environment: "live",
		Channel: "VOICE-SIP", StartedAt: started, EndedAt: started.Add(3 * time.Minute),
		FromNumber: "+447700900123", ToNumber: "+442071838750", Language: "en-GB",
		Handoff: true, HandoffReason: "caller asked for an agent", HandoffDestination: "sip:queue@example.com",
		NumSilences: 1, NumOOD: 1,
		Metrics: map[string]any{"booking_made": "yes", "tags": []any{"a", "b"}},
		State: map[string]any{
			"caller_name": "Sam", "party_size": 4.0, "vip": true,
			"integration_attributes": map[string]any{"crm_id": "C-1234"},
		},
		IntegrationAttributes: map[string]any{"crm_id": "C-1234"},
		SharedID:              "shared-" + id,
		FunctionErrors:        []time.Time{started.Add(time.Minute)},
		Events: []Event{{ID: "ev-" + id, ReceivedAt: started.Add(2 * time.Minute),
			ContentType: "application/json", Payload: []byte(`{"status":"paid"}`)}},
	}
	utter := []string{
		"Hello, I'd like to book a table for four tomorrow evening please.",
		"Around seven thirty if possible, we have a child with us.",
		"",
		"Actually, can I talk to a real person about a private room?",
	}
	for i, u := range utter {
		at := started.Add(time.Duration(i*30) * time.Second)
		c.Turns = append(c.Turns, Turn{
			UserInput: u, UserInputAt: at, BargeIn: i == 1,
			AgentResponse:   "Certainly, let me check availability for you. Could you confirm the time you'd prefer?",
			AgentResponseAt: at.Add(1200 * time.Millisecond),
			Intents:         []string{"book_table", "provide_time"}, Entities: map[string]string{"party_size": "4", "time": "19:30"},
			IsOOD: i == 3, IsSilence: u == "", Latency: 850 * time.Millisecond,
			Metadata: map[string]any{"asr_confidence": 0.93},
		})
	}
	return c
}

// recordsUnder lists the database's records whose keys start with prefix.
func recordsUnder(t *testing.T, s *Store, prefix string) []kv {
	t.Helper()
	var out []kv
	err := s.view(func(tx *buntdb.Tx) error {
		return scanPrefix(tx, prefix, func(k, v string) bool { out = append(out, kv{k, v}); return true })
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func openMem(t testing.TB) *Store {
	t.Helper()
	s, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func ids(list []*Conversation) []string {
	out := make([]string, len(list))
	for i, c := range list {
		out[i] = c.ID
	}
	return out
}

func TestTsencOrder(t *testing.T) {
	times := []time.Time{
		{}, time.Unix(-62135596800, 0), time.Unix(-1, 999999999), time.Unix(-1, 0),
		time.Unix(0, 0), time.Unix(0, 1), base, base.Add(time.Nanosecond),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		times = append(times, time.Unix(r.Int64N(1<<40)-1<<39, r.Int64N(1e9)))
	}
	for _, a := range times {
		for _, b := range times[:20] {
			ea, eb := tsenc(a), tsenc(b)
			if len(ea) != tsLen {
				t.Fatalf("len %d", len(ea))
			}
			if (ea < eb) != a.Before(b) || (ea == eb) != a.Equal(b) {
				t.Fatalf("order mismatch %v %v: %s %s", a, b, ea, eb)
			}
		}
	}
}

func TestConversationRoundTrip(t *testing.T) {
	s := openMem(t)
	c := mkConv("us", "acc", "proj", "conv-1", base)
	if err := s.InsertConversation(c); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetConversation("us", "conv-1")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(c, got, cmpOpts...); d != "" {
		t.Fatalf("round trip (-want +got):\n%s", d)
	}
	// Getters return copies.
	got.Turns[0].UserInput = "changed"
	got.State["caller_name"] = "changed"
	again, _ := s.GetConversation("us", "conv-1")
	if d := cmp.Diff(c, again, cmpOpts...); d != "" {
		t.Fatalf("getter not a copy:\n%s", d)
	}
	if err := s.InsertConversation(mkConv("us", "acc2", "p", "conv-1", base)); !errors.Is(err, ErrExists) {
		t.Fatalf("duplicate insert: %v", err)
	}
	// Same id in another region is a different record.
	if err := s.InsertConversation(mkConv("eu", "acc", "proj", "conv-1", base)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetConversation("us", "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
	if _, err := s.GetConversation("uk", "conv-1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("other region: %v", err)
	}
	if err := s.InsertConversation(&Conversation{ID: "x", Region: "us"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("missing account: %v", err)
	}
	for region, want := range map[string]int{"us": 1, "eu": 1, "uk": 0} {
		if n, err := s.CountConversations(region); err != nil || n != want {
			t.Fatalf("count %s = %d, %v", region, n, err)
		}
	}
}

func TestPutConversationMovesKey(t *testing.T) {
	s := openMem(t)
	c := mkConv("us", "acc", "p1", "c1", base)
	if err := s.PutConversation(c); err != nil {
		t.Fatal(err)
	}
	c.ProjectID = "p2"
	c.StartedAt = base.Add(time.Hour)
	if err := s.PutConversation(c); err != nil {
		t.Fatal(err)
	}
	l1, _, err := s.ListConversations(ConversationQuery{Region: "us", AccountID: "acc", ProjectID: "p1"})
	if err != nil || len(l1) != 0 {
		t.Fatalf("old place still listed: %v %v", ids(l1), err)
	}
	l2, _, _ := s.ListConversations(ConversationQuery{Region: "us", AccountID: "acc", ProjectID: "p2"})
	if d := cmp.Diff([]*Conversation{c}, l2, cmpOpts...); d != "" {
		t.Fatal(d)
	}
	if n, _ := s.CountConversations("us"); n != 1 {
		t.Fatalf("count %d", n)
	}
	if n, _ := s.Len(); n != 1 {
		t.Fatalf("len %d", n)
	}
}

func TestUpdateConversation(t *testing.T) {
	s := openMem(t)
	orig := mkConv("uk", "acc", "proj", "c1", base)
	if err := s.InsertConversation(orig); err != nil {
		t.Fatal(err)
	}
	if err := s.InsertConversation(mkConv("uk", "acc", "proj", "c2", base.Add(time.Minute))); err != nil {
		t.Fatal(err)
	}

	boom := errors.New("boom")
	_, err := s.UpdateConversation("uk", "c1", func(c *Conversation) error {
		c.Channel = "CHAT"
		c.Turns = nil
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("fn error: %v", err)
	}
	got, _ := s.GetConversation("uk", "c1")
	if d := cmp.Diff(orig, got, cmpOpts...); d != "" {
		t.Fatalf("aborted update changed the record:\n%s", d)
	}

	if _, err := s.UpdateConversation("uk", "c1", func(c *Conversation) error { c.ID = "other"; return nil }); !errors.Is(err, ErrInvalid) {
		t.Fatalf("id change: %v", err)
	}
	if _, err := s.UpdateConversation("uk", "zz", func(*Conversation) error { return nil }); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}

	out, err := s.UpdateConversation("uk", "c1", func(c *Conversation) error {
		c.InProgress = false
		c.Turns = append(c.Turns, Turn{UserInput: "bye", UserInputAt: base.Add(5 * time.Minute)})
		c.StartedAt = base.Add(2 * time.Minute) // moves after c2
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = s.GetConversation("uk", "c1")
	if d := cmp.Diff(out, got, cmpOpts...); d != "" || got.NumTurns() != 5 {
		t.Fatalf("returned vs stored:\n%s", d)
	}
	l, _, _ := s.ListConversations(ConversationQuery{Region: "uk", AccountID: "acc", ProjectID: "proj"})
	if !slices.Equal(ids(l), []string{"c2", "c1"}) {
		t.Fatalf("order after move: %v", ids(l))
	}
}

// fill inserts n conversations (ids c000..) in one project, with started_at
// values repeating so that ties occur; returns them in (started_at, id)
// order.
func fill(t testing.TB, s *Store, region, account, project string, n int) []*Conversation {
	return fillPrefix(t, s, region, account, project, n, "c")
}

func fillPrefix(t testing.TB, s *Store, region, account, project string, n int, idPrefix string) []*Conversation {
	t.Helper()
	var all []*Conversation
	for i := range n {
		// ids inserted in a scrambled order; started_at ties in groups of 3
		id := fmt.Sprintf("%s%03d", idPrefix, (i*7)%n)
		c := mkConv(region, account, project, id, base.Add(time.Duration((i*7)%n/3)*time.Second))
		if err := s.InsertConversation(c); err != nil {
			t.Fatal(err)
		}
		all = append(all, c)
	}
	sortConvs(all)
	return all
}

func sortConvs(l []*Conversation) {
	sort.Slice(l, func(i, j int) bool {
		if !l[i].StartedAt.Equal(l[j].StartedAt) {
			return l[i].StartedAt.Before(l[j].StartedAt)
		}
		return l[i].ID < l[j].ID
	})
}

func TestListConversations(t *testing.T) {
	s := openMem(t)
	all := fill(t, s, "us", "acc", "proj", 30)
	// noise in neighbouring scopes
	fillPrefix(t, s, "us", "acc", "proj2", 5, "p")
	fillPrefix(t, s, "us", "acc2", "proj", 5, "q")
	fill(t, s, "eu", "acc", "proj", 5)
	fillPrefix(t, s, "us", "acc/x", "proj", 3, "r") // must not collide with acc + "x/proj"
	fillPrefix(t, s, "us", "acc", "x/proj", 3, "s")
	wantIDs := func(l []*Conversation) []string { return ids(l) }
	rev := func(l []*Conversation) []*Conversation { r := slices.Clone(l); slices.Reverse(r); return r }
	q := ConversationQuery{Region: "us", AccountID: "acc", ProjectID: "proj"}

	tests := []struct {
		name     string
		mod      func(*ConversationQuery)
		want     []*Conversation
		wantNext bool
	}{
		{"all", func(*ConversationQuery) {}, all, false},
		{"desc", func(q *ConversationQuery) { q.Desc = true }, rev(all), false},
		{"from", func(q *ConversationQuery) { q.From = base.Add(4 * time.Second) }, all[12:], false},
		{"to", func(q *ConversationQuery) { q.To = base.Add(4 * time.Second) }, all[:12], false},
		{"from-to", func(q *ConversationQuery) { q.From, q.To = base.Add(2*time.Second), base.Add(5*time.Second) }, all[6:15], false},
		{"from-to desc", func(q *ConversationQuery) {
			q.From, q.To, q.Desc = base.Add(2*time.Second), base.Add(5*time.Second), true
		}, rev(all[6:15]), false},
		{"empty range", func(q *ConversationQuery) { q.From, q.To = base.Add(5*time.Second), base.Add(5*time.Second) }, nil, false},
		{"inverted range", func(q *ConversationQuery) { q.From, q.To = base.Add(5*time.Second), base }, nil, false},
		{"limit", func(q *ConversationQuery) { q.Limit = 4 }, all[:4], true},
		{"limit exact", func(q *ConversationQuery) { q.Limit = 30 }, all, false},
		{"limit desc", func(q *ConversationQuery) { q.Limit = 4; q.Desc = true }, rev(all)[:4], true},
		{"limit in range", func(q *ConversationQuery) {
			q.From, q.To, q.Limit = base.Add(2*time.Second), base.Add(5*time.Second), 9
		}, all[6:15], false},
		{"filter", func(q *ConversationQuery) {
			q.Filter = func(c *Conversation) bool { return c.ID[3]%2 == 0 }
			q.Limit = 5
		}, filterConvs(all, func(c *Conversation) bool { return c.ID[3]%2 == 0 })[:5], true},
		{"filter none left", func(q *ConversationQuery) {
			q.Filter = func(c *Conversation) bool { return c.ID == "c000" || c.ID == "c001" }
			q.Limit = 2
		}, filterConvs(all, func(c *Conversation) bool { return c.ID == "c000" || c.ID == "c001" }), false},
		{"other account with slash", func(q *ConversationQuery) { q.AccountID = "acc/x" }, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			qq := q
			tc.mod(&qq)
			got, next, err := s.ListConversations(qq)
			if err != nil {
				t.Fatal(err)
			}
			if tc.name == "other account with slash" {
				if len(got) != 3 || got[0].AccountID != "acc/x" {
					t.Fatalf("escaping: %v", ids(got))
				}
				return
			}
			if !slices.Equal(wantIDs(got), wantIDs(tc.want)) {
				t.Fatalf("got %v\nwant %v", ids(got), ids(tc.want))
			}
			if d := cmp.Diff(tc.want, got, cmpOpts...); d != "" {
				t.Fatal(d)
			}
			if (next != "") != tc.wantNext {
				t.Fatalf("next = %q, want non-empty %v", next, tc.wantNext)
			}
		})
	}
	if _, _, err := s.ListConversations(ConversationQuery{Region: "us", AccountID: "acc"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("missing project: %v", err)
	}
}

func filterConvs(l []*Conversation, f func(*Conversation) bool) []*Conversation {
	var out []*Conversation
	for _, c := range l {
		if f(c) {
			out = append(out, c)
		}
	}
	return out
}

// walk pages through q with the given page size, calling between(page)
// after each page.
func walk(t *testing.T, s *Store, q ConversationQuery, between func(page int)) []string {
	t.Helper()
	var got []string
	for page := 0; ; page++ {
		l, next, err := s.ListConversations(q)
		if err != nil {
			t.Fatal(err)
		}
		if q.Limit > 0 && len(l) > q.Limit {
			t.Fatalf("page of %d > limit %d", len(l), q.Limit)
		}
		got = append(got, ids(l)...)
		if next == "" {
			return got
		}
		if len(l) == 0 {
			t.Fatal("empty page with a next position")
		}
		if page > 1000 {
			t.Fatal("no end")
		}
		q.After = next
		if between != nil {
			between(page)
		}
	}
}

func TestKeysetPaging(t *testing.T) {
	s := openMem(t)
	all := fill(t, s, "us", "acc", "proj", 50)
	want := ids(all)
	wantDesc := slices.Clone(want)
	slices.Reverse(wantDesc)
	for _, limit := range []int{1, 3, 7, 50, 51} {
		for _, desc := range []bool{false, true} {
			q := ConversationQuery{Region: "us", AccountID: "acc", ProjectID: "proj", Limit: limit, Desc: desc}
			w := want
			if desc {
				w = wantDesc
			}
			if got := walk(t, s, q, nil); !slices.Equal(got, w) {
				t.Fatalf("limit %d desc %v:\n got %v\nwant %v", limit, desc, got, w)
			}
		}
	}
	// With a filter and bounds.
	q := ConversationQuery{Region: "us", AccountID: "acc", ProjectID: "proj", Limit: 4,
		From: base.Add(3 * time.Second), To: base.Add(12 * time.Second),
		Filter: func(c *Conversation) bool { return c.ID[3] != '5' }}
	w := ids(filterConvs(all, func(c *Conversation) bool {
		return !c.StartedAt.Before(q.From) && c.StartedAt.Before(q.To) && q.Filter(c)
	}))
	if got := walk(t, s, q, nil); !slices.Equal(got, w) {
		t.Fatalf("filtered walk:\n got %v\nwant %v", got, w)
	}
}

func TestKeysetPagingWithInserts(t *testing.T) {
	for _, desc := range []bool{false, true} {
		t.Run(fmt.Sprint("desc=", desc), func(t *testing.T) {
			s := openMem(t)
			all := fill(t, s, "us", "acc", "proj", 40)
			var lastSeen *Conversation
			seenSet := map[string]bool{}
			var inserted []*Conversation
			q := ConversationQuery{Region: "us", AccountID: "acc", ProjectID: "proj", Limit: 6, Desc: desc}
			var got []string
			for page := 0; ; page++ {
				l, next, err := s.ListConversations(q)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, ids(l)...)
				for _, c := range l {
					seenSet[c.ID] = true
				}
				if next == "" {
					break
				}
				lastSeen = l[len(l)-1]
				q.After = next
				// Insert one record behind the cursor (must not appear), one
				// ahead of it (must appear) and one tying with the cursor's
				// started_at on either side of its id.
				behind, ahead := -time.Hour, time.Hour
				if desc {
					behind, ahead = ahead, behind
				}
				for j, off := range []time.Duration{behind, ahead, 0, 0} {
					id := fmt.Sprintf("n%02d-%d", page, j)
					if off == 0 {
						id = lastSeen.ID + fmt.Sprintf("-%d", j) // sorts right after lastSeen.ID
						if j == 3 {
							id = lastSeen.ID[:len(lastSeen.ID)-1] // sorts right before
							id += fmt.Sprintf("%c~%d", lastSeen.ID[len(lastSeen.ID)-1]-1, page)
						}
					}
					c := mkConv("us", "acc", "proj", id, lastSeen.StartedAt.Add(off))
					if err := s.InsertConversation(c); err != nil {
						t.Fatal(err)
					}
					inserted = append(inserted, c)
				}
			}
			// Every original record exactly once.
			counts := map[string]int{}
			for _, id := range got {
				counts[id]++
			}
			for _, c := range all {
				if counts[c.ID] != 1 {
					t.Fatalf("%s seen %d times", c.ID, counts[c.ID])
				}
			}
			for id, n := range counts {
				if n != 1 {
					t.Fatalf("%s seen %d times", id, n)
				}
			}
			// The walk is in order.
			final, _, _ := s.ListConversations(ConversationQuery{Region: "us", AccountID: "acc", ProjectID: "proj", Desc: desc})
			pos := map[string]int{}
			for i, c := range final {
				pos[c.ID] = i
			}
			for i := 1; i < len(got); i++ {
				if pos[got[i-1]] >= pos[got[i]] {
					t.Fatalf("out of order: %s before %s", got[i-1], got[i])
				}
			}
			// Records inserted behind the cursor never appear; ahead ones do.
			for _, c := range inserted {
				if strings.HasPrefix(c.ID, "n") && strings.HasSuffix(c.ID, "-0") && seenSet[c.ID] {
					t.Fatalf("record inserted behind the cursor was listed: %s", c.ID)
				}
				if strings.HasPrefix(c.ID, "n") && strings.HasSuffix(c.ID, "-1") && !seenSet[c.ID] {
					t.Fatalf("record inserted ahead of the cursor was missed: %s", c.ID)
				}
				if strings.Contains(c.ID, "~") && seenSet[c.ID] != desc {
					t.Fatalf("tie before cursor id: %s listed=%v", c.ID, seenSet[c.ID])
				}
				if strings.HasPrefix(c.ID, "c") && !strings.Contains(c.ID, "~") && seenSet[c.ID] == desc {
					t.Fatalf("tie after cursor id: %s listed=%v", c.ID, seenSet[c.ID])
				}
			}
		})
	}
}

func TestBadCursor(t *testing.T) {
	s := openMem(t)
	fill(t, s, "us", "acc", "proj", 5)
	q := ConversationQuery{Region: "us", AccountID: "acc", ProjectID: "proj", Limit: 2}
	_, next, err := s.ListConversations(q)
	if err != nil || next == "" {
		t.Fatal(next, err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(next)
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	bad := []string{
		"!!!", "not base64 at all", next + "=", enc("hello"), enc(string(raw[:len(raw)-3])[:20]),
		enc(strings.Replace(string(raw), "/acc/", "/acc2/", 1)), // other account
		enc(strings.Replace(string(raw), "0", "x", 1)),          // not digits
		enc(string(raw[:strings.LastIndexByte(string(raw), '/')+1])),
	}
	for _, b := range bad {
		q.After = b
		if _, _, err := s.ListConversations(q); !errors.Is(err, ErrBadCursor) {
			t.Errorf("After=%q: err = %v", b, err)
		}
	}
	// A cursor from another project is rejected too.
	q.After = next
	q.ProjectID = "other"
	if _, _, err := s.ListConversations(q); !errors.Is(err, ErrBadCursor) {
		t.Errorf("foreign cursor: %v", err)
	}
	// A cursor whose record was deleted/moved still works.
	if _, err := s.UpdateConversation("us", "c001", func(c *Conversation) error { c.StartedAt = base.Add(time.Hour); return nil }); err != nil {
		t.Fatal(err)
	}
	q.ProjectID = "proj"
	if _, _, err := s.ListConversations(q); err != nil {
		t.Fatal(err)
	}
}

func TestHandoffState(t *testing.T) {
	s := openMem(t)
	h1 := &HandoffState{Region: "us", AccountID: "acc", ProjectID: "proj", ID: "c1", SharedID: "s1",
		Data: map[string]any{"reason": "billing", "n": 2.0}, CreatedAt: base}
	h2 := &HandoffState{Region: "us", AccountID: "acc", ProjectID: "proj", ID: "c2",
		Data: map[string]any{"reason": "other"}, CreatedAt: base.Add(time.Minute)}
	for _, h := range []*HandoffState{h1, h2} {
		if err := s.PutHandoffState(h); err != nil {
			t.Fatal(err)
		}
	}
	get := func(id, sid string) (*HandoffState, error) { return s.GetHandoffState("us", "acc", "proj", id, sid) }
	if got, err := get("c1", ""); err != nil || cmp.Diff(h1, got, cmpOpts...) != "" {
		t.Fatalf("by id: %v %v", got, err)
	}
	if got, err := get("", "s1"); err != nil || cmp.Diff(h1, got, cmpOpts...) != "" {
		t.Fatalf("by shared id: %v %v", got, err)
	}
	if got, err := get("c2", "s1"); err != nil || cmp.Diff(h1, got, cmpOpts...) != "" {
		t.Fatalf("shared id wins: %v %v", got, err)
	}
	if _, err := get("c2", "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown shared id wins, want not found: %v", err)
	}
	if _, err := get("c3", ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
	if _, err := s.GetHandoffState("us", "acc", "other", "c1", ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("other project: %v", err)
	}
	if _, err := s.GetHandoffState("us", "acc", "other", "", "s1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("shared id of other project: %v", err)
	}
	if _, err := get("", ""); !errors.Is(err, ErrInvalid) {
		t.Fatalf("no id: %v", err)
	}
	// Changing the shared id releases the old one.
	h1.SharedID = "s9"
	if err := s.PutHandoffState(h1); err != nil {
		t.Fatal(err)
	}
	if _, err := get("", "s1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("old shared id: %v", err)
	}
	if got, err := get("", "s9"); err != nil || got.ID != "c1" {
		t.Fatalf("new shared id: %v %v", got, err)
	}
	// Another state taking over a shared id.
	h2.SharedID = "s9"
	if err := s.PutHandoffState(h2); err != nil {
		t.Fatal(err)
	}
	if got, err := get("", "s9"); err != nil || got.ID != "c2" {
		t.Fatalf("taken over shared id: %v %v", got, err)
	}
	// ...and c1 dropping it does not release c2's claim.
	h1.SharedID = ""
	if err := s.PutHandoffState(h1); err != nil {
		t.Fatal(err)
	}
	if got, err := get("", "s9"); err != nil || got.ID != "c2" {
		t.Fatalf("claim kept: %v %v", got, err)
	}
	if n, _ := s.Len(); n != 2 {
		t.Fatalf("len %d", n)
	}
}

type rule struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Threshold int       `json:"threshold"`
	Enabled   bool      `json:"enabled"`
	UpdatedAt time.Time `json:"updated_at"`
}

func TestDocs(t *testing.T) {
	s := openMem(t)
	r := rule{ID: "ar_1", Name: "errors", Threshold: 3, Enabled: true, UpdatedAt: base}
	if err := s.InsertDoc("alert_rule", "us", r.ID, r); err != nil {
		t.Fatal(err)
	}
	if err := s.InsertDoc("alert_rule", "us", r.ID, r); !errors.Is(err, ErrExists) {
		t.Fatalf("dup: %v", err)
	}
	var got rule
	if err := s.GetDoc("alert_rule", "us", "ar_1", &got); err != nil || cmp.Diff(r, got, cmpOpts...) != "" {
		t.Fatalf("get: %+v %v", got, err)
	}
	if err := s.GetDoc("alert_rule", "eu", "ar_1", &got); !errors.Is(err, ErrNotFound) {
		t.Fatalf("other region: %v", err)
	}
	if err := s.GetDoc("webhook", "us", "ar_1", &got); !errors.Is(err, ErrNotFound) {
		t.Fatalf("other kind: %v", err)
	}

	// UpdateDoc: abort, then success.
	boom := errors.New("boom")
	var u rule
	if err := s.UpdateDoc("alert_rule", "us", "ar_1", &u, func() error { u.Threshold = 99; return boom }); !errors.Is(err, boom) {
		t.Fatalf("abort: %v", err)
	}
	_ = s.GetDoc("alert_rule", "us", "ar_1", &got)
	if got.Threshold != 3 {
		t.Fatalf("aborted update stored: %+v", got)
	}
	if err := s.UpdateDoc("alert_rule", "us", "ar_1", &u, func() error { u.Threshold = 5; return nil }); err != nil {
		t.Fatal(err)
	}
	_ = s.GetDoc("alert_rule", "us", "ar_1", &got)
	if got.Threshold != 5 || u.Name != "errors" {
		t.Fatalf("update: %+v %+v", got, u)
	}
	if err := s.UpdateDoc("alert_rule", "us", "nope", &u, func() error { return nil }); !errors.Is(err, ErrNotFound) {
		t.Fatalf("update missing: %v", err)
	}

	// Put (upsert), list order, stop, count.
	for _, id := range []string{"ar_3", "ar_2", "ar_10"} {
		if err := s.PutDoc("alert_rule", "us", id, rule{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutDoc("alert_rule", "us", "ar_2", rule{ID: "ar_2", Name: "replaced"}); err != nil {
		t.Fatal(err)
	}
	_ = s.PutDoc("alert_rule/x", "us", "zz", rule{}) // kind with a slash stays separate
	_ = s.PutDoc("alert_rule", "us/x", "zz", rule{})
	_ = s.PutDoc("alert_rulf", "us", "zz", rule{})
	var listed []string
	err := ListDocs(s, "alert_rule", "us", func(id string, r *rule) bool {
		listed = append(listed, id)
		// The callback may use the store (it runs outside the transaction).
		if n, err := s.CountDocs("alert_rule", "us"); err != nil || n != 4 {
			t.Errorf("count inside callback: %d %v", n, err)
		}
		if id == "ar_2" && !strings.Contains(r.Name, "replaced") {
			t.Errorf("doc %+v", r)
		}
		return true
	})
	if err != nil || !slices.Equal(listed, []string{"ar_1", "ar_10", "ar_2", "ar_3"}) {
		t.Fatalf("list: %v %v", listed, err)
	}
	listed = nil
	_ = ListDocs(s, "alert_rule", "us", func(id string, _ *rule) bool { listed = append(listed, id); return len(listed) < 2 })
	if !slices.Equal(listed, []string{"ar_1", "ar_10"}) {
		t.Fatalf("stop: %v", listed)
	}
	if err := s.DeleteDoc("alert_rule", "us", "ar_10"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteDoc("alert_rule", "us", "ar_10"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete twice: %v", err)
	}
	if n, err := s.CountDocs("alert_rule", "us"); err != nil || n != 3 {
		t.Fatalf("count %d %v", n, err)
	}
	if n, _ := s.CountDocs("alert_rule/x", "us"); n != 1 {
		t.Fatalf("count slash kind %d", n)
	}
	if err := s.PutDoc("alert_rule", "us", "bad", func() {}); err == nil {
		t.Fatal("unencodable value accepted")
	}
	if err := s.PutDoc("alert_rule", "us", "", rule{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("empty id: %v", err)
	}
}

// dump returns every record of a store in a comparable form.
func dump(t *testing.T, s *Store) []kv {
	t.Helper()
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return snap.kvs
}

func TestSnapshotRestore(t *testing.T) {
	s := openMem(t)
	fill(t, s, "us", "acc", "proj", 20)
	_ = s.PutDoc("agent", "us", "a1", map[string]any{"name": "one"})
	_ = s.PutHandoffState(&HandoffState{Region: "us", AccountID: "acc", ProjectID: "proj", ID: "c001", SharedID: "sh", CreatedAt: base})
	before := dump(t, s)
	n0, _ := s.Len()
	if n0 != 22 {
		t.Fatalf("len %d", n0)
	}
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}

	// Modify everything after the snapshot.
	_ = s.InsertConversation(mkConv("us", "acc", "proj", "new", base))
	_, _ = s.UpdateConversation("us", "c003", func(c *Conversation) error { c.StartedAt = base.Add(time.Hour); c.Channel = "X"; return nil })
	_ = s.DeleteDoc("agent", "us", "a1")
	_ = s.PutDoc("agent", "us", "a2", map[string]any{})
	_ = s.PutHandoffState(&HandoffState{Region: "us", AccountID: "acc", ProjectID: "proj", ID: "c001", SharedID: "other"})

	if err := s.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, dump(t, s), cmp.AllowUnexported(kv{})); d != "" {
		t.Fatalf("state after restore:\n%s", d)
	}
	if _, err := s.GetConversation("us", "new"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("post-snapshot insert survived: %v", err)
	}
	if c, _ := s.GetConversation("us", "c003"); c.Channel != "VOICE-SIP" {
		t.Fatalf("post-snapshot update survived")
	}
	if h, err := s.GetHandoffState("us", "acc", "proj", "", "sh"); err != nil || h.ID != "c001" {
		t.Fatalf("handoff: %v %v", h, err)
	}
	if n, _ := s.Len(); n != n0 {
		t.Fatalf("len %d after restore, want %d", n, n0)
	}

	// Restoring twice, and into another store, gives the same state.
	_ = s.PutDoc("agent", "us", "a3", 1)
	if err := s.Restore(snap); err != nil {
		t.Fatal(err)
	}
	s2 := openMem(t)
	if err := s2.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, dump(t, s2), cmp.AllowUnexported(kv{})); d != "" {
		t.Fatalf("other store:\n%s", d)
	}
	// nil = empty
	if err := s.Restore(nil); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.Len(); n != 0 {
		t.Fatalf("len %d after nil restore", n)
	}
	if n, _ := s2.Len(); n != n0 {
		t.Fatalf("other store affected: %d", n)
	}
}

func TestFilePersistence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	c := mkConv("eu", "acc", "proj", "c1", base)
	h := &HandoffState{Region: "eu", AccountID: "acc", ProjectID: "proj", ID: "c1", SharedID: "sh", Data: map[string]any{"k": "v"}, CreatedAt: base}
	if err := s.InsertConversation(c); err != nil {
		t.Fatal(err)
	}
	if err := s.PutHandoffState(h); err != nil {
		t.Fatal(err)
	}
	if err := s.PutDoc("agent", "eu", "a1", rule{ID: "a1"}); err != nil {
		t.Fatal(err)
	}
	snap, _ := s.Snapshot()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.GetConversation("eu", "c1")
	if err != nil || cmp.Diff(c, got, cmpOpts...) != "" {
		t.Fatalf("conversation after reopen: %v", err)
	}
	l, _, err := s.ListConversations(ConversationQuery{Region: "eu", AccountID: "acc", ProjectID: "proj"})
	if err != nil || len(l) != 1 {
		t.Fatalf("list after reopen: %v %v", ids(l), err)
	}
	if gh, err := s.GetHandoffState("eu", "acc", "proj", "", "sh"); err != nil || cmp.Diff(h, gh, cmpOpts...) != "" {
		t.Fatalf("handoff after reopen: %v", err)
	}
	var r rule
	if err := s.GetDoc("agent", "eu", "a1", &r); err != nil || r.ID != "a1" {
		t.Fatalf("doc after reopen: %v", err)
	}

	// Restore on a file store is persisted too.
	_ = s.InsertConversation(mkConv("eu", "acc", "proj", "c2", base))
	_ = s.DeleteDoc("agent", "eu", "a1")
	if err := s.Restore(snap); err != nil {
		t.Fatal(err)
	}
	s = reopen(t, s, path)
	if d := cmp.Diff(snap.kvs, dump(t, s), cmp.AllowUnexported(kv{})); d != "" {
		t.Fatalf("restored state after reopen:\n%s", d)
	}
}

func TestStoresIsolated(t *testing.T) {
	for i := range 4 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			s := openMem(t)
			for j := range 50 {
				c := mkConv("us", "acc", "proj", fmt.Sprintf("c%02d", j), base.Add(time.Duration(j)*time.Second))
				c.Channel = fmt.Sprint("store-", i)
				if err := s.InsertConversation(c); err != nil {
					t.Fatal(err)
				}
				_ = s.PutDoc("agent", "us", fmt.Sprint(j), i)
			}
			l, _, err := s.ListConversations(ConversationQuery{Region: "us", AccountID: "acc", ProjectID: "proj"})
			if err != nil || len(l) != 50 {
				t.Fatalf("%d %v", len(l), err)
			}
			for _, c := range l {
				if c.Channel != fmt.Sprint("store-", i) {
					t.Fatalf("saw another store's record: %s", c.Channel)
				}
			}
			if n, _ := s.Len(); n != 100 {
				t.Fatalf("len %d", n)
			}
		})
	}
}

func TestConcurrentUse(t *testing.T) {
	s := openMem(t)
	fill(t, s, "us", "acc", "proj", 20)
	snap, _ := s.Snapshot()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				id := fmt.Sprintf("g%d-%d", g, i)
				_ = s.PutConversation(mkConv("us", "acc", "proj", id, base.Add(time.Duration(i)*time.Millisecond)))
				_, _ = s.UpdateConversation("us", "c001", func(c *Conversation) error { c.NumOOD++; return nil })
				l, _, err := s.ListConversations(ConversationQuery{Region: "us", AccountID: "acc", ProjectID: "proj", Limit: 10})
				if err != nil || len(l) != 10 {
					t.Errorf("list: %d %v", len(l), err)
				}
				if i%10 == 0 {
					if err := s.Restore(snap); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestCloseAndLeaks(t *testing.T) {
	s, err := Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.InsertConversation(mkConv("us", "a", "p", "c", base)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if _, err := s.GetConversation("us", "c"); !errors.Is(err, ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
	if err := s.PutDoc("k", "us", "i", 1); !errors.Is(err, ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
	goleak.VerifyNone(t, goleak.IgnoreAnyFunction(LeakIgnoreFunction))
}
