package handlers

import "testing"

func TestBadInputProbe(t *testing.T) {
	h := newHarness(t)
	counts := map[int]int{}
	n := 0
	for _, rt := range h.engine.Routes() {
		path := badInputPath(rt, false)
		for _, cr := range h.sc.Credentials {
			for _, hd := range []string{"X-Api-Key", "X-Token", "X-Service-Auth-Token"} {
				r := h.do(rt.Method, path, "{}", hd, cr.Key, "Content-Type", "application/json")
				counts[r.Status]++
				n++
			}
		}
	}
	t.Logf("%d routes, %d requests, %v", len(h.engine.Routes()), n, counts)
}
