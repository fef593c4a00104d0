package store

import (
	"slices"
	"testing"
	"time"
)

// TestDropConversationsBefore: retention drops the stored and generated
// records that started before the cut and have ended (with their handoff
// states), keeps the rest and those in progress, keeps the metric
// aggregates equal to a rebuild, and persists.
func TestDropConversationsBefore(t *testing.T) {
	t.Parallel()
	sp := testSpec(800)
	want := sequential(t, sp, map[string]bool{})
	s, path := openGenerated(t, sp)
	old := mkConv("us", "1001", "2001", "OLD", sp.From.Add(time.Hour))
	running := mkConv("us", "1001", "2001", "RUNNING", sp.From.Add(2*time.Hour))
	running.InProgress, running.EndedAt = true, time.Time{}
	fresh := mkConv("us", "1001", "2001", "FRESH", sp.To.Add(time.Hour))
	for _, c := range []*Conversation{old, running, fresh} {
		if err := s.PutConversation(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutHandoffState(&HandoffState{Region: "us", AccountID: "1001", ProjectID: "2001", ID: "OLD", SharedID: "sh"}); err != nil {
		t.Fatal(err)
	}
	// A generated record overridden (it ends) and one updated.
	if _, err := s.UpdateConversation("us", want[1].ID, func(c *Conversation) error { c.NumOOD = 9; return nil }); err != nil {
		t.Fatal(err)
	}
	cut := sp.From.Add(3 * 24 * time.Hour)
	n, err := s.DropConversationsBefore(cut)
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, c := range want {
		if !c.StartedAt.Before(cut) || c.InProgress {
			keep = append(keep, c.ID)
		}
	}
	keep = append(keep, "RUNNING", "FRESH")
	wantDropped := len(want) + 3 - len(keep)
	if n != wantDropped {
		t.Fatalf("dropped %d, want %d", n, wantDropped)
	}
	check := func(s *Store) {
		t.Helper()
		got := ids(listAll(t, s, ConversationQuery{}))
		slices.Sort(got)
		slices.Sort(keep)
		if !slices.Equal(got, keep) {
			t.Fatalf("kept %d records, want %d", len(got), len(keep))
		}
		if c, err := s.CountConversations("us"); err != nil || c != len(keep) {
			t.Fatalf("count %d, %v", c, err)
		}
		if _, err := s.GetHandoffState("us", "1001", "2001", "OLD", ""); err == nil {
			t.Fatal("handoff state of a dropped record kept")
		}
		if _, err := s.GetHandoffState("us", "1001", "2001", "", "sh"); err == nil {
			t.Fatal("shared id of a dropped record kept")
		}
		for _, c := range want {
			_, err := s.GetHandoffState("us", "1001", "2001", c.ID, "")
			if has := err == nil; has != (c.Handoff && !c.StartedAt.Before(cut)) {
				t.Fatalf("handoff state of %s (handoff %v, started %v): %v", c.ID, c.Handoff, c.StartedAt, err)
			}
		}
	}
	check(s)
	// The aggregates equal a rebuild from the records.
	q := MetricsQuery{Projects: []ProjectRef{{"us", "1001", "2001"}}, From: sp.From, To: sp.To.Add(2 * time.Hour), Percentiles: []int{50, 99}}
	sameAfterRebuild(t, s, q, nil)
	s = reopen(t, s, path)
	check(s)
}
