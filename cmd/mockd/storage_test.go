package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/agentplatform/mockplatform/store"
)

// TestDamagedDataFile: mockd does not start on a data file with a damaged
// record, and says which records (offset, key, reason: the damaged record
// and its index, the records repair moves) and how to repair them;
// `mockd repair` moves them aside; mockd then starts with the other
// records, and the damaged one is not found (never a 500).
func TestDamagedDataFile(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "mockd.db")
	s := startServer(t, []string{"--addr", "127.0.0.1:0", "--data", file}, env())
	kept, damaged := s.chatCreate(), s.chatCreate()
	if code := s.stop(); code != 0 {
		t.Fatalf("exit %d: %s", code, s.stderr)
	}
	// Zero bytes in the middle of the second conversation's record (the
	// value after its key: "/{id}\r\n$<length>\r\n<value>\r\n").
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// The last write of the record's key "c/…/{id}" (not of its lookup key
	// "ci/us/{id}", which ends the same way).
	i := len(data)
	for {
		i = bytes.LastIndex(data[:i], []byte("/"+damaged+"\r\n$"))
		if i < 0 {
			t.Fatalf("no record of %s in the file", damaged)
		}
		if !bytes.HasSuffix(data[:i], []byte("\r\nci/us")) {
			break
		}
	}
	i += len(damaged) + 4
	j := bytes.Index(data[i:], []byte("\r\n"))
	n, err := strconv.Atoi(string(data[i : i+j]))
	if err != nil || n < 16 {
		t.Fatalf("no value after the key of %s: %q", damaged, data[i:i+j])
	}
	v := data[i+j+2 : i+j+2+n]
	copy(v[n/2-8:], make([]byte, 8))
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}

	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"--addr", "127.0.0.1:0", "--data", file}, &out, &errOut, env(), nil); code != 1 {
		t.Fatalf("mockd on a damaged file: exit %d\n%s", code, errOut.String())
	}
	for _, want := range []string{
		"store: data file " + file + " has 2 damaged records\n",
		"key \"c/us/1001/2001/", "/" + damaged + "\": decode conversation: ",
		"mockd: run 'mockd repair --data " + file + "' to move the damaged records aside (into " + file + ".damaged) and keep the rest\n",
		"mockd: not started\n",
	} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}

	out.Reset()
	errOut.Reset()
	if code := run(context.Background(), []string{"repair", "--data", file}, &out, &errOut, env(), nil); code != 0 {
		t.Fatalf("repair: exit %d\n%s", code, errOut.String())
	}
	for _, want := range []string{file + ": moved 2 damaged records into " + file + ".damaged:\n", "/" + damaged + "\": decode conversation: ",
		"key \"ci/us/" + damaged + "\": index of a record that is not there", file + ": "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("repair output lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat(file + ".damaged"); err != nil {
		t.Fatal(err)
	}

	s = startServer(t, []string{"--addr", "127.0.0.1:0", "--data", file}, env())
	status, body := s.do("GET", "/runtime/us-1/v3/acme/support/conversations?limit=5000", "", "x-api-key", "test-conversations-key")
	if status != 200 || !strings.Contains(body, `"id":"`+kept+`"`) || strings.Contains(body, damaged) {
		t.Errorf("conversations after repair: %d, want %s and not %s: %.300s", status, kept, damaged, body)
	}
	out.Reset()
	if code := run(context.Background(), []string{"repair", "--data", file}, &out, &errOut, env(), nil); code != 0 ||
		!strings.Contains(out.String(), file+": no damaged records") {
		t.Errorf("repair of a sound file: %d %s %s", code, out.String(), errOut.String())
	}
}

