package store

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPutConversations(t *testing.T) {
	s, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var cs []*Conversation
	for i := range 1000 {
		cs = append(cs, &Conversation{ID: fmt.Sprintf("B%04d", i), Region: "us", AccountID: "a", ProjectID: "p",
			StartedAt: t0.Add(time.Duration(1000-i) * time.Second), Metrics: map[string]any{}, State: map[string]any{}, Turns: []Turn{}})
	}
	// A record already stored is replaced (and moved in the order).
	if err := s.PutConversation(&Conversation{ID: "B0007", Region: "us", AccountID: "a", ProjectID: "p", StartedAt: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutConversations(cs); err != nil {
		t.Fatal(err)
	}
	n, _ := s.CountConversations("us")
	if n != 1000 {
		t.Fatalf("count = %d", n)
	}
	got, err := s.GetConversation("us", "B0007")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cs[7], got); diff != "" {
		t.Errorf("B0007 (-want +got):\n%s", diff)
	}
	list, _, err := s.ListConversations(ConversationQuery{Region: "us", AccountID: "a", ProjectID: "p", Limit: 2})
	if err != nil || len(list) != 2 || list[0].ID != "B0999" || list[1].ID != "B0998" {
		t.Errorf("order: %v %v", list, err)
	}
	// An invalid record: nothing stored.
	bad := []*Conversation{{ID: "X1", Region: "us", AccountID: "a", ProjectID: "p"}, {ID: "X2", Region: "us"}}
	if err := s.PutConversations(bad); !errors.Is(err, ErrInvalid) {
		t.Errorf("invalid batch: %v", err)
	}
	if _, err := s.GetConversation("us", "X1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("X1 stored from an invalid batch: %v", err)
	}
}
