// Package jsoncheck checks the rules every JSON body the mock reads obeys
// (docs/api.md#request-bodies): exactly one JSON value, no key repeated in
// an object (parsers disagree on which wins), at most MaxDepth nesting.
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

// Error is why Check refused a body; Reason follows "body" ("has data
// after the JSON value").
type Error struct {
	Offset int64
	Reason string
}

// Error is "body <reason> (at byte <offset>)".
func (e *Error) Error() string {
	return fmt.Sprintf("body %s (at byte %d)", e.Reason, e.Offset)
}

// Check returns an *Error unless data is exactly one JSON value within the
// package's rules; empty data is an error. Only a refused body is decoded
// again, to say what is wrong and where.
func Check(data []byte) error { return CheckValue(data, nil) }

// CheckValue is Check, calling topKey (when not nil) with each key of a
// top-level object, unescaped, in order.
func CheckValue(data []byte, topKey func(key []byte)) error {
	if json.Valid(data) { // the common case: no allocation
		return checkNesting(data, topKey)
	}
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

// jsonFrame is an open array or object; keys is where an object's keys
// start in the pass's key list.
type jsonFrame struct {
	object  bool
	wantKey bool
	keys    int
	set     map[string]struct{}
}

// checkNesting checks depth and keys of valid JSON data in one pass.
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

// add records key in f and reports whether f had it already.
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

// skipSpace skips JSON white space from off.
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
