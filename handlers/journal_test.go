package handlers

// The request journal (docs/api.md#control-journal): every request and
// response with the virtual time, family, method, path, status, redacted
// headers, bounded bodies, the fault applied and warnings; a bounded ring;
// filters.

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/internal/jsonw"

	"github.com/gin-gonic/gin"
	"github.com/google/go-cmp/cmp"
)

// journalAll returns every entry.
func (h *harness) journalAll() []Entry {
	h.t.Helper()
	return h.journal.List(Filter{})
}

// journalOne returns the only entry, failing otherwise.
func (h *harness) journalOne() Entry {
	h.t.Helper()
	all := h.journalAll()
	if len(all) != 1 {
		h.t.Fatalf("journal has %d entries, want 1: %+v", len(all), all)
	}
	return all[0]
}

func TestJournalRecordsRequest(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.advance(90 * time.Second)
	body := `{"integration_attributes": {"customer": "c-1", "token": "tok-123"}}`
	r := h.do("POST", chatBase+"/create?api_key=abc&x=1", body, append(chatHeaders, CorrelationHeader, "corr-1")...)
	mustStatus(t, r, http.StatusOK)

	want := Entry{
		Seq:           1,
		Time:          h.start.Add(90 * time.Second),
		Family:        "chat",
		Method:        "POST",
		Path:          chatBase + "/create",
		Query:         "api_key=%5BREDACTED%5D&x=1",
		Region:        "us-1",
		Status:        200,
		CorrelationID: "corr-1",
		RequestHeader: map[string][]string{
			"X-Api-Key":               {Redacted},
			"X-Token":                 {Redacted},
			"Content-Type":            {"application/json"},
			"X-Polyai-Correlation-Id": {"corr-1"},
		},
		RequestBody:  `{"integration_attributes":{"customer":"c-1","token":"[REDACTED]"}}`,
		ResponseBody: string(r.Body),
	}
	if diff := cmp.Diff(want, h.journalOne()); diff != "" {
		t.Fatalf("journal entry (-want +got):\n%s", diff)
	}
	for _, secret := range []string{"test-chat-key", "test-connector-token", "tok-123", "abc"} {
		if strings.Contains(fmt.Sprintf("%+v", h.journalAll()), secret) {
			t.Errorf("the journal holds the secret %q", secret)
		}
	}
}

func TestJournalTimeIsVirtual(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	start := h.clock.Now()
	for i := range 3 {
		h.do("POST", chatBase+"/create", nil, chatHeaders...)
		h.advance(time.Duration(i+1) * time.Hour)
	}
	var got []time.Time
	for _, e := range h.journalAll() {
		got = append(got, e.Time)
	}
	want := []time.Time{start, start.Add(time.Hour), start.Add(3 * time.Hour)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("entry times (-want +got):\n%s", diff)
	}
}

func TestJournalRedactsResponseSecrets(t *testing.T) {
	t.Parallel()
	h := newHarnessFamilies(t, mwFamily(famMessaging, "POST /journal-test/token", func(c *gin.Context) error {
		c.JSON(http.StatusCreated, gin.H{"access_token": "at-secret", "expires_in": 600,
			"endpoint": gin.H{"signing_secret": "whsec_x", "url": "http://x"}})
		return nil
	}))
	r := h.do("POST", "/messaging/journal-test/token", `{"secret":"s3"}`, "Authorization", "bearer b-secret", "Cookie", "c=1",
		"X-Service-Auth-Token", "svc", "X-PolyAi-Auth-Token", "pa")
	mustStatus(t, r, http.StatusCreated)
	e := h.journalOne()
	if e.Family != "messaging" || e.Region != "" || e.Path != "/messaging/journal-test/token" {
		t.Errorf("entry = %+v", e)
	}
	if want := `{"access_token":"[REDACTED]","endpoint":{"signing_secret":"[REDACTED]","url":"http://x"},"expires_in":600}`; e.ResponseBody != want {
		t.Errorf("response body = %s, want %s", e.ResponseBody, want)
	}
	if want := `{"secret":"[REDACTED]"}`; e.RequestBody != want {
		t.Errorf("request body = %s, want %s", e.RequestBody, want)
	}
	for _, name := range []string{"Authorization", "Cookie", "X-Service-Auth-Token", "X-Polyai-Auth-Token"} {
		if got := e.RequestHeader[name]; len(got) != 1 || got[0] != Redacted {
			t.Errorf("header %s = %q, want redacted", name, got)
		}
	}
}

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
	j := NewJournal(3, 0)
	if j.BodyLimit() != DefaultJournalBodyBytes {
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
	d := NewJournal(0, 0)
	d.mu.Lock()
	size := d.size
	d.mu.Unlock()
	if size != DefaultJournalSize {
		t.Fatalf("default size %d, want %d", size, DefaultJournalSize)
	}
}

