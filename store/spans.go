package store

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unsafe"

	json "github.com/goccy/go-json"
)

// Spans: what the concurrency series reads of each conversation, read
// straight from the stored record. The encoder (convenc.go) writes these
// fields before the turns, so the fast path never walks them.

// Span is what the concurrency series needs of a stored conversation.
type Span struct {
	ID          string    `json:"id"`
	StartedAt   time.Time `json:"started_at"`
	EndedAt     time.Time `json:"ended_at"`
	InProgress  bool      `json:"in_progress"`
	Environment string    `json:"environment"`
	VariantID   string    `json:"variant_id"`
	VariantName string    `json:"variant_name"`
	Language    string    `json:"language"`
	FromNumber  string    `json:"from_number"`
	ToNumber    string    `json:"to_number"`
}

// decodeStoredSpan fills r from a stored record, compact or JSON.
func decodeStoredSpan(pk, raw string, tab []string, r *Span) error {
	if raw != "" && raw[0] == recBinary {
		return decodeRecordSpan(pk, raw, tab, r)
	}
	return decodeSpan(raw, r)
}

// decodeSpan fills r from a stored conversation's JSON, reading only the
// fields it needs; anything it does not read plainly (escapes, nulls,
// malformed JSON) goes to goccy/go-json, so the result is json.Unmarshal's.
func decodeSpan(raw string, r *Span) (err error) {
	if decodeSpanFast(raw, r) {
		return nil
	}
	*r = Span{}
	// goccy/go-json can panic on malformed input (FuzzDecodeSpan); a
	// bad record must not take the request down.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed conversation record: %v", p)
		}
	}()
	return json.UnmarshalNoEscape(unsafe.Slice(unsafe.StringData(raw), len(raw)), r)
}

// The fields decodeSpanFast reads, as bits of a seen mask.
var spanFieldBits = map[string]uint16{
	"started_at": 1 << 0, "ended_at": 1 << 1, "in_progress": 1 << 2, "environment": 1 << 3,
	"variant_id": 1 << 4, "variant_name": 1 << 5, "language": 1 << 6, "from_number": 1 << 7, "to_number": 1 << 8,
	"id": 1 << 9,
}

const spanFieldsAll = 1<<10 - 1

func decodeSpanFast(raw string, r *Span) bool {
	i := jsonWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = jsonWS(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return true
	}
	var seen uint16
	for {
		key, j, ok := jsonPlainString(raw, i)
		if !ok {
			return false
		}
		i = jsonWS(raw, j)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		i = jsonWS(raw, i+1)
		bit := spanFieldBits[key]
		switch bit {
		case 0:
			if !lowerASCII(key) {
				return false // json matches keys case-insensitively
			}
			if j, ok = jsonSkip(raw, i); !ok {
				return false
			}
		case 1 << 2: // in_progress
			switch {
			case strings.HasPrefix(raw[i:], "true"):
				r.InProgress, j = true, i+4
			case strings.HasPrefix(raw[i:], "false"):
				r.InProgress, j = false, i+5
			default:
				return false
			}
		default:
			var s string
			if s, j, ok = jsonPlainString(raw, i); !ok {
				return false
			}
			switch key {
			case "started_at", "ended_at":
				t, err := time.Parse(time.RFC3339Nano, s)
				if err != nil {
					return false
				}
				if key == "started_at" {
					r.StartedAt = t
				} else {
					r.EndedAt = t
				}
			case "id":
				r.ID = s
			case "environment":
				r.Environment = s
			case "variant_id":
				r.VariantID = s
			case "variant_name":
				r.VariantName = s
			case "language":
				r.Language = s
			case "from_number":
				r.FromNumber = s
			case "to_number":
				r.ToNumber = s
			}
		}
		if seen&bit != 0 {
			return false // a duplicate key: leave it to the full decoder
		}
		seen |= bit
		if seen == spanFieldsAll {
			return true
		}
		i = jsonWS(raw, j)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case ',':
			i = jsonWS(raw, i+1)
		case '}':
			return true // fields not present keep their zero values
		default:
			return false
		}
	}
}

// lowerASCII reports whether s is lower-case ASCII (so no other key folds
// to it).
func lowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || ('A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

func jsonWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// jsonPlainString reads an escape-free string at s[i] and the index after.
func jsonPlainString(s string, i int) (string, int, bool) {
	if i >= len(s) || s[i] != '"' {
		return "", 0, false
	}
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '"':
			return s[i+1 : j], j + 1, true
		case c == '\\' || c < 0x20:
			return "", 0, false
		}
	}
	return "", 0, false
}

// jsonSkip skips the value at s[i]: the index after it.
func jsonSkip(s string, i int) (int, bool) {
	if i >= len(s) {
		return 0, false
	}
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '"':
			for j++; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' {
					j++
				}
			}
			if j >= len(s) {
				return 0, false
			}
		case '{', '[':
			depth++
		case '}', ']':
			if j == i {
				return 0, false // no value
			}
			depth--
			if depth < 0 {
				return j, true // the end of the enclosing object: a scalar ended
			}
		case ',':
			if depth == 0 {
				return j, true
			}
		}
		if depth == 0 && (s[j] == '"' || s[j] == '}' || s[j] == ']') {
			return j + 1, true
		}
	}
	if depth == 0 {
		return len(s), true
	}
	return 0, false
}

// SpanRef is one stored version of a conversation record, met by
// ScanSpans. Two refs are Same when the record did not change in between,
// so a cache may keep what it decoded.
type SpanRef struct {
	// Key orders a project's records by (started_at, id or position).
	Key string
	raw string
	tab []string // the string table (stored records)
	l   *genLayer
	p   int
}

// Same reports whether r and o are the same version of the same record.
func (r SpanRef) Same(o SpanRef) bool {
	return r.Key == o.Key && r.raw == o.raw && r.l == o.l && r.p == o.p
}

// Span decodes the record's span.
func (r SpanRef) Span() (Span, error) {
	if r.l != nil {
		sp := r.l.span(r.p)
		sp.ID = r.l.id(r.p)
		return sp, nil
	}
	var sp Span
	if err := decodeStoredSpan(r.Key, r.raw, r.tab, &sp); err != nil {
		return Span{}, fmt.Errorf("store: decode span of %s: %w", r.Key, err)
	}
	return sp, nil
}

// ScanSpans calls fn with each conversation of a project in (started_at,
// id) order until it returns false; fn must not call the Store.
func (s *Store) ScanSpans(region, account, project string, fn func(r SpanRef) bool) error {
	prefix := convPrefix(region, account, project)
	return s.walkConversations(region, account, project, time.Time{}, time.Time{}, func(it *convItem) bool {
		if it.ls != nil {
			return fn(SpanRef{Key: prefix + it.ls.ts(it.p) + "/\x00" + strconv.Itoa(it.p), l: it.ls.genLayer, p: it.p})
		}
		return fn(SpanRef{Key: it.key, raw: it.raw, tab: it.tab})
	})
}
