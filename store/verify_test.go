package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// dataFile writes a data file of three conversations (c1, c2, c3, each
// with its index), a handoff state with a shared id and a document, and
// returns its path and content.
func dataFile(t *testing.T) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"c1", "c2", "c3"} {
		if err := s.InsertConversation(mkConv("us", "acc", "proj", id, base)); err != nil {
			t.Fatal(err)
		}
	}
	h := &HandoffState{Region: "us", AccountID: "acc", ProjectID: "proj", ID: "c1", SharedID: "sh", Data: map[string]any{"k": "v"}, CreatedAt: base}
	if err := s.PutHandoffState(h); err != nil {
		t.Fatal(err)
	}
	if err := s.PutDoc("agent", "us", "a1", rule{ID: "a1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

// setOf is the offset of the SET command of key in data, and the offset
// of its value.
func setOf(t *testing.T, data []byte, key string) (cmd, value int) {
	t.Helper()
	k := fmt.Sprintf("*3\r\n$3\r\nset\r\n$%d\r\n%s\r\n", len(key), key)
	cmd = bytes.Index(data, []byte(k))
	if cmd < 0 {
		t.Fatalf("no record %q in the file", key)
	}
	j := cmd + len(k)
	value = j + bytes.Index(data[j:], []byte("\r\n")) + 2
	return cmd, value
}

// shifted is offset off after n bytes were inserted at at.
func shifted(off, at, n int) int {
	if off > at {
		return off + n
	}
	return off
}

// lastWriteOf is the last record of key in data.
func lastWriteOf(t *testing.T, data []byte, key string) aofCmd {
	t.Helper()
	cmds, _, _ := aofScan(data)
	for i := len(cmds) - 1; i >= 0; i-- {
		if len(cmds[i].parts) > 1 && cmds[i].parts[1] == key {
			return cmds[i]
		}
	}
	t.Fatalf("no record %q in the file", key)
	return aofCmd{}
}

// TestOpenChecksDataFile: a damaged data file does not open; the error
// names each damaged record's offset, key and reason: the records Repair
// would move (TestStartupReportIsRepairs). A write torn at the end of the
// file (a crash) is no damage: the file opens without it, and so does a
// file that lost an index, which is written anew; Recovery says what was
// done.
func TestOpenChecksDataFile(t *testing.T) {
	t.Parallel()
	_, data := dataFile(t)
	c2 := convKey(mkConv("us", "acc", "proj", "c2", base))
	cmd2, val2 := setOf(t, data, c2)
	cmdDoc, _ := setOf(t, data, docKey("agent", "us", "a1"))
	lenLine := cmd2 + len("*3\r\n")             // the length line of the SET's first part
	keyLen := cmd2 + len("*3\r\n$3\r\nset\r\n") // the length line of its key
	idx2, _ := setOf(t, data, convIDKey("us", "c2"))
	idx1 := lastWriteOf(t, data, convIDKey("us", "c1"))
	torn := "*3\r\n$3\r\nset\r\n$5\r\nd/x/y\r\n$10\r\n{\"a\":"

	for _, tc := range []struct {
		name string
		edit func(b []byte) []byte
		want []Damage
		// The file opens, with this recovery.
		keeps    bool
		recovery *Recovery
	}{
		{"zero bytes in a value", func(b []byte) []byte {
			copy(b[val2+100:], make([]byte, 64))
			return b
		}, []Damage{
			{Offset: int64(cmd2), Key: c2, Reason: "decode conversation: "},
			{Offset: int64(idx2), Key: convIDKey("us", "c2"), Reason: "index of a record that is not there"},
		}, false, nil},
		{"a broken length line", func(b []byte) []byte {
			b[lenLine] = 'x'
			return b
		}, []Damage{
			{Offset: int64(cmd2), Reason: `want '$' and a number, found "x3\r\n"`},
			{Offset: int64(idx2), Key: convIDKey("us", "c2"), Reason: "index of a record that is not there"},
		}, false, nil},
		{"a length running past the end", func(b []byte) []byte {
			// A length this large would make buntdb cut the file here.
			return append(append(b[:keyLen:keyLen], "$99999999"...), b[keyLen+3:]...)
		}, []Damage{
			{Offset: int64(cmd2), Reason: "the file ends inside this record"},
			{Offset: int64(shifted(idx2, keyLen, len("$99999999")-3)), Key: convIDKey("us", "c2"), Reason: "index of a record that is not there"},
		}, false, nil},
		{"a damaged document", func(b []byte) []byte {
			_, v := setOf(t, b, docKey("agent", "us", "a1"))
			b[v] = '!'
			return b
		}, []Damage{{Offset: int64(cmdDoc), Key: docKey("agent", "us", "a1"), Reason: "decode document: not valid JSON"}}, false, nil},
		{"an index lost in the middle", func(b []byte) []byte {
			return append(b[:idx1.off:idx1.off], b[idx1.end:]...)
		}, nil, true, &Recovery{Rebuilt: []string{convIDKey("us", "c1")}}},
		{"an index deleted by the last write", func(b []byte) []byte {
			return append(b, []byte(fmt.Sprintf("*2\r\n$3\r\ndel\r\n$%d\r\n%s\r\n", len(convIDKey("us", "c3")), convIDKey("us", "c3")))...)
		}, nil, true, &Recovery{Rebuilt: []string{convIDKey("us", "c3")}}},
		{"a torn last write", func(b []byte) []byte {
			return append(b, torn...)
		}, nil, true, &Recovery{Tail: &Tail{Offset: int64(len(data)), Bytes: int64(len(torn)), Key: "d/x/y"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "data.db")
			if err := os.WriteFile(p, tc.edit(bytes.Clone(data)), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := Open(p)
			if tc.keeps {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				defer s.Close()
				for _, id := range []string{"c1", "c2", "c3"} {
					if _, err := s.GetConversation("us", id); err != nil {
						t.Fatalf("conversation %s: %v", id, err)
					}
				}
				if diff := cmp.Diff(tc.recovery, s.Recovery()); diff != "" {
					t.Fatalf("recovery (-want +got):\n%s", diff)
				}
				return
			}
			var de *DamageError
			if !errors.As(err, &de) {
				t.Fatalf("Open = %v, want a DamageError", err)
			}
			if de.File != p {
				t.Errorf("file %q, want %q", de.File, p)
			}
			got := de.Damages
			for i := range got {
				if i < len(tc.want) && strings.HasPrefix(got[i].Reason, tc.want[i].Reason) {
					got[i].Reason = tc.want[i].Reason // the decoder's own words follow
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("damage (-want +got):\n%s\nerror: %v", diff, err)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("store: data file %s has %d damaged record", p, len(tc.want))) {
				t.Errorf("message: %v", err)
			}
		})
	}
}

// TestRepair: repair moves each damaged record into the sidecar (with its
// offset, key, reason and bytes), keeps every other record, rebuilds lost
// indexes, and leaves a file that opens; a second repair finds nothing.
func TestRepair(t *testing.T) {
	t.Parallel()
	_, data := dataFile(t)
	c2 := convKey(mkConv("us", "acc", "proj", "c2", base))
	cmd2, val2 := setOf(t, data, c2)
	damaged := bytes.Clone(data)
	copy(damaged[val2+100:], make([]byte, 64))
	// A broken record header further on, and a lost index.
	cmdDoc, _ := setOf(t, damaged, docKey("agent", "us", "a1"))
	damaged[cmdDoc] = '#'
	damaged = append(damaged, []byte(fmt.Sprintf("*2\r\n$3\r\ndel\r\n$%d\r\n%s\r\n", len(convIDKey("us", "c3")), convIDKey("us", "c3")))...)

	p := filepath.Join(t.TempDir(), "data.db")
	if err := os.WriteFile(p, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Repair(p)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sidecar != p+".damaged" || len(rep.Moved) != 3 || rep.Moved[0].Offset != int64(cmdDoc) ||
		rep.Moved[1].Key != c2 || rep.Moved[1].Offset != int64(cmd2) || rep.Moved[2].Key != convIDKey("us", "c2") {
		t.Fatalf("report %+v", rep)
	}
	if diff := cmp.Diff([]string{convIDKey("us", "c3")}, rep.Rebuilt); diff != "" {
		t.Fatalf("rebuilt (-want +got):\n%s", diff)
	}
	// The sidecar holds every damaged byte.
	f, err := os.Open(rep.Sidecar)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []sidecarLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l sidecarLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if len(lines) != 3 || lines[1].Key != c2 || lines[1].Value != string(damaged[val2:val2+len(lines[1].Value)]) ||
		!strings.HasPrefix(lines[0].Value, "#3\r\n$3\r\nset\r\n") {
		t.Fatalf("sidecar lines %+v", lines)
	}

	s, err := Open(p)
	if err != nil {
		t.Fatalf("Open after repair: %v", err)
	}
	for id, want := range map[string]bool{"c1": true, "c2": false, "c3": true} {
		if _, err := s.GetConversation("us", id); (err == nil) != want {
			t.Errorf("conversation %s after repair: %v", id, err)
		}
	}
	if _, err := s.GetHandoffState("us", "acc", "proj", "", "sh"); err != nil {
		t.Errorf("handoff state after repair: %v", err)
	}
	if err := s.GetDoc("agent", "us", "a1", new(rule)); !errors.Is(err, ErrNotFound) {
		t.Errorf("the document in the damaged record: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Repair(p)
	if err != nil || again.Sidecar != "" || len(again.Moved) != 0 || len(again.Rebuilt) != 0 {
		t.Fatalf("second repair: %+v %v", again, err)
	}
}
