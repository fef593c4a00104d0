package journal

// The journal on its own: the ring, its filters, its copies, redaction;
// handlers/journal_test.go checks what the edge journals.

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/internal/jsonw"
)

func TestJournalRedaction(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, want string
	}{
		{"no secret kept verbatim", `{ "message" : "hi",  "n": 1 }`, `{ "message" : "hi",  "n": 1 }`},
		{"empty", ``, ``},
		{"every secret field, nested", `{"access_token":"a","n":{"signing_secret":"s"},"l":[{"secret":"x"}],"token":5,"api_key":"k","password":"p"}`,
			`{"access_token":"[REDACTED]","api_key":"[REDACTED]","l":[{"secret":"[REDACTED]"}],"n":{"signing_secret":"[REDACTED]"},"password":"[REDACTED]","token":"[REDACTED]"}`},
		{"secret object replaced whole", `{"token":{"value":"v","exp":1}}`, `{"token":"[REDACTED]"}`},
		{"names that only contain a secret name", `{"tokens":["a"],"secretary":"b"}`, `{"tokens":["a"],"secretary":"b"}`},
		{"a secret name as a value", `{"kind":"token"}`, `{"kind":"token"}`},
		{"truncated", `{"message":"hi","token":"abc`, "[body withheld: it names a secret field and is not complete JSON]"},
		{"array top level", `[{"token":"t"}]`, `[{"token":"[REDACTED]"}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := redactBody([]byte(tc.in)); got != tc.want {
				t.Fatalf("redactBody(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"page=2&limit=5", "page=2&limit=5"},
		{"token=abc&page=2", "page=2&token=%5BREDACTED%5D"},
		{"access_token=a&access_token=b", "access_token=%5BREDACTED%5D"},
		{"a=%zz", "[unparsable query]"},
	} {
		if got := redactQuery(tc.in); got != tc.want {
			t.Errorf("redactQuery(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	got := redactHeader(http.Header{"x-api-key": {"k"}, "X-Token": {"t"}, "Accept": {"a", "b"}})
	want := map[string][]string{"x-api-key": {Redacted}, "X-Token": {Redacted}, "Accept": {"a", "b"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("redactHeader (-want +got):\n%s", diff)
	}
}

func TestJournalRing(t *testing.T) {
	t.Parallel()
	j := New(3, 0)
	if j.BodyLimit() != DefaultBodyBytes {
		t.Fatalf("BodyLimit = %d", j.BodyLimit())
	}
	if got := j.List(Filter{}); len(got) != 0 {
		t.Fatalf("empty journal lists %d", len(got))
	}
	for i := range 5 {
		j.Append(Entry{Path: fmt.Sprint("/", i)})
	}
	var seqs []int64
	var paths []string
	for _, e := range j.List(Filter{}) {
		seqs = append(seqs, e.Seq)
		paths = append(paths, e.Path)
	}
	if diff := cmp.Diff([]int64{3, 4, 5}, seqs); diff != "" {
		t.Fatalf("seqs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/2", "/3", "/4"}, paths); diff != "" {
		t.Fatalf("paths (-want +got):\n%s", diff)
	}
	j.Reset(2, 7)
	if got := j.List(Filter{}); len(got) != 0 || j.BodyLimit() != 7 {
		t.Fatalf("after Reset: %d entries, body limit %d", len(got), j.BodyLimit())
	}
	j.Append(Entry{})
	if got := j.List(Filter{}); got[0].Seq != 1 {
		t.Fatalf("seq after Reset = %d, want 1", got[0].Seq)
	}
	d := New(0, 0)
	d.mu.Lock()
	size := d.size
	d.mu.Unlock()
	if size != DefaultSize {
		t.Fatalf("default size %d, want %d", size, DefaultSize)
	}
}

// TestJournalChanged: the channel of Changed is closed by the next Append
// and by Reset, and a new one is handed out after.
func TestJournalChanged(t *testing.T) {
	t.Parallel()
	j := New(2, 0)
	closed := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	ch := j.Changed()
	if closed(ch) || j.Changed() != ch {
		t.Fatal("a fresh journal's Changed is closed or not shared")
	}
	j.Append(Entry{})
	if !closed(ch) {
		t.Fatal("Append did not close Changed")
	}
	if j.Seq() != 1 {
		t.Fatalf("Seq after one entry: %d", j.Seq())
	}
	ch = j.Changed()
	if closed(ch) {
		t.Fatal("Changed after Append is already closed")
	}
	j.Reset(2, 0)
	if !closed(ch) {
		t.Fatal("Reset did not close Changed")
	}
	if j.Seq() != 0 {
		t.Fatalf("Seq after Reset: %d", j.Seq())
	}
}

func TestJournalFilter(t *testing.T) {
	t.Parallel()
	j := New(0, 0)
	for _, e := range []Entry{
		{Family: "chat", Method: "POST", Path: "/runtime/us-1/v1/a/p/chat/create", Status: 200},
		{Family: "chat", Method: "POST", Path: "/runtime/us-1/v1/a/p/chat/respond", Status: 404},
		{Family: "agents", Method: "GET", Path: "/builder/us/v1/agents", Status: 200},
		{Family: "chat", Method: "PUT", Path: "/runtime/us-1/v1/a/p/chat/close", Status: 200},
		{Method: "GET", Path: "/nothing", Status: 404},
	} {
		j.Append(e)
	}
	for _, tc := range []struct {
		name string
		f    Filter
		want []int64
	}{
		{"all", Filter{}, []int64{1, 2, 3, 4, 5}},
		{"family", Filter{Family: "chat"}, []int64{1, 2, 4}},
		{"method any case", Filter{Method: "post"}, []int64{1, 2}},
		{"path substring", Filter{Path: "/chat/"}, []int64{1, 2, 4}},
		{"status", Filter{Status: 404}, []int64{2, 5}},
		{"combined", Filter{Family: "chat", Status: 200, Method: "PUT"}, []int64{4}},
		{"limit keeps the newest", Filter{Family: "chat", Limit: 2}, []int64{2, 4}},
		{"limit above count", Filter{Limit: 50}, []int64{1, 2, 3, 4, 5}},
		{"none", Filter{Family: "dni"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int64
			for _, e := range j.List(tc.f) {
				got = append(got, e.Seq)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("seqs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJournalListReturnsCopies(t *testing.T) {
	t.Parallel()
	j := New(0, 0)
	j.Append(Entry{RequestHeader: map[string][]string{"Accept": {"a"}}, Warnings: []string{"w"}})
	got := j.List(Filter{})
	got[0].RequestHeader["Accept"][0] = "changed"
	got[0].RequestHeader["New"] = []string{"x"}
	got[0].Warnings[0] = "changed"
	again := j.List(Filter{})[0]
	if again.RequestHeader["Accept"][0] != "a" || len(again.RequestHeader) != 1 || again.Warnings[0] != "w" {
		t.Fatalf("List shares memory with the journal: %+v", again)
	}
}

func TestJournalConcurrent(t *testing.T) {
	t.Parallel()
	j := New(50, 0)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				j.Append(Entry{Family: "chat"})
				_ = j.List(Filter{Family: "chat", Limit: 5})
			}
		})
	}
	wg.Wait()
	got := j.List(Filter{})
	if len(got) != 50 || got[0].Seq != 751 || got[49].Seq != 800 {
		t.Fatalf("after 800 appends: %d entries, seq %d..%d", len(got), got[0].Seq, got[len(got)-1].Seq)
	}
}

// TestRedactSecretFields: nested secret fields of a JSON body and a
// query's secret parameter are redacted.
func TestRedactSecretFields(t *testing.T) {
	t.Parallel()
	if got := redactBody([]byte(`{"access_token":"abc","x":{"signing_secret":"s"}}`)); got != `{"access_token":"[REDACTED]","x":{"signing_secret":"[REDACTED]"}}` {
		t.Fatalf("redactBody = %s", got)
	}
	if got := redactQuery("session_id=1&access_token=abc"); strings.Contains(got, "abc") {
		t.Fatalf("redactQuery = %s", got)
	}
}

// TestAddRawRedactsWhenListed: an entry added with raw pieces is listed
// redacted, with its bodies cut to the limit, the first time and after.
func TestAddRawRedactsWhenListed(t *testing.T) {
	t.Parallel()
	j := New(0, 16)
	j.AddRaw(Raw{Entry: Entry{Method: "POST", Path: "/p"}, RawQuery: "token=abc&x=1",
		Header:  http.Header{"X-Api-Key": {"k"}, "Content-Type": {"application/json"}},
		Request: []byte(`{"token":"t"}`), Response: []byte(`{"a":"0123456789abcdef"}`)})
	want := []Entry{{Seq: 1, Method: "POST", Path: "/p", Query: "token=%5BREDACTED%5D&x=1",
		RequestHeader: map[string][]string{"X-Api-Key": {Redacted}, "Content-Type": {"application/json"}},
		RequestBody:   `{"token":"[REDACTED]"}`, ResponseBody: `{"a":"0123456789`}}
	for range 2 {
		if diff := cmp.Diff(want, j.List(Filter{})); diff != "" {
			t.Fatalf("entries (-want +got):\n%s", diff)
		}
	}
}

// TestAddRawGivesBufferBack: the answer buffer of an entry (Raw.Buf) is
// listed while the entry lives, and goes back to the pool (emptied) when
// the entry is overwritten unread.
func TestAddRawGivesBufferBack(t *testing.T) {
	t.Parallel()
	for _, list := range []bool{true, false} {
		j := New(1, 0)
		buf := jsonw.GetBuf()
		*buf = append((*buf)[:0], `{"a":1}`...)
		j.AddRaw(Raw{Response: *buf, Buf: buf})
		if !list {
			j.Append(Entry{})
			if len(*buf) != 0 {
				t.Fatalf("the overwritten entry's buffer was not given back: %q", *buf)
			}
			continue
		}
		if got := j.List(Filter{})[0].ResponseBody; got != `{"a":1}` || len(*buf) == 0 {
			t.Fatalf("response body %q, buffer %q", got, *buf)
		}
	}
}
