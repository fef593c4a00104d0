package mockplatform

// Every exchange of every platform this package's tests start is checked
// against the OpenAPI document (docs/openapi.json, internal/oapicheck):
// a failure fails the test that started the platform, or the package at
// the end (TestMain) for a platform started without one.

import (
	"sync"
	"testing"

	"github.com/agentplatform/mockplatform/handlers"
	"github.com/agentplatform/mockplatform/internal/oapicheck"
)

var (
	oapiChecker = sync.OnceValues(func() (*oapicheck.Checker, error) { return oapicheck.New(openAPIDocument) })
	// controlChecker checks the control plane's exchanges against its own
	// document (docs/control.openapi.json).
	controlChecker = sync.OnceValues(func() (*oapicheck.Checker, error) { return oapicheck.New(controlOpenAPIDocument) })

	orphanMu sync.Mutex
	orphans  []string
)

// observeConformance checks one exchange of the API. A benchmark's
// exchanges are not checked: the check would be what it measures.
func observeConformance(tb TB, ex handlers.Exchange) { checkConformance(tb, ex, oapiChecker) }

// observeControlConformance checks one exchange of the control plane.
func observeControlConformance(tb TB, ex handlers.Exchange) { checkConformance(tb, ex, controlChecker) }

func checkConformance(tb TB, ex handlers.Exchange, checker func() (*oapicheck.Checker, error)) {
	switch tb.(type) {
	case *benchTB, *testing.B:
		return
	}
	chk, err := checker()
	if err == nil {
		err = chk.Check(oapicheck.Exchange{Request: ex.Request, Body: ex.Body, Route: ex.Route, Params: ex.Params,
			Status: ex.Status, Header: ex.Header, Response: ex.Response, Fault: ex.Fault, FaultBody: ex.FaultBody})
	}
	if err == nil {
		return
	}
	if t, ok := tb.(testing.TB); ok {
		t.Errorf("OpenAPI conformance: %v", err)
		return
	}
	orphanMu.Lock()
	orphans = append(orphans, err.Error())
	orphanMu.Unlock()
}

func conformanceOrphans() []string {
	orphanMu.Lock()
	defer orphanMu.Unlock()
	return append([]string(nil), orphans...)
}

// TestConformanceChecked makes sure the check runs: a conversation list
// and a refused request are both checked.
func TestConformanceChecked(t *testing.T) {
	t.Parallel()
	chk, err := oapiChecker()
	if err != nil {
		t.Fatal(err)
	}
	before := chk.Counts()
	p := Start(t, WithoutListener())
	send(t, p.Client(), "GET", p.RuntimeURL("us-1")+"/v3/acme/support/conversations?limit=0", nil, "x-api-key", "test-conversations-key")
	send(t, p.Client(), "GET", p.RuntimeURL("us-1")+"/v3/acme/support/conversations", nil, "x-api-key", "test-conversations-key")
	after := chk.Counts()
	if after.Checked-before.Checked < 2 || after.Refused-before.Refused < 1 {
		t.Errorf("counts before %+v, after %+v", before, after)
	}
}
