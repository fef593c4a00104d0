package faults

// Fuzz target of fault rules. Without -fuzz, go test runs its seeds;
// scripts/fuzz.sh runs it for a while (docs/security.md#fuzzing).

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzFaultRule decodes a rule from JSON (as POST /_mock/faults reads it),
// adds it to a set, and matches requests against it, one on a path the
// input chooses: nothing panics, a rule Add refuses leaves the set as it
// was, and a rule it accepts is listed.
func FuzzFaultRule(f *testing.F) {
	for _, s := range []string{
		`{"match":{"family":"chat","path":"/v1/*/*/chat/respond"},"action":{"status":504}}`,
		`{"match":{"path":"/**/CONV-*/x"},"action":{"delay":"2s","delay_clock":"virtual"},"times":2,"after":1}`,
		`{"match":{"headers":{"X-Chaos":"*"},"query":{"a":"b"}},"action":{"drop":true},"probability":0.5}`,
		`{"action":{"preset":"outbound.outcome:busy"}}`, `{"action":{"status":42}}`, `{"match":{"path":"**/**"},"action":{"status":500}}`,
	} {
		f.Add([]byte(s), "/v1/acme/support/chat/respond")
	}
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		var r Rule
		if json.Unmarshal(data, &r) != nil {
			return
		}
		s := newSet(1)
		added, err := s.Add(r)
		if err != nil {
			if n := len(s.List()); n != 0 {
				t.Fatalf("a refused rule (%v) left %d rules", err, n)
			}
			return
		}
		if l := s.List(); len(l) != 1 || l[0].ID != added.ID {
			t.Fatalf("the added rule is not listed: %+v", l)
		}
		for _, p := range []string{path, "/", "", "/v1/acme/support/chat/create", strings.Repeat("/a", 50)} {
			s.Match(Request{Family: r.Match.Family, Method: "POST", Path: p, Region: r.Match.Region,
				Header: func(string) string { return "x" }, Query: func(string) (string, bool) { return "b", true }})
		}
	})
}
