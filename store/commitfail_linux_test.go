//go:build linux

package store

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/buntdb"
)

// A data file's write can fail after the store's transaction function
// succeeded (buntdb's commit: a full disk). These tests make the file
// unable to grow (RLIMIT_FSIZE, the process's limit on the size of the
// files it writes; none of these tests runs in parallel with others) and
// write more than it takes.

// limitFileGrowth makes writes past path's size plus slack fail (EFBIG),
// as a full disk would, until the test ends.
func limitFileGrowth(t *testing.T, path string, slack int64) {
	t.Helper()
	signal.Ignore(syscall.SIGXFSZ) // the error, not the signal
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	lim := syscall.Rlimit{Cur: uint64(fi.Size() + slack), Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			t.Error(err)
		}
	})
}

func openFile(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// TestFailedCommitChangesNothing: a write whose commit fails (after it
// moved the record, indexed it and entered strings in the table) leaves
// the data, the lookup keys, the string table and reads as they were, and
// the file opens again with them.
func TestFailedCommitChangesNothing(t *testing.T) {
	s, path := openFile(t)
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	if err := s.InsertConversation(mkConv("us", "acc", "proj", "y", base)); err != nil {
		t.Fatal(err)
	}
	before, beforeTab, beforeIdx := mustSnapshot(t, s), s.tab.load(), indexed(s)
	limitFileGrowth(t, path, 64<<10)
	_, err := s.UpdateConversation("us", "y", func(c *Conversation) error {
		c.StartedAt = c.StartedAt.Add(time.Hour) // a new primary key
		c.VariantName = "a name the table enters"
		for range 2 { // a string enters the table on its second write
			c.Turns = append(c.Turns, Turn{AgentResponse: "a reply the table enters", UserInputAt: base})
		}
		c.State["big"] = strings.Repeat("x", 1<<20) // more than the file takes
		return nil
	})
	if err == nil {
		t.Fatal("a write larger than the file may grow: no error")
	}
	if !before.Equal(mustSnapshot(t, s)) {
		t.Error("the failed write changed the data")
	}
	if d := cmp.Diff(beforeTab, s.tab.load()); d != "" {
		t.Errorf("string table (-before +after):\n%s", d)
	}
	if d := cmp.Diff(beforeIdx, indexed(s)); d != "" {
		t.Errorf("lookup index (-before +after):\n%s", d)
	}
	if _, err := s.GetConversation("us", "y"); err != nil {
		t.Errorf("get after the failed write: %v", err)
	}
	s = reopen(t, s, path)
	if _, err := s.GetConversation("us", "y"); err != nil {
		t.Errorf("get after reopening: %v", err)
	}
}

// TestFailedCommitUndoneBeforeOtherWrites: what a write whose commit
// failed changed in memory is undone before any other write runs. Others
// write all the while (puts of the conversation the failing updates move,
// restores that empty the store): each conversation keeps one record and
// its lookup key, and nothing panics (an undo of string table entries after
// a restore did).
func TestFailedCommitUndoneBeforeOtherWrites(t *testing.T) {
	s, path := openFile(t)
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	if err := s.InsertConversation(mkConv("us", "acc", "proj", "y", base)); err != nil {
		t.Fatal(err)
	}
	limitFileGrowth(t, path, 8<<20)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				if g == 0 {
					_ = s.Restore(nil) // may fail when the file is full
					continue
				}
				c := mkConv("us", "acc", "proj", "y", base.Add(time.Duration(g*1_000_000+i)*time.Second))
				c.Turns = nil
				_ = s.PutConversation(c) // may fail when the file is full
			}
		}()
	}
	big := strings.Repeat("x", 16<<20)
	for i := range 200 {
		_, _ = s.UpdateConversation("us", "y", func(c *Conversation) error {
			c.StartedAt = c.StartedAt.Add(-time.Hour)
			c.VariantName = fmt.Sprint("variant ", i/2) // enters the table on its second write
			c.State["big"] = big                        // more than the file takes: the commit fails
			return nil
		})
		err := s.view(func(tx *buntdb.Tx) error {
			var recs []string
			err := scanPrefix(tx, pfxConv, func(k, _ string) bool { recs = append(recs, k); return true })
			ci, _, _ := get(tx, convIDKey("us", "y"))
			if err == nil && len(recs) > 1 || len(recs) == 1 && recs[0] != ci {
				t.Errorf("write %d: records %q, lookup key → %q", i, recs, ci)
			}
			return err
		})
		if err != nil || t.Failed() {
			break
		}
	}
	stop.Store(true)
	wg.Wait()
}
