package store

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// cutFileState is what a store holds after one of cutFile's writes.
type cutFileState struct {
	end      int64 // the file's size after the write
	convs    map[string]*Conversation
	handoffs map[string]*HandoffState // by conversation id
}

// cutFile writes a small data file of eight writes (conversations created,
// turns appended with strings entering the string table, a handoff state
// with its shared id, a document, a retention drop) and returns its bytes
// and the state after each write.
func cutFile(t *testing.T) ([]byte, []cutFileState) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ids := []string{"c1", "c2", "c3"}
	var states []cutFileState
	snap := func() {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		st := cutFileState{end: fi.Size(), convs: map[string]*Conversation{}, handoffs: map[string]*HandoffState{}}
		for _, id := range ids {
			if c, err := s.GetConversation("us", id); err == nil {
				st.convs[id] = c
			} else if !errors.Is(err, ErrNotFound) {
				t.Fatal(err)
			}
			if h, err := s.GetHandoffState("us", "acc", "proj", id, ""); err == nil {
				st.handoffs[id] = h
			} else if !errors.Is(err, ErrNotFound) {
				t.Fatal(err)
			}
		}
		states = append(states, st)
	}
	snap()
	create := func(id string, at time.Duration) {
		t.Helper()
		c := mkConv("us", "acc", "proj", id, base.Add(at))
		c.Turns = c.Turns[:1]
		if err := s.InsertConversation(c); err != nil {
			t.Fatal(err)
		}
		snap()
	}
	appendTurn := func(id, text string) {
		t.Helper()
		_, err := s.AppendTurns("us", id, func(c *Conversation) error {
			c.Turns = append(c.Turns, Turn{UserInput: text, AgentResponse: "Of course: " + text, Intents: []string{"intent-" + text},
				UserInputAt: base, AgentResponseAt: base})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		snap()
	}
	create("c1", 0)
	create("c2", time.Hour)
	appendTurn("c1", "a private room")
	h := &HandoffState{Region: "us", AccountID: "acc", ProjectID: "proj", ID: "c2", SharedID: "sh-c2", Data: map[string]any{"k": "v"}, CreatedAt: base}
	if err := s.PutHandoffState(h); err != nil {
		t.Fatal(err)
	}
	snap()
	create("c3", 2*time.Hour)
	appendTurn("c3", "a table by the window")
	appendTurn("c3", "a table by the window")
	if err := s.PutDoc("agent", "us", "a1", rule{ID: "a1"}); err != nil {
		t.Fatal(err)
	}
	snap()
	if n, err := s.DropConversationsBefore(base.Add(30 * time.Minute)); err != nil || n != 1 {
		t.Fatalf("retention: %d %v", n, err)
	}
	snap()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) != states[len(states)-1].end {
		t.Fatalf("file of %d bytes, the last write ended at %d", len(data), states[len(states)-1].end)
	}
	return data, states
}

