package store

import (
	"path/filepath"
	"testing"

	json "github.com/goccy/go-json"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/buntdb"
)

// TestMigrateJSONRecords: a data file whose conversation records are JSON
// (the format before the compact one) opens with every record rewritten
// in the compact encoding, reading back the same, also after a reopen.
func TestMigrateJSONRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*Conversation{}
	err = s.update(func(tx *buntdb.Tx) error {
		for i, c := range []*Conversation{mkConv("us", "a", "p", "c1", base), fullConv(), mkConv("eu", "a/b", "p%", "c/3", base)} {
			if i == 1 {
				c.Region, c.AccountID, c.ProjectID, c.ID, c.StartedAt = "us", "a", "p", "c2", base
			}
			raw, err := json.Marshal(c)
			if err != nil {
				return err
			}
			if err := set(tx, convKey(c), string(raw)); err != nil {
				return err
			}
			if err := set(tx, convIDKey(c.Region, c.ID), convKey(c)); err != nil {
				return err
			}
			if want[c.ID], err = decodeConvJSON(string(raw)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		s, err := Open(path)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		err = s.view(func(tx *buntdb.Tx) error {
			return scanPrefix(tx, pfxConv, func(k, v string) bool {
				if v[0] != recBinary {
					t.Errorf("round %d: %s not migrated: %.40q", round, k, v)
				}
				return true
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		for id, w := range want {
			got, err := s.GetConversation(w.Region, id)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(w, got, exactTime); d != "" {
				t.Errorf("round %d: %s (-want +got):\n%s", round, id, d)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