// TestJournalChanged: the channel of Changed is closed by the next Append
// and by Reset, and a new one is handed out after.
func TestJournalChanged(t *testing.T) {
	t.Parallel()
	j := NewJournal(2, 0)
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

func TestJournalBodyBound(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.journal.Reset(0, 16)
	body := `{"channel": "webchat", "asr_lang_code": "en-GB"}`
	r := h.do("POST", chatBase+"/create", body, chatHeaders...)
	mustStatus(t, r, http.StatusOK)
	e := h.journalOne()
	if e.RequestBody != body[:16] || e.ResponseBody != string(r.Body[:16]) {
		t.Fatalf("bodies %q / %q, want the first 16 bytes", e.RequestBody, e.ResponseBody)
	}
	// A cut body naming a secret is withheld rather than half-redacted.
	h.journal.Reset(0, 38) // up to `{"integration_attributes":{"token":"ab`
	h.do("POST", chatBase+"/create", `{"integration_attributes":{"token":"abcdefgh"}}`, chatHeaders...)
	if e := h.journalOne(); e.RequestBody != "[body withheld: it names a secret field and is not complete JSON]" {
		t.Fatalf("cut secret body = %q", e.RequestBody)
	}
}

func TestJournalFilter(t *testing.T) {
	t.Parallel()
	j := NewJournal(0, 0)
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
	j := NewJournal(0, 0)
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

func TestJournalUnknownFieldWarnings(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.do("POST", chatBase+"/create", `{"zeta": 1, "channel": "webchat", "alpha": {"x": 1}}`, chatHeaders...)
	mustStatus(t, r, http.StatusOK) // accepted, as the real service does
	id := r.Map(t)["conversation_id"].(string)
	r = h.do("POST", chatBase+"/respond", map[string]any{"conversation_id": id, "message": "hi", "mesage": "typo"}, chatHeaders...)
	mustStatus(t, r, http.StatusOK)
	h.do("POST", chatBase+"/create", `{"channel": "webchat"}`, chatHeaders...)

	var got [][]string
	for _, e := range h.journalAll() {
		got = append(got, e.Warnings)
	}
	want := [][]string{
		{`unknown field "alpha" in request body (ignored, as the real service does)`,
			`unknown field "zeta" in request body (ignored, as the real service does)`},
		{`unknown field "mesage" in request body (ignored, as the real service does)`},
		nil,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("warnings (-want +got):\n%s", diff)
	}
}

func TestJournalUnroutedAndPanics(t *testing.T) {
	t.Parallel()
	h := newHarnessFamilies(t, mwFamily(famAgents, "GET /journal-test/panic", func(c *gin.Context) error {
		panic("boom")
	}))
	mustStatus(t, h.do("GET", "/builder/us/v1/nope", nil), http.StatusNotFound)
	mustStatus(t, h.do("GET", "/nothing", nil), http.StatusNotFound)
	mustStatus(t, h.do("DELETE", chatBase+"/create", nil), http.StatusMethodNotAllowed)
	r := h.do("GET", "/builder/us/journal-test/panic", nil)
	mustStatus(t, r, http.StatusInternalServerError)
	mustBody(t, r, builderError{Message: "Internal server error.", Errors: []engine.FieldError{}})

	type row struct {
		Family, Path, Region string
		Status               int
	}
	var got []row
	for _, e := range h.journalAll() {
		got = append(got, row{e.Family, e.Path, e.Region, e.Status})
	}
	want := []row{
		{"agents", "/builder/us/v1/nope", "us", 404},
		{"", "/nothing", "", 404},
		{"chat", chatBase + "/create", "us-1", 405},
		{"agents", "/builder/us/journal-test/panic", "us", 500},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("entries (-want +got):\n%s", diff)
	}
}

func TestJournalConcurrent(t *testing.T) {
	t.Parallel()
	j := NewJournal(50, 0)
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

// TestJournalRedactsWhileServing: entries are redacted when read, by
// Lists that run while requests are journaled; none shows a secret.
func TestJournalRedactsWhileServing(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.journal.Reset(20, 0) // wraps around while Lists run
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, e := range h.journal.List(Filter{}) {
					if s := fmt.Sprint(e); strings.Contains(s, "S3CRET") {
						t.Errorf("entry %d shows a secret: %s", e.Seq, s)
					}
				}
			}
		})
	}
	for i := range 100 {
		h.do("POST", chatBase+fmt.Sprintf("/create?token=S3CRET-%d", i), `{"integration_attributes":{"token":"S3CRET"}}`,
			"X-API-KEY", "S3CRET-key", "Content-Type", "application/json")
	}
	close(stop)
	wg.Wait()
	if got := h.journal.List(Filter{}); len(got) != 20 || got[19].Seq != 100 {
		t.Fatalf("%d entries, last %d", len(got), got[len(got)-1].Seq)
	}
}