// TestOpenAtEveryCut cuts a small data file at every byte offset of its
// last six writes (a crash that tears the last write anywhere, inside a
// record or between two): each cut file opens, every write before the
// cut one is there as it was written, the cut one is either there or not
// for each record it touched (never a mix within a record), and Recovery
// says what was dropped: a torn record with its byte count. The file then
// opens again with nothing to recover.
func TestOpenAtEveryCut(t *testing.T) {
	t.Parallel()
	data, states := cutFile(t)
	dir := t.TempDir()
	from := states[len(states)-7].end
	torn := 0
	for cut := from; cut <= int64(len(data)); cut++ {
		w := 0 // the last whole write
		for w+1 < len(states) && states[w+1].end <= cut {
			w++
		}
		next := states[min(w+1, len(states)-1)]
		p := filepath.Join(dir, fmt.Sprintf("cut-%d.db", cut))
		if err := os.WriteFile(p, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(p)
		if err != nil {
			t.Fatalf("cut at byte %d (of %d): %v", cut, len(data), err)
		}
		for _, id := range []string{"c1", "c2", "c3"} {
			got, err := s.GetConversation("us", id)
			if err != nil && !errors.Is(err, ErrNotFound) {
				t.Fatalf("cut at byte %d: conversation %s: %v", cut, id, err)
			}
			if !cmp.Equal(got, states[w].convs[id], cmpOpts...) && (cut == states[w].end || !cmp.Equal(got, next.convs[id], cmpOpts...)) {
				t.Fatalf("cut at byte %d (after write %d): conversation %s is neither as before the cut write nor after it: %s",
					cut, w, id, cmp.Diff(states[w].convs[id], got, cmpOpts...))
			}
			hs, err := s.GetHandoffState("us", "acc", "proj", id, "")
			if err != nil && !errors.Is(err, ErrNotFound) {
				t.Fatalf("cut at byte %d: handoff state %s: %v", cut, id, err)
			}
			if !cmp.Equal(hs, states[w].handoffs[id], cmpOpts...) && !cmp.Equal(hs, next.handoffs[id], cmpOpts...) {
				t.Fatalf("cut at byte %d: handoff state %s: %+v", cut, id, hs)
			}
		}
		rec := s.Recovery()
		switch {
		case cut == states[w].end && rec != nil:
			t.Fatalf("cut at byte %d, after write %d: recovery %+v of a whole file", cut, w, rec)
		case rec != nil && rec.Tail != nil:
			torn++
			if rec.Tail.Offset+rec.Tail.Bytes != cut || rec.Tail.Bytes <= 0 {
				t.Fatalf("cut at byte %d: tail %+v", cut, rec.Tail)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		again, err := Open(p)
		if err != nil {
			t.Fatalf("cut at byte %d, opened again: %v", cut, err)
		}
		if rec := again.Recovery(); rec != nil {
			t.Fatalf("cut at byte %d, opened again: recovery %+v", cut, rec)
		}
		if err := again.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	if torn == 0 {
		t.Fatal("no cut tore a record")
	}
	t.Logf("%d cuts from byte %d to %d, %d inside a record", int64(len(data))-from+1, from, len(data), torn)
}

// writeOf runs one write on a store over a copy of data and returns the
// records it appended, by key, and the keys of its string table entries.
func writeOf(t *testing.T, data []byte, write func(s *Store) error) (map[string][]byte, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "whole.db")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := write(s); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cmds, _, _ := aofScan(whole[len(data):])
	recs := map[string][]byte{}
	var strKeys []string
	for _, c := range cmds {
		recs[c.parts[1]] = whole[len(data)+int(c.off) : len(data)+int(c.end)]
		if strings.HasPrefix(c.parts[1], pfxStr) {
			strKeys = append(strKeys, c.parts[1])
		}
	}
	if len(strKeys) == 0 {
		t.Fatal("the write enters no string")
	}
	slices.SortFunc(strKeys, func(a, b string) int { x, _ := strIndexOf(a); y, _ := strIndexOf(b); return x - y })
	return recs, strKeys
}

// TestOpenMendsCutWrite: the records a write cut between two of its
// records leaves inconsistent are set right, and Recovery says so (no
// torn record: the file lost records, and start-up says which).
func TestOpenMendsCutWrite(t *testing.T) {
	t.Parallel()
	_, data := dataFile(t)
	c4 := mkConv("us", "acc", "proj", "c4", base.Add(time.Hour))
	for i := range c4.Turns {
		c4.Turns[i].AgentResponse = "A reply only this conversation has." // a new string, twice: it enters the table
	}
	create, created := writeOf(t, data, func(s *Store) error { return s.InsertConversation(c4) })
	var strs [][]byte
	for _, k := range created {
		strs = append(strs, create[k])
	}
	c3 := mkConv("us", "acc", "proj", "c3", base)
	update, updated := writeOf(t, data, func(s *Store) error {
		_, err := s.AppendTurns("us", "c3", func(c *Conversation) error {
			for range 2 {
				c.Turns = append(c.Turns, Turn{UserInput: "a new question", AgentResponse: "A new answer.", UserInputAt: base, AgentResponseAt: base})
			}
			return nil
		})
		return err
	})
	lacks := func(strKey string) string {
		return "decode conversation: a string (" + strings.TrimPrefix(strKey, pfxStr) + ") that the string table lacks"
	}
	convRec, idxRec := create[convKey(c4)], create[convIDKey("us", "c4")]
	for _, tc := range []struct {
		name    string
		records [][]byte
		found   bool // c4 is there, as created
		mended  []Mend
		rebuilt []string
	}{
		{"the conversation without its index", append(slices.Clone(strs), convRec), true, nil, []string{convIDKey("us", "c4")}},
		{"the index without its conversation", [][]byte{idxRec}, false,
			[]Mend{{Key: convIDKey("us", "c4"), Reason: fmt.Sprintf("index of a record that is not there (%q)", convKey(c4))}}, nil},
		{"the conversation and its index without its strings", [][]byte{convRec, idxRec}, false, []Mend{
			{Key: convKey(c4), Reason: lacks(created[0])},
			{Key: convIDKey("us", "c4"), Reason: fmt.Sprintf("index of a record that is not there (%q)", convKey(c4))},
		}, nil},
		{"an update without its new strings", [][]byte{update[convKey(c3)]}, false, []Mend{
			{Key: convKey(c3), Reason: lacks(updated[0]), Restored: true},
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "data.db")
			if err := os.WriteFile(p, append(bytes.Clone(data), bytes.Join(tc.records, nil)...), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			got, err := s.GetConversation("us", "c4")
			if tc.found && (err != nil || !cmp.Equal(got, c4, cmpOpts...)) || !tc.found && !errors.Is(err, ErrNotFound) {
				t.Fatalf("c4: %v %v", got, err)
			}
			if got, err := s.GetConversation("us", "c3"); err != nil || !cmp.Equal(got, c3, cmpOpts...) {
				t.Fatalf("c3 is not as it was before the cut write: %v %s", err, cmp.Diff(c3, got, cmpOpts...))
			}
			want := &Recovery{Mended: tc.mended, Rebuilt: tc.rebuilt}
			if diff := cmp.Diff(want, s.Recovery()); diff != "" {
				t.Fatalf("recovery (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStartupReportIsRepairs changes random bytes of a data file, again
// and again: the damaged records that Open names (offset, key, reason)
// are exactly those Repair moves aside, in the same order, and after the
// repair the file opens with nothing to recover.
func TestStartupReportIsRepairs(t *testing.T) {
	t.Parallel()
	data, _ := cutFile(t)
	damaged := 0
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 36))
		b := bytes.Clone(data)
		for range 20 {
			b[rng.IntN(len(b))] = byte(rng.IntN(256))
		}
		p := filepath.Join(t.TempDir(), "data.db")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(p)
		var de *DamageError
		switch {
		case err == nil:
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		case !errors.As(err, &de):
			t.Fatalf("seed %d: Open = %v, want a DamageError", seed, err)
		}
		after, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if de != nil && !bytes.Equal(after, b) {
			t.Fatalf("seed %d: Open changed a file it refused", seed)
		}
		rep, err := Repair(p)
		if err != nil {
			t.Fatalf("seed %d: Repair: %v", seed, err)
		}
		var moved []Damage
		for _, d := range rep.Moved {
			d.Raw = nil
			moved = append(moved, d)
		}
		var named []Damage
		if de != nil {
			named = de.Damages
			damaged++
		}
		if diff := cmp.Diff(moved, named); diff != "" {
			t.Fatalf("seed %d: Open named (+) what Repair did not move (-):\n%s", seed, diff)
		}
		s, err = Open(p)
		if err != nil {
			t.Fatalf("seed %d: Open after Repair: %v", seed, err)
		}
		if rec := s.Recovery(); rec != nil {
			t.Errorf("seed %d: recovery after Repair: %+v", seed, rec)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if damaged < 30 {
		t.Fatalf("only %d of 40 files damaged", damaged)
	}
}