// TestCutDataFile: a data file cut short by a crash, anywhere in its last
// writes, starts: one chat create, then the file cut by 10 bytes (which
// tears one of the create's records, the conversation or its index,
// whichever buntdb wrote last) starts, logs the torn record with its
// byte count and what it set right, and serves; and 40 cuts at random
// points of the last 20 KB of a file of chat traffic all start.
func TestCutDataFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "tiny.db")
	s := startServer(t, []string{"--addr", "127.0.0.1:0", "--data", file}, env())
	id := s.chatCreate()
	if code := s.stop(); code != 0 {
		t.Fatalf("exit %d: %s", code, s.stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data[:len(data)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	s = startServer(t, []string{"--addr", "127.0.0.1:0", "--data", file}, env())
	for _, want := range []string{"data file recovered", "the file ends inside a record (a write torn by a crash): its ", " bytes from byte "} {
		if !strings.Contains(s.stderr.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, s.stderr)
		}
	}
	if status, body := s.do("GET", "/runtime/us-1/v3/acme/support/conversations?limit=100", "", "x-api-key", "test-conversations-key"); status != 200 {
		t.Errorf("conversations after the cut: %d %s", status, body)
	}
	if code := s.stop(); code != 0 {
		t.Fatalf("exit %d: %s", code, s.stderr)
	}
	t.Logf("one create (%s), cut by 10 bytes: %s", id, s.stderr)

	// Chat traffic until the file holds 60 KB, then 40 random cuts in
	// its last 20 KB.
	file = filepath.Join(dir, "traffic.db")
	s = startServer(t, []string{"--addr", "127.0.0.1:0", "--data", file, "--log-level", "warn"}, env())
	for size := int64(0); size < 60<<10; {
		id := s.chatCreate()
		if status, body := s.do("POST", chatPath+"/respond", `{"conversation_id":"`+id+`","message":"I'd like to book a table"}`, chatHeaders...); status != 200 {
			t.Fatalf("respond: %d %s", status, body)
		}
		fi, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		size = fi.Size()
	}
	if code := s.stop(); code != 0 {
		t.Fatalf("exit %d: %s", code, s.stderr)
	}
	if data, err = os.ReadFile(file); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(36, uint64(len(data))))
	opened := 0
	for i := range 40 {
		cut := len(data) - 1 - rng.IntN(20<<10)
		p := filepath.Join(dir, fmt.Sprintf("cut-%d.db", i))
		if err := os.WriteFile(p, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		ctx, cancel := context.WithCancel(context.Background())
		code := run(ctx, []string{"--addr", "127.0.0.1:0", "--data", p, "--log-level", "warn"}, &out, &errOut, env(),
			func(string) { cancel() })
		cancel()
		if code != 0 {
			t.Errorf("cut at byte %d of %d: exit %d\n%s", cut, len(data), code, errOut.String())
			continue
		}
		opened++
	}
	t.Logf("%d of 40 random cuts in the last 20 KB of a %d-byte file started", opened, len(data))
}

// TestKillUnderWriteLoad kills a real mockd (SIGKILL) under write load ten
// times on the same data file, restarting it each time, and then checks
// that every write the mock acknowledged (a chat create answered 200) is
// in the file, which opens without damage.
func TestKillUnderWriteLoad(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts and kills mockd ten times")
	}
	file := filepath.Join(t.TempDir(), "mockd.db")
	var acked []string
	for round := range 10 {
		p := startProcess(t, "--addr", "127.0.0.1:0", "--data", file, "--log-level", "warn")
		ids := writeUntilKilled(t, p, 40)
		if len(ids) < 40 {
			t.Fatalf("round %d: only %d writes acknowledged before the kill", round, len(ids))
		}
		acked = append(acked, ids...)
	}
	st, err := store.Open(file)
	if err != nil {
		t.Fatalf("the data file after ten kills: %v", err)
	}
	defer st.Close()
	lost := 0
	for _, id := range acked {
		if _, err := st.GetConversation("us", id); err != nil {
			lost++
			t.Errorf("acknowledged conversation %s: %v", id, err)
		}
	}
	t.Logf("%d acknowledged writes over 10 kills, %d lost", len(acked), lost)
}

// writeUntilKilled creates chat conversations from four clients at once;
// once n have been acknowledged it kills the process while the writes go
// on, and returns the ids of every acknowledged one.
func writeUntilKilled(t *testing.T, p *process, n int) []string {
	t.Helper()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var mu sync.Mutex
	var ids []string
	enough := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				req, _ := http.NewRequest("POST", p.base+chatPath+"/create", nil)
				for i := 0; i+1 < len(chatHeaders); i += 2 {
					req.Header.Set(chatHeaders[i], chatHeaders[i+1])
				}
				resp, err := client.Do(req)
				if err != nil {
					return // killed
				}
				var v struct {
					ConversationID string `json:"conversation_id"`
				}
				err = json.NewDecoder(resp.Body).Decode(&v)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					continue // the answer was cut: not acknowledged
				}
				mu.Lock()
				ids = append(ids, v.ConversationID)
				if len(ids) >= n {
					once.Do(func() { close(enough) })
				}
				mu.Unlock()
			}
		}()
	}
	<-enough
	p.signal(syscall.SIGKILL)
	wg.Wait()
	if code := p.wait(); code != -1 {
		t.Fatalf("mockd exited with %d, not killed:\n%s", code, p.stderr.String())
	}
	mu.Lock()
	defer mu.Unlock()
	return append([]string(nil), ids...)
}
