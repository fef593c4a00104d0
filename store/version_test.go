package store

import (
	"errors"
	"testing"
	"time"
)

func TestConversationsVersion(t *testing.T) {
	s := openMem(t)
	v := s.ConversationsVersion()
	if v != 0 {
		t.Fatalf("fresh store: version %d, want 0", v)
	}
	// step runs op and checks whether the version moved.
	step := func(name string, changes bool, op func() error, wantErr bool) {
		t.Helper()
		before := s.ConversationsVersion()
		err := op()
		if (err != nil) != wantErr {
			t.Fatalf("%s: err = %v, want error %v", name, err, wantErr)
		}
		after := s.ConversationsVersion()
		switch {
		case changes && after <= before:
			t.Errorf("%s: version %d -> %d, want an increase", name, before, after)
		case !changes && after != before:
			t.Errorf("%s: version %d -> %d, want unchanged", name, before, after)
		}
	}
	c1 := mkConv("us", "acc", "proj", "v1", base)
	c2 := mkConv("us", "acc", "proj", "v2", base.Add(time.Second))
	c3 := mkConv("eu", "acc", "proj", "v3", base.Add(2*time.Second))
	var snap *Snapshot

	step("insert", true, func() error { return s.InsertConversation(c1) }, false)
	step("insert duplicate", false, func() error { return s.InsertConversation(c1) }, true)
	step("insert invalid", false, func() error { return s.InsertConversation(&Conversation{ID: "x"}) }, true)
	step("put", true, func() error { return s.PutConversation(c2) }, false)
	step("put again", true, func() error { return s.PutConversation(c2) }, false)
	step("put conversations", true, func() error { return s.PutConversations([]*Conversation{c3}) }, false)
	step("put conversations empty", false, func() error { return s.PutConversations(nil) }, false)
	step("put conversations invalid", false, func() error {
		return s.PutConversations([]*Conversation{c1, {ID: "x"}})
	}, true)
	step("update", true, func() error {
		_, err := s.UpdateConversation("us", "v1", func(c *Conversation) error { c.NumOOD++; return nil })
		return err
	}, false)
	step("update fn error", false, func() error {
		_, err := s.UpdateConversation("us", "v1", func(c *Conversation) error { c.NumOOD++; return errors.New("no") })
		return err
	}, true)
	step("update id change", false, func() error {
		_, err := s.UpdateConversation("us", "v1", func(c *Conversation) error { c.ID = "other"; return nil })
		return err
	}, true)
	step("update missing", false, func() error {
		_, err := s.UpdateConversation("us", "nope", func(c *Conversation) error { return nil })
		return err
	}, true)
	step("snapshot", false, func() (err error) { snap, err = s.Snapshot(); return err }, false)
	step("reads", false, func() error {
		if _, err := s.GetConversation("us", "v1"); err != nil {
			return err
		}
		if _, _, err := s.ListConversations(ConversationQuery{Region: "us", AccountID: "acc", ProjectID: "proj"}); err != nil {
			return err
		}
		_, err := s.CountConversations("us")
		return err
	}, false)
	// Writes of other families do not count.
	step("doc and handoff writes", false, func() error {
		if err := s.PutHandoffState(&HandoffState{Region: "us", AccountID: "acc", ProjectID: "proj", ID: "v1", Data: map[string]any{}}); err != nil {
			return err
		}
		if err := s.PutDoc("agent", "us", "a1", map[string]any{"x": 1}); err != nil {
			return err
		}
		return s.DeleteDoc("agent", "us", "a1")
	}, false)
	step("restore", true, func() error { return s.Restore(snap) }, false)
	step("restore nil", true, func() error { return s.Restore(nil) }, false)

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	step("insert after close", false, func() error { return s.InsertConversation(c1) }, true)
	step("update after close", false, func() error {
		_, err := s.UpdateConversation("us", "v1", func(c *Conversation) error { return nil })
		return err
	}, true)
	step("restore after close", false, func() error { return s.Restore(nil) }, true)
}

func TestProjectVersion(t *testing.T) {
	s := openMem(t)
	pa := func() Version { return s.ProjectVersion("us", "1", "a") }
	pb := func() Version { return s.ProjectVersion("us", "1", "b") }
	a0, b0 := pa(), pb()
	c := &Conversation{ID: "C1", Region: "us", AccountID: "1", ProjectID: "a", StartedAt: time.Unix(10, 0)}
	if err := s.InsertConversation(c); err != nil {
		t.Fatal(err)
	}
	if pa() == a0 || pb() != b0 {
		t.Fatalf("insert in a: a %v->%v, b %v->%v", a0, pa(), b0, pb())
	}
	a1, b1 := pa(), pb()
	if _, err := s.UpdateConversation("us", "C1", func(c *Conversation) error { c.ProjectID = "b"; return nil }); err != nil {
		t.Fatal(err)
	}
	if pa() == a1 || pb() == b1 {
		t.Fatal("moving a conversation from a to b must change both versions")
	}
	a2, b2 := pa(), pb()
	if _, err := s.UpdateConversation("us", "C1", func(*Conversation) error { return errors.New("no") }); err == nil {
		t.Fatal("want the fn error")
	}
	if pa() != a2 || pb() != b2 {
		t.Fatal("a failed update changed a version")
	}
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if pa() == a2 || pb() == b2 {
		t.Fatal("Restore must change every project's version")
	}
}

func TestProjectOfKey(t *testing.T) {
	c := &Conversation{ID: "C/1", Region: "us", AccountID: "a/b%c", ProjectID: "p%2F", StartedAt: time.Unix(5, 0)}
	got, ok := projectOfKey(convKey(c))
	if !ok || got != projectOf(c) {
		t.Fatalf("projectOfKey = %+v, %v; want %+v", got, ok, projectOf(c))
	}
	if _, ok := projectOfKey(""); ok {
		t.Fatal("empty key parsed")
	}
}

func TestPutMovesProjectVersion(t *testing.T) {
	s := openMem(t)
	c := &Conversation{ID: "C1", Region: "us", AccountID: "1", ProjectID: "a", StartedAt: time.Unix(10, 0)}
	if err := s.PutConversation(c); err != nil {
		t.Fatal(err)
	}
	a0 := s.ProjectVersion("us", "1", "a")
	moved := *c
	moved.ProjectID = "b"
	if err := s.PutConversation(&moved); err != nil {
		t.Fatal(err)
	}
	if s.ProjectVersion("us", "1", "a") == a0 {
		t.Fatal("replacing a conversation of project a with one of b must change a's version")
	}
}
