package mockplatform

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/coverage"
)

// operationCalls are the calls of every operation called in a report.
func operationCalls(r *CoverageReport) map[string]uint64 {
	out := map[string]uint64{}
	for _, f := range r.Families {
		for _, op := range f.Operations {
			if op.Calls > 0 {
				out[op.ID] = op.Calls
			}
		}
	}
	return out
}

// TestCoverageEndpoint: GET /_mock/coverage answers the report as JSON
// (Coverage's), Markdown or JUnit XML; a bad format is 400; DELETE
// forgets the counts; a reset keeps them.
func TestCoverageEndpoint(t *testing.T) {
	t.Parallel()
	p, ctl := controlClient(t)
	chatCreate(t, p, nil)
	mustStatus(t, send(t, p.Client(), "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/respond", map[string]any{}, chatHeaders...), 400)
	mustStatus(t, ctl("POST", "/reset", nil), 200)

	r := ctl("GET", "/coverage", nil)
	mustStatus(t, r, 200)
	var got CoverageReport
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatal(err)
	}
	want := p.Coverage()
	if diff := cmp.Diff(want, &got); diff != "" {
		t.Errorf("GET /_mock/coverage differs from Coverage() (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]uint64{"chatCreate": 1, "chatRespond": 1}, operationCalls(&got)); diff != "" {
		t.Errorf("calls after a reset (-want +got):\n%s", diff)
	}

	var md, junit bytes.Buffer
	if err := want.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := want.JUnit(&junit); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		format, ctype, body string
	}{
		{"markdown", "text/plain; charset=utf-8", md.String()},
		{"junit", "application/xml; charset=utf-8", junit.String()},
	} {
		r := ctl("GET", "/coverage?format="+tc.format, nil)
		mustStatus(t, r, 200)
		if ct := r.Header.Get("Content-Type"); ct != tc.ctype {
			t.Errorf("%s: Content-Type %q, want %q", tc.format, ct, tc.ctype)
		}
		if diff := cmp.Diff(tc.body, string(r.Body)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.format, diff)
		}
	}
	var suites struct {
		Tests int `xml:"tests,attr"`
	}
	if err := xml.Unmarshal(junit.Bytes(), &suites); err != nil || suites.Tests != want.Totals.Operations.Total {
		t.Errorf("JUnit: %d test cases (%v), want one per operation (%d)", suites.Tests, err, want.Totals.Operations.Total)
	}

	r = ctl("GET", "/coverage?format=html", nil)
	mustStatus(t, r, 400)
	mustJSON(t, r, map[string]any{"error": "format must be json, markdown or junit"})

	mustStatus(t, ctl("DELETE", "/coverage", nil), 204)
	if got := operationCalls(p.Coverage()); len(got) != 0 {
		t.Errorf("after DELETE: calls %v", got)
	}
}

// TestCoverageWorlds: each world reports its own; the host reports the
// sum of its own paths and every world, deleted ones included; DELETE at
// the host clears them all, at a world that world only.
func TestCoverageWorlds(t *testing.T) {
	t.Parallel()
	host := Start(t, WithoutListener())
	w1, w2 := host.World(t), host.World(t)
	chatCreate(t, host, nil)
	chatCreate(t, w1, nil)
	chatCreate(t, w1, nil)
	chatCreate(t, w2, nil)
	calls := func(p *Platform) uint64 { return operationCalls(p.Coverage())["chatCreate"] }
	if c1, c2, ch := calls(w1), calls(w2), calls(host); c1 != 2 || c2 != 1 || ch != 4 {
		t.Fatalf("chatCreate calls: world 1 %d, world 2 %d, host %d; want 2, 1, 4", c1, c2, ch)
	}
	id2 := strings.TrimPrefix(w2.URL(), host.URL()+"/w/")
	if !host.DeleteWorld(id2) {
		t.Fatal("DeleteWorld")
	}
	if ch := calls(host); ch != 4 {
		t.Errorf("after deleting a world, host chatCreate calls %d, want 4 (the deleted world's kept)", ch)
	}
	w1.ClearCoverage()
	if c1, ch := calls(w1), calls(host); c1 != 0 || ch != 2 {
		t.Errorf("after a world's clear: world %d, host %d; want 0 and 2", c1, ch)
	}
	chatCreate(t, w1, nil)
	r := send(t, host.Client(), "DELETE", host.URL()+"/_mock/coverage", nil)
	mustStatus(t, r, 204)
	if c1, ch := calls(w1), calls(host); c1 != 0 || ch != 0 {
		t.Errorf("after the host's clear: world %d, host %d; want 0 and 0", c1, ch)
	}
}

// TestCoverageFaultsAndPresets: a fault rule that fired and a preset it
// applied are counted; a rule in force that never fired is listed.
func TestCoverageFaultsAndPresets(t *testing.T) {
	t.Parallel()
	p := Start(t, WithoutListener())
	fired, err := p.AddFault(Fault{Match: faultMatch("chat", ""), Action: faultStatus(503), Times: 1})
	if err != nil {
		t.Fatal(err)
	}
	idle, err := p.AddFault(Fault{Match: faultMatch("outbound", ""), Action: FaultAction{Preset: "outbound.outcome:busy"}})
	if err != nil {
		t.Fatal(err)
	}
	mustStatus(t, send(t, p.Client(), "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/create", nil, chatHeaders...), 503)
	r := p.Coverage()
	want := []coverage.FaultRuleReport{{ID: fired.ID, InForce: true, Fired: 1}, {ID: idle.ID, InForce: true}}
	if diff := cmp.Diff(want, r.FaultRules); diff != "" {
		t.Errorf("fault rules (-want +got):\n%s", diff)
	}
	if r.Totals.Presets.Covered != 0 || r.Totals.Presets.Total == 0 {
		t.Errorf("presets %+v, want none of all fired", r.Totals.Presets)
	}
	create := operationCalls(r)["chatCreate"]
	if create != 1 {
		t.Errorf("chatCreate calls %d, want 1 (a fault rule's answer counts as a call)", create)
	}
}
