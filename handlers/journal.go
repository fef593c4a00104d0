package handlers

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/internal/jsonw"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
)

// Entry is one request of the journal: what came in, what went out, the
// fault applied and the warnings. Secrets are redacted.
type Entry struct {
	Seq           int64               `json:"seq"`
	Time          time.Time           `json:"time"` // virtual clock
	Family        string              `json:"family,omitempty"`
	Method        string              `json:"method"`
	Path          string              `json:"path"`
	Query         string              `json:"query,omitempty"`
	Region        string              `json:"region,omitempty"`
	Status        int                 `json:"status"`
	CorrelationID string              `json:"correlation_id,omitempty"`
	RequestHeader map[string][]string `json:"request_headers,omitempty"`
	RequestBody   string              `json:"request_body,omitempty"`
	ResponseBody  string              `json:"response_body,omitempty"`
	Fault         string              `json:"fault,omitempty"`
	Warnings      []string            `json:"warnings,omitempty"`
	// Source is "timeline" for what the scenario's timeline ran (the
	// request a step stands for, with its step in Timeline); absent for
	// what a client sent.
	Source   string               `json:"source,omitempty"`
	Timeline *engine.TimelineStep `json:"timeline,omitempty"`
}

// Filter selects journal entries. Empty fields match everything.
type Filter struct {
	Family string
	Method string
	// Path matches entries whose path contains it.
	Path   string
	Status int
	// Source is "client" (what clients sent) or "timeline" (what the
	// timeline ran).
	Source string
	// Limit keeps the last Limit matches (0: all).
	Limit int
}

// Journal is a bounded ring of entries. The ring grows as entries come, up
// to size (allocating all of it at once cost more than the rest of New).
type Journal struct {
	mu        sync.Mutex
	ring      []slot
	size      int
	next      int // once the ring is full: the oldest entry, overwritten next
	seq       int64
	bodyLimit int
	resets    uint64 // Reset calls, for List (Seq restarts at a reset)
	// changed is closed (and forgotten) by the next Append or Reset; it
	// exists only while someone waits (Changed), so Append pays nothing
	// otherwise.
	changed chan struct{}
}

// slot is one entry of the ring. An entry of a request the API served
// keeps the request's query, headers and bodies as they came (raw, with
// pending set) rather than redacted: redaction cost a good part of a
// request's time, and most entries are overwritten unread. The first List
// that returns the entry redacts them into the Entry's fields and keeps
// the result in place of the raw pieces, so that no entry leaves the
// journal unredacted and none is redacted twice (but by Lists at once).
type slot struct {
	Entry
	pending  bool
	query    string
	header   http.Header // the request's (a copy of a request made in process)
	reqBody  []byte
	respBody []byte
	// buf is the answer buffer respBody is (recorder.adopt), given back
	// to jsonBufs when the entry is overwritten; nil otherwise.
	buf *[]byte
}

// redact fills the entry's redacted fields from its raw pieces, and drops
// them.
func (s *slot) redact() {
	s.Query = redactQuery(s.query)
	s.RequestHeader = redactHeader(s.header)
	s.RequestBody = redactPayload(s.header.Get("Content-Type"), s.reqBody)
	s.ResponseBody = redactBody(s.respBody)
	*s = slot{Entry: s.Entry}
}

// Journal defaults (overridable by scenario limits).
const (
	DefaultJournalSize      = 1000
	DefaultJournalBodyBytes = 4096
)

// NewJournal returns a journal keeping size entries and bodyLimit bytes of
// each body.
func NewJournal(size, bodyLimit int) *Journal {
	j := &Journal{}
	j.Reset(size, bodyLimit)
	return j
}

// Reset empties the journal and sets its bounds (zero: defaults).
func (j *Journal) Reset(size, bodyLimit int) {
	if size <= 0 {
		size = DefaultJournalSize
	}
	if bodyLimit <= 0 {
		bodyLimit = DefaultJournalBodyBytes
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.ring, j.size = nil, size
	j.next, j.seq, j.bodyLimit = 0, 0, bodyLimit
	j.resets++
	j.notifyLocked()
}

// Seq is the sequence number of the newest entry (0 when none came since
// the last Reset).
func (j *Journal) Seq() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.seq
}

