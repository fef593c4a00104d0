package handlers

// What the edge journals (docs/api.md#control-journal): every request and
// response with the virtual time, family, method, path, status, redacted
// headers, bounded bodies, the fault applied and warnings. The ring, its
// filters and redaction are tested in package journal.

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/journal"

	"github.com/gin-gonic/gin"
	"github.com/google/go-cmp/cmp"
)

// The journal's names, as this package's tests use them.
type (
	Entry  = journal.Entry
	Filter = journal.Filter
)

const (
	Redacted           = journal.Redacted
	SourceClient       = journal.SourceClient
	SourceTimeline     = journal.SourceTimeline
	DefaultJournalSize = journal.DefaultSize
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
		st.rec = recorder{ResponseWriter: c.Writer, st: st, limit: journal.DefaultBodyBytes, a: &API{}}
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
	j := journal.New(1, 0)
	c, _ := gin.CreateTestContext(httptest.NewRecorder())
	c.Request = httptest.NewRequest("GET", "/runtime/us-1/v3/acme/support/conversations", nil)
	st := &reqState{}
	a := &API{journal: j}
	st.rec = recorder{ResponseWriter: c.Writer, st: st, limit: journal.DefaultBodyBytes, a: a, c: c}
	c.Writer = &st.rec
	// A buffer of its own: one from the pool may have grown past what the
	// journal adopts (another test's large answer).
	b := make([]byte, 0, 64)
	buf := &b
	*buf = append(*buf, `{"a":1}`...)
	if !st.rec.adopt(buf) {
		t.Fatal("buffer not adopted")
	}
	if _, err := c.Writer.Write(*buf); err != nil {
		t.Fatal(err)
	}
	a.journalRequest(c, st)
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
	st.rec = recorder{ResponseWriter: c.Writer, st: st, limit: journal.DefaultBodyBytes, a: &API{}}
	c.Writer = &st.rec
	// A buffer of its own: one from the pool may have grown past what the
	// journal adopts (another test's large answer).
	b := make([]byte, 0, 64)
	buf := &b
	*buf = append(*buf, `{"a":1}`...)
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
