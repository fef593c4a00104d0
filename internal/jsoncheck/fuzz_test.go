package jsoncheck

// The strict reader's fuzz target. Without -fuzz, go test runs its seeds;
// scripts/fuzz.sh runs it for a while (docs/security.md#fuzzing):
//
//	go test ./internal/jsoncheck -run '^$' -fuzz '^FuzzCheckJSON$' -fuzztime 5m

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// FuzzCheckJSON: the strict reader never panics, accepts only what
// encoding/json reads as one value, and refuses what encoding/json
// refuses.
func FuzzCheckJSON(f *testing.F) {
	for _, s := range []string{`{"id":"E1"}`, `{"id":"E1"}}}}`, `{"a":1,"a":2}`, `[[[[]]]]`, `"x"`, `1e400`, `{"a":{"b":[1,{"c":null}]}}`,
		`{"\u0061":1,"a":2}`, "\xff", `{"a" 1}`, strings.Repeat("[", 70)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Check(data)
		valid := json.Valid(data)
		switch {
		case err == nil && !valid:
			t.Fatalf("Check accepts what encoding/json refuses: %q", data)
		case err == nil:
			var v any
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber() // 1e400 is JSON, not a float64
			if uerr := dec.Decode(&v); uerr != nil {
				t.Fatalf("Check accepts %q, which does not decode: %v", data, uerr)
			}
		case err != nil:
			var je *Error
			if !asJSONError(err, &je) || je.Offset < 0 || je.Offset > int64(len(data)) {
				t.Fatalf("Check(%q) = %v: not an Error within the body", data, err)
			}
		}
		// A second, slower implementation (encoding/json's tokens) agrees
		// on every valid body.
		if valid {
			if ref := checkJSONByTokens(data); (ref == nil) != (err == nil) || err != nil && ref.Reason != err.(*Error).Reason {
				t.Fatalf("Check(%q) = %v; by tokens: %v", data, err, ref)
			}
		}
	})
}

// checkJSONByTokens checks the nesting and the keys of a valid JSON value
// with encoding/json's token reader: the reference FuzzCheckJSON compares
// Check's single pass with.
func checkJSONByTokens(data []byte) *Error {
	type frame struct {
		object, wantKey bool
		keys            map[string]bool
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end (data is valid)
		}
		var top *frame
		if n := len(stack); n > 0 {
			top = stack[n-1]
		}
		d, isDelim := tok.(json.Delim)
		switch {
		case isDelim && (d == '}' || d == ']'):
			stack = stack[:len(stack)-1]
			continue
		case top != nil && top.object && top.wantKey:
			k := tok.(string)
			if top.keys[k] {
				return &Error{Reason: fmt.Sprintf("has the key %q twice in one object", k)}
			}
			top.keys[k] = true
			top.wantKey = false
			continue
		case top != nil && top.object:
			top.wantKey = true
		}
		if isDelim {
			if len(stack) >= MaxDepth {
				return &Error{Reason: fmt.Sprintf("nests arrays and objects deeper than %d levels", MaxDepth)}
			}
			stack = append(stack, &frame{object: d == '{', wantKey: d == '{', keys: map[string]bool{}})
		}
	}
}

func asJSONError(err error, target **Error) bool {
	je, ok := err.(*Error)
	*target = je
	return ok
}