// Changed returns a channel that is closed at the next Append or Reset:
// the console's live request list waits on it.
func (j *Journal) Changed() <-chan struct{} {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.changed == nil {
		j.changed = make(chan struct{})
	}
	return j.changed
}

// notifyLocked wakes the waiters of Changed. j.mu must be held.
func (j *Journal) notifyLocked() {
	if j.changed != nil {
		close(j.changed)
		j.changed = nil
	}
}

// BodyLimit is the number of body bytes kept per entry.
func (j *Journal) BodyLimit() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.bodyLimit
}

// Append adds an entry (its Seq is assigned).
func (j *Journal) Append(e Entry) { j.append(slot{Entry: e}) }

func (j *Journal) append(s slot) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	s.Seq = j.seq
	j.notifyLocked()
	if len(j.ring) < j.size {
		j.ring = append(j.ring, s)
		return
	}
	if old := j.ring[j.next].buf; old != nil {
		jsonw.PutBuf(old) // no List reads it: List copies what it reads under j.mu
	}
	j.ring[j.next] = s
	j.next = (j.next + 1) % j.size
}

// List returns copies of the matching entries, oldest first.
func (j *Journal) List(f Filter) []Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	var match []int // positions in the ring
	n := len(j.ring)
	start := j.next // 0 until the ring wraps
	for i := range n {
		p := (start + i) % n
		e := &j.ring[p].Entry
		if f.Family != "" && e.Family != f.Family ||
			f.Method != "" && !strings.EqualFold(e.Method, f.Method) ||
			f.Path != "" && !strings.Contains(e.Path, f.Path) ||
			f.Status != 0 && e.Status != f.Status ||
			f.Source != "" && f.Source != cmp.Or(e.Source, SourceClient) {
			continue
		}
		match = append(match, p)
	}
	if f.Limit > 0 && len(match) > f.Limit {
		match = match[len(match)-f.Limit:]
	}
	if len(match) == 0 {
		return nil
	}
	out := make([]Entry, len(match))
	// Redaction (a JSON parse for a body that names a secret) runs with
	// the journal unlocked, on copies: the raw pieces are never written
	// once added. The redacted entries then replace their raw ones, unless
	// a Reset or a wrap-around replaced those meanwhile.
	slots := make([]slot, len(match))
	for i, p := range match {
		slots[i] = j.ring[p]
		if s := &slots[i]; s.buf != nil {
			// The buffer goes back to the pool when the entry is
			// overwritten, maybe while the copy is being redacted.
			s.respBody, s.buf = bytes.Clone(s.respBody), nil
		}
	}
	resets := j.resets
	j.mu.Unlock()
	redacted := false
	for i := range slots {
		if slots[i].pending {
			slots[i].redact()
			redacted = true
		}
		out[i] = cloneEntry(slots[i].Entry)
	}
	j.mu.Lock()
	if redacted && j.resets == resets {
		for i, p := range match {
			if s := &j.ring[p]; s.pending && s.Seq == slots[i].Seq {
				*s = slots[i]
			}
		}
	}
	return out
}

func cloneEntry(e Entry) Entry {
	if e.RequestHeader != nil {
		h := make(map[string][]string, len(e.RequestHeader))
		for k, v := range e.RequestHeader {
			h[k] = append([]string(nil), v...)
		}
		e.RequestHeader = h
	}
	e.Warnings = append([]string(nil), e.Warnings...)
	if e.Timeline != nil {
		st := *e.Timeline
		e.Timeline = &st
	}
	return e
}

// secretFields are JSON fields, query parameters and form fields redacted
// in the journal.
var secretFields = []string{"access_token", "signing_secret", "secret", "token", "api_key", "password", "signing_key"}

// JSON fields whose values the journal rewrites: every value of a
// "headers" object (a webhook endpoint's headers may carry any
// credential), the password of a "url".
const (
	headersField = "headers"
	urlField     = "url"
)

// Redacted replaces a secret in the journal (scenario's redaction rules:
// credential headers by scenario.SecretHeader).
const Redacted = scenario.Redacted

