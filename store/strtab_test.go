package store

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"testing"
)

// strKeys lists the string table's records as key=value.
func strKeys(t *testing.T, s *Store) []string {
	t.Helper()
	var keys []string
	for _, r := range recordsUnder(t, s, pfxStr) {
		keys = append(keys, r.k+"="+r.v)
	}
	return keys
}

// TestStringTable: a repeated string enters the table on its second
// write, in that write's transaction; a failed write takes its strings
// out again; the table follows snapshots into other stores and files.
func TestStringTable(t *testing.T) {
	s := openMem(t)
	put := func(id, variant string) {
		t.Helper()
		c := mkConv("us", "a", "p", id, base)
		c.VariantName = variant
		if err := s.PutConversation(c); err != nil {
			t.Fatal(err)
		}
	}
	has := func(str string) bool {
		for _, x := range s.tab.load() {
			if x == str {
				return true
			}
		}
		return false
	}
	put("c0", "Spring Promo")
	put("c1", "Summer")
	if has("Summer") {
		t.Fatal("a string written once is in the table")
	}
	put("c2", "Summer")
	if !has("Summer") || len(strKeys(t, s)) != len(s.tab.load()) {
		t.Fatalf("the second write of a string: table %q, keys %v", s.tab.load(), strKeys(t, s))
	}
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// A failing write interns nothing that stays: the bulk write enters
	// "Autumn" with its second record and fails at its third.
	n := len(s.tab.load())
	for range 2 {
		var batch []*Conversation
		for i := range 3 {
			c := mkConv("us", "a", "p", fmt.Sprint("b", i), base)
			c.VariantName = "Autumn"
			batch = append(batch, c)
		}
		batch[2].State["bad"] = math.NaN()
		if err := s.PutConversations(batch); err == nil {
			t.Fatal("a write of NaN succeeded")
		}
		if has("Autumn") || len(s.tab.load()) != n || len(strKeys(t, s)) != n {
			t.Fatalf("strings of a failed write kept: %q, %v", s.tab.load(), strKeys(t, s))
		}
	}
	put("c3", "Autumn")
	put("c3", "Autumn")
	if !has("Autumn") {
		t.Fatal("Autumn not in the table")
	}
	// The snapshot, restored into another store backed by a file.
	path := filepath.Join(t.TempDir(), "d.db")
	o, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Restore(snap); err != nil {
		t.Fatal(err)
	}
	c := mkConv("us", "a", "p", "c4", base)
	c.VariantName = "Winter"
	for i := range 2 {
		c.ID = fmt.Sprint("w", i)
		if err := o.PutConversation(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if o, err = Open(path); err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	for _, id := range []string{"c1", "c2", "w0", "w1"} {
		got, err := o.GetConversation("us", id)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[byte]string{'c': "Summer", 'w': "Winter"}[id[0]]; got.VariantName != want {
			t.Errorf("%s: variant %q, want %q", id, got.VariantName, want)
		}
	}
	if _, err := o.GetConversation("us", "c3"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("c3 after restoring the snapshot before it: %v", err)
	}
	// The store the snapshot came from is unchanged by the other's writes.
	if got := mustGet(t, s, "us", "c3"); got.VariantName != "Autumn" {
		t.Fatalf("c3: %q", got.VariantName)
	}
}
