package mocktest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/coverage"
)

// Coverer is what RequireCoverage reads; every mockplatform.Mock has it.
type Coverer interface {
	Coverage() *mockplatform.CoverageReport
}

// Requirements of RequireCoverage (docs/coverage.md).

// MinOperations requires at least pct percent of the operations called.
func MinOperations(pct float64) mockplatform.CoverageRequirement { return coverage.MinOperations(pct) }

// MinStatuses requires at least pct percent of the statuses answered.
func MinStatuses(pct float64) mockplatform.CoverageRequirement { return coverage.MinStatuses(pct) }

// MinCodes requires at least pct percent of the error codes answered.
func MinCodes(pct float64) mockplatform.CoverageRequirement { return coverage.MinCodes(pct) }

// MinTransitions requires at least pct percent of the transitions taken.
func MinTransitions(pct float64) mockplatform.CoverageRequirement {
	return coverage.MinTransitions(pct)
}

// MinClockEvents requires at least pct percent of the clock event kinds run.
func MinClockEvents(pct float64) mockplatform.CoverageRequirement {
	return coverage.MinClockEvents(pct)
}

// Transition requires a transition of a machine taken at least once:
// Transition("outbound_call", "calling", "busy").
func Transition(machine, from, to string) mockplatform.CoverageRequirement {
	return coverage.TransitionTaken(machine, from, to)
}

// neverShown is how many never-exercised items a failure lists.
const neverShown = 10

// RequireCoverage fails t when m's coverage report misses one of reqs,
// listing what was never exercised. It returns the report.
//
//	t.Cleanup(func() { mocktest.RequireCoverage(t, p, mocktest.MinOperations(80), mocktest.Transition("outbound_call", "calling", "busy")) })
func RequireCoverage(t testing.TB, m Coverer, reqs ...mockplatform.CoverageRequirement) *mockplatform.CoverageReport {
	t.Helper()
	r := m.Coverage()
	if r == nil {
		msg := "no coverage report"
		if mk, ok := m.(mockplatform.Mock); ok && mk.Err() != nil {
			msg += ": " + mk.Err().Error()
		}
		t.Fatal(msg)
		return nil
	}
	fails := r.Check(reqs...)
	if len(fails) == 0 {
		return r
	}
	var b strings.Builder
	b.WriteString("API coverage: " + strings.Join(fails, "; "))
	if n := len(r.NeverExercised); n > 0 {
		b.WriteString("\nnever exercised, most often got wrong first:")
		for _, it := range r.NeverExercised[:min(n, neverShown)] {
			b.WriteString("\n  - " + it.Text)
		}
		if n > neverShown {
			b.WriteString("\n  ... and more (GET /_mock/coverage lists them all)")
		}
	}
	t.Error(b.String())
	return r
}

// suiteCoverage: counts per call, kept across a reset, forgotten when cleared.
func suiteCoverage(t *testing.T, m mockplatform.Mock) {
	ChatCreate(t, m)
	r := Do(t, m, "POST", m.RuntimeURL("us-1")+suiteChatPath+"/respond", map[string]any{"message": "hi"})
	MustStatus(t, r, http.StatusBadRequest)
	if err := m.Reset(); err != nil {
		t.Fatal(err)
	}
	rep := m.Coverage()
	if rep == nil {
		t.Fatalf("Coverage() = nil: %v", m.Err())
	}
	create, respond := findOperation(rep, "chatCreate"), findOperation(rep, "chatRespond")
	if create == nil || respond == nil {
		t.Fatal("the report lacks chatCreate or chatRespond")
	}
	if create.Calls != 1 || statusCount(create, http.StatusOK) != 1 {
		t.Errorf("chatCreate: %d calls, %d answered 200; want 1 and 1", create.Calls, statusCount(create, http.StatusOK))
	}
	if respond.Calls != 1 || statusCount(respond, http.StatusBadRequest) != 1 {
		t.Errorf("chatRespond: %d calls, %d answered 400; want 1 and 1", respond.Calls, statusCount(respond, http.StatusBadRequest))
	}
	if got := rep.Totals.Operations; got.Covered != 2 || got.Total < 2 {
		t.Errorf("operations covered %d of %d, want 2 of all", got.Covered, got.Total)
	}
	if fails := rep.Check(MinOperations(0.1)); fails != nil {
		t.Errorf("Check(MinOperations(0.1)) = %v", fails)
	}
	m.ClearCoverage()
	if rep := m.Coverage(); rep == nil || rep.Totals.Operations.Covered != 0 {
		t.Errorf("after ClearCoverage: %+v", rep)
	}
}

func findOperation(r *mockplatform.CoverageReport, id string) *coverage.OperationReport {
	for fi := range r.Families {
		for oi := range r.Families[fi].Operations {
			if op := &r.Families[fi].Operations[oi]; op.ID == id {
				return op
			}
		}
	}
	return nil
}

func statusCount(op *coverage.OperationReport, status int) uint64 {
	for _, s := range op.Statuses {
		if s.Status == status {
			return s.Count
		}
	}
	return 0
}