// add adds the entry of a request the API served, with its raw pieces
// (see slot).
func (j *Journal) add(c *gin.Context, st *reqState) {
	r, rec := c.Request, &st.rec
	s := slot{Entry: Entry{
		Time:          rec.at,
		Method:        r.Method,
		Path:          r.URL.Path,
		Region:        engine.RegionOf(r.URL.Path),
		Status:        rec.Status(),
		CorrelationID: st.correlation,
		Fault:         st.fault,
		Warnings:      st.warnings,
	}, pending: true, query: r.URL.RawQuery, header: r.Header}
	if r.Context().Value(http.ServerContextKey) == nil {
		// A request made in process (Platform.Client, httptest): its
		// maker may reuse its header map. net/http's server makes one
		// per request and never writes it after the handler.
		s.header = r.Header.Clone()
	}
	if f := st.family; f != nil {
		s.Family = f.Name
		noteFamily(r.Context(), f.Name)
	}
	if st.hasJournalStatus {
		s.Status = st.journalStatus
	}
	// Full slice expressions: a later append (a write after a 101) never
	// writes into what the entry holds.
	if b := st.body; len(b) > rec.limit {
		s.reqBody = slices.Clone(b[:rec.limit]) // not the whole body's array
	} else {
		s.reqBody = b[:len(b):len(b)]
	}
	s.respBody = rec.body[:len(rec.body):len(rec.body)]
	if rec.own != nil {
		// The adopted buffer is the entry's now, back in the pool when
		// the entry is overwritten: nothing of the request reads it again
		// (a 500 written after a panic is captured afresh).
		s.buf, rec.own, rec.body = rec.own, nil, nil
	}
	j.append(s)
}

func redactHeader(h http.Header) map[string][]string {
	out := make(map[string][]string, len(h))
	for k, v := range h {
		if scenario.SecretHeader(k) {
			out[k] = []string{Redacted}
			continue
		}
		out[k] = append([]string(nil), v...)
	}
	return out
}

func redactQuery(raw string) string {
	if raw == "" {
		return ""
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return "[unparsable query]"
	}
	changed := false
	for _, f := range secretFields {
		if _, ok := q[f]; ok {
			q[f] = []string{Redacted}
			changed = true
		}
	}
	if !changed {
		return raw
	}
	return q.Encode()
}

// redactBody replaces the values of secret fields, of "headers" objects
// and the passwords of "url" values in a JSON body. Bodies that mention
// none of these fields are kept as they are (the fast path).
func redactBody(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	// One pass over the body's quotes: a secret field name, headers, or a
	// url (with a user:password@host).
	hit := quotedName(b, secretFields) || quotedName(b, []string{headersField}) ||
		bytes.IndexByte(b, '@') >= 0 && quotedName(b, []string{urlField})
	if !hit {
		return string(b)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "[body withheld: it names a secret field and is not complete JSON]"
	}
	if !redactValue(v) {
		return string(b)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return "[body withheld]"
	}
	return string(out)
}

// quotedName reports whether b holds one of names between quotes
// ("token"): one pass over the quotes.
func quotedName(b []byte, names []string) bool {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return false
		}
		i += j + 1
		if i >= len(b) {
			return false
		}
		for _, f := range names {
			if len(b)-i > len(f) && b[i] == f[0] && string(b[i:i+len(f)]) == f && b[i+len(f)] == '"' {
				return true
			}
		}
	}
}

// redactValue redacts v in place and reports whether it changed anything.
func redactValue(v any) bool {
	changed := false
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			switch {
			case slices.Contains(secretFields, k):
				t[k] = Redacted
				changed = true
				continue
			case k == headersField:
				if h, ok := x.(map[string]any); ok {
					for name := range h {
						h[name] = Redacted
						changed = true
					}
					continue
				}
			case k == urlField:
				if u, ok := x.(string); ok {
					if r := scenario.RedactURL(u); r != u {
						t[k] = r
						changed = true
					}
					continue
				}
			}
			changed = redactValue(x) || changed
		}
	case []any:
		for _, x := range t {
			changed = redactValue(x) || changed
		}
	}
	return changed
}
