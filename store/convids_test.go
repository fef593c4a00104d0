package store

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tidwall/buntdb"
)

// lookupKeys lists the ci/ keys the database holds.
func lookupKeys(t *testing.T, s *Store) []string {
	t.Helper()
	var keys []string
	for _, r := range recordsUnder(t, s, pfxConvID) {
		keys = append(keys, r.k)
	}
	return keys
}

// indexed returns the index's entries as "region/id → primary key": a
// data file's ci/ keys, a memory store's map.
func indexed(s *Store) map[string]string {
	out := map[string]string{}
	_ = s.view(func(tx *buntdb.Tx) error {
		if s.file {
			return scanPrefix(tx, pfxConvID, func(k, pk string) bool {
				region, id, _ := strings.Cut(strings.TrimPrefix(k, pfxConvID), "/")
				out[unesc(region)+"/"+id] = pk
				return true
			})
		}
		for ref, pk := range s.ids.all {
			out[ref.region+"/"+ref.id] = pk
		}
		return nil
	})
	return out
}

// writeEveryWay writes conversations by every write the store has:
// insert, put, update (moving one), bulk put, and retention's drop.
func writeEveryWay(t *testing.T, s *Store) {
	t.Helper()
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range 4 {
		if err := s.InsertConversation(mkConv("us", "acc", "proj", fmt.Sprint("i", i), base.Add(time.Duration(i)*time.Hour))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutConversation(mkConv("uk", "acc", "proj", "p0", base.Add(5*time.Hour))); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateConversation("us", "i1", func(c *Conversation) error {
		c.StartedAt = c.StartedAt.Add(48 * time.Hour) // a new primary key
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutConversations([]*Conversation{mkConv("us", "acc", "proj", "b0", base), mkConv("us", "acc", "proj", "i2", base.Add(time.Minute))}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DropConversationsBefore(base.Add(30 * time.Second)); err != nil { // b0 and i0 (i2 moved next to them)
		t.Fatal(err)
	}
}

// TestConvIndex: a memory store keeps the lookup index in a map, a data
// file as its ci/ keys, and both index exactly the stored records after
// every kind of write; counts and reads go by it.
func TestConvIndex(t *testing.T) {
	mem := openMem(t)
	path := filepath.Join(t.TempDir(), "data.db")
	file, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { file.Close() })
	want := map[string]string{}
	for _, s := range []*Store{mem, file} {
		writeEveryWay(t, s)
		got := indexed(s)
		if len(want) == 0 {
			for k, pk := range got {
				want[k] = pk
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("index (-memory +file):\n%s", d)
		}
	}
	if len(want) != 4 { // i1, i3, i2 of us; p0 of uk
		t.Fatalf("index %v: want 4 conversations", want)
	}
	for k, pk := range want {
		region, id, _ := strings.Cut(k, "/")
		for _, s := range []*Store{mem, file} {
			c, err := s.GetConversation(region, id)
			if err != nil || convKey(c) != pk {
				t.Fatalf("get %s: %v, %v (want the record under %s)", k, c, err, pk)
			}
		}
	}
	for _, s := range []*Store{mem, file} {
		if n, err := s.CountConversations("us"); err != nil || n != 3 {
			t.Errorf("count us: %d, %v; want 3", n, err)
		}
		if _, err := s.GetConversation("us", "i0"); !errors.Is(err, ErrNotFound) {
			t.Errorf("dropped i0: %v, want ErrNotFound", err)
		}
	}
	if keys := lookupKeys(t, mem); len(keys) != 0 {
		t.Errorf("memory store holds lookup keys %q", keys)
	}
	var fileKeys []string
	for k := range want {
		region, id, _ := strings.Cut(k, "/")
		fileKeys = append(fileKeys, convIDKey(region, id))
	}
	if d := cmp.Diff(fileKeys, lookupKeys(t, file), cmpSorted); d != "" {
		t.Errorf("data file's lookup keys (-want +got):\n%s", d)
	}
	// Reopened, the file's index is rebuilt from its records.
	file = reopen(t, file, path)
	if d := cmp.Diff(want, indexed(file)); d != "" {
		t.Errorf("index after reopening (-want +got):\n%s", d)
	}
}

var cmpSorted = cmpopts.SortSlices(func(a, b string) bool { return a < b })

// TestConvIndexRollsBack: a write that fails after indexing (a record the
// encoder refuses) leaves the index, the counts and the keys as they
// were; the id is free for the next insert.
func TestConvIndexRollsBack(t *testing.T) {
	for _, file := range []bool{false, true} {
		t.Run(fmt.Sprint("file=", file), func(t *testing.T) {
			var s *Store
			if file {
				var err error
				if s, err = Open(filepath.Join(t.TempDir(), "data.db")); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
			} else {
				s = openMem(t)
			}
			base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
			if err := s.InsertConversation(mkConv("us", "acc", "proj", "kept", base)); err != nil {
				t.Fatal(err)
			}
			before, snap := indexed(s), mustSnapshot(t, s)
			bad := func(id string) *Conversation {
				c := mkConv("us", "acc", "proj", id, base.Add(time.Hour))
				c.State["nan"] = math.NaN() // refused by the encoder
				return c
			}
			if err := s.InsertConversation(bad("new")); err == nil {
				t.Fatal("insert of a NaN: no error")
			}
			if err := s.PutConversations([]*Conversation{mkConv("us", "acc", "proj", "b1", base), bad("b2")}); err == nil {
				t.Fatal("bulk put with a NaN: no error")
			}
			if err := s.PutConversation(bad("kept")); err == nil {
				t.Fatal("put of a NaN: no error")
			}
			if d := cmp.Diff(before, indexed(s)); d != "" {
				t.Errorf("index after failed writes (-before +after):\n%s", d)
			}
			if !snap.Equal(mustSnapshot(t, s)) {
				t.Error("failed writes changed the data")
			}
			if n, err := s.CountConversations("us"); err != nil || n != 1 {
				t.Errorf("count: %d, %v; want 1", n, err)
			}
			if err := s.InsertConversation(mkConv("us", "acc", "proj", "new", base)); err != nil {
				t.Errorf("insert after the failed one: %v", err)
			}
		})
	}
}

func mustSnapshot(t *testing.T, s *Store) *Snapshot {
	t.Helper()
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestConvIndexRestore: a snapshot of a memory store (no lookup keys)
// restored into a data file writes the file's lookup keys, and one of a
// data file restored into a memory store writes none; both index the
// snapshot's records, and the file reopens (its check passes) with them.
func TestConvIndexRestore(t *testing.T) {
	mem := openMem(t)
	writeEveryWay(t, mem)
	want := indexed(mem)
	path := filepath.Join(t.TempDir(), "data.db")
	file, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := file.InsertConversation(mkConv("eu", "acc", "proj", "gone", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))); err != nil {
		t.Fatal(err)
	}
	if err := file.Restore(mustSnapshot(t, mem)); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, indexed(file)); d != "" {
		t.Errorf("file's index after restore (-want +got):\n%s", d)
	}
	if got := lookupKeys(t, file); len(got) != len(want) {
		t.Errorf("file's lookup keys %q: want %d", got, len(want))
	}
	file = reopen(t, file, path)
	if d := cmp.Diff(want, indexed(file)); d != "" {
		t.Errorf("file's index reopened (-want +got):\n%s", d)
	}
	other := openMem(t)
	if err := other.Restore(mustSnapshot(t, file)); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, indexed(other)); d != "" {
		t.Errorf("memory store's index after restoring the file's snapshot (-want +got):\n%s", d)
	}
	if keys := lookupKeys(t, other); len(keys) != 0 {
		t.Errorf("memory store holds lookup keys %q", keys)
	}
	if err := other.Restore(nil); err != nil {
		t.Fatal(err)
	}
	if got := indexed(other); len(got) != 0 {
		t.Errorf("index after restoring nothing: %v", got)
	}
}