// TestJournalKeepsAnswersItServed: an entry's response body is the answer
// its client got, while requests come at once, the ring wraps around and
// Lists run: the answer buffers the journal keeps (recorder.adopt) go back
// to the pool only with the entry that held them.
func TestJournalKeepsAnswersItServed(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.journal.Reset(1, 0)
	var served sync.Map // correlation id → the body the client got
	check := func(e Entry) {
		if want, ok := served.Load(e.CorrelationID); ok && e.ResponseBody != string(want.([]byte)) {
			t.Errorf("entry %d (%s) keeps %q, the client got %q", e.Seq, e.CorrelationID, e.ResponseBody, want)
		}
	}
	var listers, clients sync.WaitGroup
	stop := make(chan struct{})
	var kept []Entry
	var keptMu sync.Mutex
	for range 2 {
		listers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				got := h.journal.List(Filter{})
				keptMu.Lock()
				kept = append(kept, got...)
				keptMu.Unlock()
			}
		})
	}
	for g := range 4 {
		clients.Go(func() {
			for i := range 100 {
				id := fmt.Sprintf("corr-%d-%d", g, i)
				path, method, body, headers := chatBase+"/create", "POST",
					`{"integration_attributes":{"customer_id":"`+id+`"}}`, chatHeaders
				if i%2 == 1 {
					path, method, body = "/runtime/us-1/v3/acme/support/conversations?client_env=sandbox&limit=1", "GET", ""
					headers = []string{"X-Api-Key", "test-conversations-key"}
				}
				req := httptest.NewRequest(method, path, strings.NewReader(body))
				for k := 0; k+1 < len(headers); k += 2 {
					req.Header.Set(headers[k], headers[k+1])
				}
				req.Header.Set(CorrelationHeader, id)
				rec := httptest.NewRecorder()
				h.handler().ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					t.Errorf("%s %s: status %d: %s", method, path, rec.Code, rec.Body)
				}
				served.Store(id, rec.Body.Bytes())
			}
		})
	}
	clients.Wait()
	close(stop)
	listers.Wait()
	for _, e := range append(kept, h.journal.List(Filter{})...) {
		check(e)
		if e.ResponseBody == "" {
			t.Errorf("entry %d has no response body", e.Seq)
		}
	}
}

// TestAnswerWithoutBodyNotAdopted: an answer whose status has no body
// (204, 304) leaves the journal's copy empty and its buffer in the pool:
// only what is sent is journaled.
func TestAnswerWithoutBodyNotAdopted(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusNoContent, http.StatusNotModified} {
		w := httptest.NewRecorder()
		c, _ := gin.CreateTestContext(w)
		st := &reqState{}
		st.rec = recorder{ResponseWriter: c.Writer, st: st, limit: DefaultJournalBodyBytes, a: &API{}}
		c.Writer = &st.rec
		answerJSON(c, status, func(b []byte) ([]byte, bool) { return append(b, `{"a":1}`...), true }, nil)
		c.Writer.WriteHeaderNow()
		if w.Code != status || w.Body.Len() != 0 || len(st.rec.body) != 0 || st.rec.own != nil || st.rec.skip != 0 {
			t.Errorf("status %d: answered %d %q, journal copy %q (adopted %v, skip %d)",
				status, w.Code, w.Body, st.rec.body, st.rec.own != nil, st.rec.skip)
		}
	}
}

