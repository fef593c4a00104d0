package mockplatform

// The coverage of this package's tests (docs/coverage.md): every platform
// a test starts is checked, as the test ends, for answers and moves
// outside the coverage catalogue (the catalogue is complete when none
// are), and its counts add up to the suite's report, which TestMain
// sums up (and -coverage-report writes as JSON).

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/agentplatform/mockplatform/coverage"
	"github.com/agentplatform/mockplatform/handlers"
)

var coverageReport = flag.String("coverage-report", "", "write the API coverage report of this run of the tests (JSON) to this file")

// suiteCoverage sums the coverage of the platforms the tests start.
var suiteCoverage = struct {
	mu   sync.Mutex
	snap coverage.Snapshot
}{snap: coverage.NewSnapshot()}

// checkCoverage fails a test whose platform recorded anything outside the
// catalogue, and adds its counts to the suite's. Benchmarks and the
// tests that depend on the machine's tools (as parity_test.go) are left
// out.
func checkCoverage(tb TB, p *Platform) {
	switch tb.(type) {
	case *benchTB, *testing.B:
		return
	}
	t, ok := tb.(testing.TB)
	if !ok || strings.HasPrefix(t.Name(), envDependent) {
		return
	}
	r := p.Coverage()
	for _, gap := range r.Outside(nil) {
		t.Errorf("coverage catalogue: outside it: %s", gap)
	}
	s := r.Snapshot()
	suiteCoverage.mu.Lock()
	suiteCoverage.snap.Add(s)
	suiteCoverage.mu.Unlock()
}

// finishCoverage prints the suite's coverage and writes its report when
// -coverage-report names a file; it returns the exit code.
func finishCoverage(code int) int {
	suiteCoverage.mu.Lock()
	r := coverage.Build(handlers.Catalogue(), suiteCoverage.snap, nil)
	suiteCoverage.mu.Unlock()
	t := r.Totals
	fmt.Printf("API coverage (root): operations %d/%d, statuses %d/%d, codes %d/%d, transitions %d/%d, clock events %d/%d\n",
		t.Operations.Covered, t.Operations.Total, t.Statuses.Covered, t.Statuses.Total, t.Codes.Covered, t.Codes.Total,
		t.Transitions.Covered, t.Transitions.Total, t.ClockEvents.Covered, t.ClockEvents.Total)
	if *coverageReport == "" {
		return code
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err == nil {
		err = os.WriteFile(*coverageReport, data, 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "coverage report: %v\n", err)
		return 1
	}
	return code
}
