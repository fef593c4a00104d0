// Package jsoncheck checks the rules every JSON body the mock reads
// obeys, whichever reads it (the edge's body readers, the messaging WebSocket's client
// events, external events' payloads, the control plane;
// docs/api.md#request-bodies):
//
//   - exactly one JSON value: nothing but white space after it
//     (`{"id":"E1"}}}}` is refused, not read as {"id":"E1"});
//   - no object repeats a key, at any depth: parsers disagree on which of
//     two values wins, so a client that sends both is refused rather than
//     served by a guess;
//   - at most MaxDepth nested arrays and objects.
package jsoncheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MaxDepth is the deepest nesting of arrays and objects a JSON body
// may have.
const MaxDepth = 64

// Error is why Check refused a body: what is wrong with it (a
// phrase that follows "body", as in "body has data after the JSON
// value") and the byte offset where the problem starts.
type Error struct {
	Offset int64
	Reason string
}

// Error is "body <reason> (at byte <offset>)".
func (e *Error) Error() string {
	return fmt.Sprintf("body %s (at byte %d)", e.Reason, e.Offset)
}

// Check reports whether data is exactly one JSON value within the
// rules of every body the mock reads (see the package comment); it
// returns an *Error when it is not. Empty data (or only white space) is an
// error: callers decide whether a body may be absent before they call it.
//
// json.Valid checks the syntax (one value, nothing after it); one pass
// over the bytes it validated then checks nesting and keys
// (BenchmarkCheckJSON). Only a refused body is read again, by
// encoding/json's decoder, to say what is wrong and where.
func Check(data []byte) error { return CheckValue(data, nil) }

// CheckValue is Check, calling topKey (when not nil) with each key of a
// top-level object, unescaped, in order.
func CheckValue(data []byte, topKey func(key []byte)) error {
	if json.Valid(data) { // the common case: no allocation
		return checkNesting(data, topKey)
	}
	// Say what is wrong, and where.
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	switch err := dec.Decode(&raw); {
	case errors.Is(err, io.EOF):
		return &Error{Offset: 0, Reason: "holds no JSON value"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{Offset: int64(len(data)), Reason: "ends before its JSON value is complete"}
	case err != nil:
		var se *json.SyntaxError
		off := int64(0)
		if errors.As(err, &se) {
			off = max(se.Offset-1, 0) // the scanner counts the bad byte as read
		}
		return &Error{Offset: off, Reason: "is not valid JSON: " + err.Error()}
	}
	return &Error{Offset: skipSpace(data, dec.InputOffset()), Reason: "has data after the JSON value"}
}

// jsonFrame is an open array or object of checkNesting's pass: for an
// object, where its keys start in the pass's key list (or its key set,
// once it has many), and whether a key comes next.
type jsonFrame struct {
	object  bool
	wantKey bool
	keys    int
	set     map[string]struct{}
}

// checkNesting checks the depth and the keys of the valid JSON value
// data, in one pass over its bytes; it calls topKey with the keys of a
// top-level object.
func checkNesting(data []byte, topKey func(key []byte)) error {
	var stackBuf [8]jsonFrame
	var keysBuf [32][]byte
	stack := stackBuf[:0]
	keys := keysBuf[:0] // the keys of the open objects, innermost last
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '{', '[':
			if len(stack) >= MaxDepth {
				return &Error{Offset: int64(i), Reason: fmt.Sprintf("nests arrays and objects deeper than %d levels", MaxDepth)}
			}
			stack = append(stack, jsonFrame{object: c == '{', wantKey: c == '{', keys: len(keys)})
		case '}', ']':
			keys = keys[:stack[len(stack)-1].keys]
			stack = stack[:len(stack)-1]
		case ',':
			if f := &stack[len(stack)-1]; f.object {
				f.wantKey = true
			}
		case '"':
			j := i + 1
			escaped := false
			for ; data[j] != '"'; j++ { // valid JSON: the string ends
				if data[j] == '\\' {
					escaped = true
					j++
				}
			}
			if n := len(stack); n > 0 && stack[n-1].wantKey {
				f := &stack[n-1]
				f.wantKey = false
				key := data[i+1 : j]
				if escaped {
					var k string
					_ = json.Unmarshal(data[i:j+1], &k) // valid: it decodes
					key = []byte(k)
				}
				var dup bool
				if keys, dup = f.add(keys, key); dup {
					return &Error{Offset: int64(i), Reason: fmt.Sprintf("has the key %q twice in one object", key)}
				}
				if n == 1 && topKey != nil {
					topKey(key)
				}
			}
			i = j
		}
	}
	return nil
}

// add records a key of the object f, on the pass's key list while the
// object has few keys and in a set of its own beyond, and reports whether
// the object had it already.
func (f *jsonFrame) add(keys [][]byte, key []byte) ([][]byte, bool) {
	if f.set != nil {
		if _, ok := f.set[string(key)]; ok {
			return keys, true
		}
		f.set[string(key)] = struct{}{}
		return keys, false
	}
	for _, k := range keys[f.keys:] {
		if bytes.Equal(k, key) {
			return keys, true
		}
	}
	keys = append(keys, key)
	if len(keys)-f.keys > 16 { // many keys: a set, not a quadratic scan
		f.set = make(map[string]struct{}, 32)
		for _, k := range keys[f.keys:] {
			f.set[string(k)] = struct{}{}
		}
		keys = keys[:f.keys]
	}
	return keys, false
}

// skipSpace is the offset of the first byte at or after off that is not
// JSON white space.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n':
			off++
			continue
		}
		break
	}
	return off
}
