// Package journal is the request journal of a platform instance: a bounded
// ring of the requests it served, secrets redacted
// (docs/security.md#secrets).
package journal

import (
	"bytes"
	"cmp"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentplatform/mockplatform/internal/jsonw"
)

// Entry is one request of the journal, secrets redacted.
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
	// Source is SourceTimeline for what the timeline ran; absent for a client.
	Source   string        `json:"source,omitempty"`
	Timeline *TimelineStep `json:"timeline,omitempty"`
}

// TimelineStep is the timeline step that ran an operation.
type TimelineStep struct {
	// Entry is the entry's index in the timeline; ID its id.
	Entry int    `json:"entry"`
	ID    string `json:"id,omitempty"`
	// Kind is the entry's kind; Action the action's name.
	Kind   string `json:"kind"`
	Action string `json:"action,omitempty"`
	// Step is the step (start, turn, end, call, do); Occurrence is the
	// entry's repetition or conversation, from 0.
	Step       string `json:"step"`
	Occurrence int64  `json:"occurrence"`
	// Operation is the request's operationId in docs/openapi.json or
	// docs/control.openapi.json.
	Operation string `json:"operation"`
	// Error says why the step failed, when it did.
	Error string `json:"error,omitempty"`
}

// Sources of entries (Entry.Source, Filter.Source).
const (
	SourceClient   = "client"
	SourceTimeline = "timeline"
)

// Filter selects journal entries. Empty fields match everything.
type Filter struct {
	Family string
	Method string
	// Path matches entries whose path contains it.
	Path   string
	Status int
	Source string
	// Limit keeps the last Limit matches (0: all).
	Limit int
}

// Raw is an entry with the request's pieces as they came: they are
// redacted only when a List first returns it, since most entries are
// overwritten unread.
type Raw struct {
	Entry
	RawQuery string
	// Header is the request's; the journal keeps it and never writes it.
	Header            http.Header
	Request, Response []byte
	// Buf, when set, is the pooled buffer Response lies in, owned by the
	// journal (jsonw.PutBuf when dropped).
	Buf *[]byte
}

// Journal is a bounded ring of entries.
type Journal struct {
	mu        sync.Mutex
	ring      []slot
	size      int
	next      int // once the ring is full: the oldest entry, overwritten next
	seq       int64
	bodyLimit int
	resets    uint64 // Reset calls: Seq restarts at a reset
	// changed is closed by the next add or Reset, while someone waits.
	changed chan struct{}
}

// slot is one entry of the ring; pending marks raw pieces not redacted.
type slot struct {
	Raw
	pending bool
}

func (s *slot) redact() {
	s.Query = redactQuery(s.RawQuery)
	s.RequestHeader = redactHeader(s.Header)
	s.RequestBody = RedactPayload(s.Header.Get("Content-Type"), s.Request)
	s.ResponseBody = redactBody(s.Response)
	*s = slot{Raw: Raw{Entry: s.Entry}}
}

// Defaults (overridable by scenario limits).
const (
	DefaultSize      = 1000
	DefaultBodyBytes = 4096
)

// New returns a journal keeping size entries and bodyLimit bytes of each body.
func New(size, bodyLimit int) *Journal {
	j := &Journal{}
	j.Reset(size, bodyLimit)
	return j
}

// Reset empties the journal and sets its bounds (zero: defaults).
func (j *Journal) Reset(size, bodyLimit int) {
	if size <= 0 {
		size = DefaultSize
	}
	if bodyLimit <= 0 {
		bodyLimit = DefaultBodyBytes
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.ring, j.size = nil, size
	j.next, j.seq, j.bodyLimit = 0, 0, bodyLimit
	j.resets++
	j.notifyLocked()
}

// Seq is the newest entry's sequence number (0: none since Reset).
func (j *Journal) Seq() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.seq
}

// Changed returns a channel closed at the next entry or Reset.
func (j *Journal) Changed() <-chan struct{} {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.changed == nil {
		j.changed = make(chan struct{})
	}
	return j.changed
}

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

// Append adds an entry as it is (its Seq is assigned).
func (j *Journal) Append(e Entry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.addLocked(slot{Raw: Raw{Entry: e}})
}

// AddRaw adds an entry with raw pieces, bodies cut to the body limit.
func (j *Journal) AddRaw(r Raw) {
	j.mu.Lock()
	defer j.mu.Unlock()
	// Full slice expressions: a caller's later append never writes here.
	if b := r.Request; len(b) > j.bodyLimit {
		r.Request = slices.Clone(b[:j.bodyLimit]) // not the whole body's array
	} else {
		r.Request = b[:len(b):len(b)]
	}
	n := min(len(r.Response), j.bodyLimit)
	r.Response = r.Response[:n:n]
	j.addLocked(slot{Raw: r, pending: true})
}

func (j *Journal) addLocked(s slot) {
	j.seq++
	s.Seq = j.seq
	j.notifyLocked()
	if len(j.ring) < j.size {
		j.ring = append(j.ring, s)
		return
	}
	if old := j.ring[j.next].Buf; old != nil {
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
	for i := range n {
		p := (j.next + i) % n // j.next is 0 until the ring wraps
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
	// Redaction runs unlocked on copies; the results replace their raw
	// entries unless a Reset or wrap-around replaced those meanwhile.
	slots := make([]slot, len(match))
	for i, p := range match {
		slots[i] = j.ring[p]
		if s := &slots[i]; s.Buf != nil {
			// The buffer may go back to the pool while the copy is redacted.
			s.Response, s.Buf = bytes.Clone(s.Response), nil
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