// TestJournalTakesAdoptedBuffer: once journaled, an adopted answer
// buffer is the entry's alone: what the request writes after (a 500 after
// a panic) goes to a fresh copy, never reading the buffer, which the pool
// may hand to another request once the entry is overwritten.
func TestJournalTakesAdoptedBuffer(t *testing.T) {
	t.Parallel()
	j := NewJournal(1, 0)
	c, _ := gin.CreateTestContext(httptest.NewRecorder())
	c.Request = httptest.NewRequest("GET", "/runtime/us-1/v3/acme/support/conversations", nil)
	st := &reqState{}
	st.rec = recorder{ResponseWriter: c.Writer, st: st, limit: DefaultJournalBodyBytes, a: &API{journal: j}, c: c}
	c.Writer = &st.rec
	buf := jsonw.GetBuf()
	*buf = append((*buf)[:0], `{"a":1}`...)
	if !st.rec.adopt(buf) {
		t.Fatal("buffer not adopted")
	}
	if _, err := c.Writer.Write(*buf); err != nil {
		t.Fatal(err)
	}
	j.add(c, st)
	if st.rec.own != nil || st.rec.body != nil {
		t.Fatalf("after add the recorder still holds the buffer: own %v, body %q", st.rec.own != nil, st.rec.body)
	}
	if _, err := c.Writer.Write([]byte(`{"error":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if got := j.List(Filter{})[0].ResponseBody; got != `{"a":1}` {
		t.Fatalf("entry body %q", got)
	}
}

// TestAdoptedAnswerWrittenAsString: an adopted answer written as a
// string reaches the client whole and is journaled once (the skipped
// bytes are the journal's copy, not the client's).
func TestAdoptedAnswerWrittenAsString(t *testing.T) {
	t.Parallel()
	w := httptest.NewRecorder()
	c, _ := gin.CreateTestContext(w)
	st := &reqState{}
	st.rec = recorder{ResponseWriter: c.Writer, st: st, limit: DefaultJournalBodyBytes, a: &API{}}
	c.Writer = &st.rec
	buf := jsonw.GetBuf()
	*buf = append((*buf)[:0], `{"a":1}`...)
	if !st.rec.adopt(buf) {
		t.Fatal("buffer not adopted")
	}
	if _, err := c.Writer.WriteString(`{"a":1}`); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Writer.WriteString(`tail`); err != nil {
		t.Fatal(err)
	}
	if w.Body.String() != `{"a":1}tail` || string(st.rec.body) != `{"a":1}tail` {
		t.Fatalf("client got %q, journal %q", w.Body, st.rec.body)
	}
}

// TestJournalKeepsHeadersAsSent: a request made in process keeps, in the
// journal, the headers it was served with, even when its maker changes
// its header map afterwards (the journal copies it; only a net/http
// server's own map is kept as it is).
func TestJournalKeepsHeadersAsSent(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	req := httptest.NewRequest("GET", "/runtime/us-1/v3/acme/support/conversations?limit=1", nil)
	req.Header.Set("X-Api-Key", "test-conversations-key")
	req.Header.Set("X-Trace", "first")
	rec := httptest.NewRecorder()
	h.handler().ServeHTTP(rec, req)
	mustStatus(t, response{Status: rec.Code, Body: rec.Body.Bytes()}, http.StatusOK)
	req.Header.Set("X-Trace", "changed after")
	req.Header.Set("X-Added", "later")
	want := map[string][]string{"X-Api-Key": {Redacted}, "X-Trace": {"first"}}
	if diff := cmp.Diff(want, h.journalOne().RequestHeader); diff != "" {
		t.Fatalf("journaled headers (-want +got):\n%s", diff)
	}
}
