package mockplatform

// Fuzz target of the control plane's JSON bodies. Without -fuzz, go test
// runs its seeds; scripts/fuzz.sh runs it for a while
// (docs/security.md#fuzzing).

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// FuzzControlBodies sends bodies to every control-plane call that reads
// one (the clock, fault rules, alert inputs, simulated calls): none
// answers 5xx, and a refused one changes neither the clock nor the fault
// rules. Accepted fault rules are cleared again.
func FuzzControlBodies(f *testing.F) {
	p := newPlatform(f, WithoutListener())
	id := "CONV-0"
	paths := []string{"/clock/advance", "/faults", "/alerts/inputs", "/calls/" + id + "/say", "/dni/dial"}
	for i, b := range []string{`{"duration":"5m"}`, `{"match":{"family":"chat","path":"/v1/**"},"action":{"status":503,"headers":{"Retry-After":"1"}}}`,
		`{"kind":"api_error","account":"acme","project":"support"}`, `{"text":"hello"}`, `{"number":"+14155550100"}`} {
		f.Add(uint8(i), []byte(b))
		f.Add(uint8(i), []byte(b+"}"))
	}
	f.Add(uint8(1), []byte(`{"match":{"path":"/a/**/b/**/c*"},"action":{"preset":"outbound.outcome:busy"},"probability":2}`))
	f.Add(uint8(0), []byte(`{"to":"2027-01-01T00:00:00Z","duration":"1h"}`))
	client := p.Client()
	f.Fuzz(func(t *testing.T, n uint8, body []byte) {
		path := paths[int(n)%len(paths)]
		now, rules := p.Now(), p.Faults()
		req, err := http.NewRequest("POST", p.URL()+"/_mock"+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var answer map[string]any
		derr := json.NewDecoder(resp.Body).Decode(&answer)
		resp.Body.Close()
		switch {
		case resp.StatusCode >= 500:
			t.Fatalf("POST %s %q -> %d %v", path, body, resp.StatusCode, answer)
		case derr != nil:
			t.Fatalf("POST %s %q -> %d, not JSON: %v", path, body, resp.StatusCode, derr)
		case resp.StatusCode >= 400:
			if !p.Now().Equal(now) || len(p.Faults()) != len(rules) {
				t.Fatalf("POST %s %q -> %d changed the clock or the faults", path, body, resp.StatusCode)
			}
		}
		if len(p.Faults()) > 0 {
			p.ClearFaults()
		}
	})
}
