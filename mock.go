package mockplatform

import (
	"context"
	"net/http"
	"time"
)

// Mock is what an in-process Platform and a mockd container (package
// mockdcontainer) both offer, so a test helper that takes a Mock runs
// against either. A remote Mock keeps its first control failure for Err
// and answers zero values, as bufio.Scanner does.
type Mock interface {
	URL() string
	RuntimeURL(region string) string
	BuilderURL(region string) string
	MessagingURL() string
	Client() *http.Client

	Now() time.Time
	Advance(d time.Duration) time.Time
	// AdvanceContext is Advance bounded by ctx (docs/time.md).
	AdvanceContext(ctx context.Context, d time.Duration) (time.Time, error)
	Reset() error
	LoadScenarioYAML(data []byte) error
	Requests(f RequestFilter) []Request
	AddFault(r Fault) (Fault, error)
	RemoveFault(id string) bool
	ClearFaults()
	Faults() []FaultStatus
	// Coverage is the API coverage report (docs/coverage.md).
	Coverage() *CoverageReport
	ClearCoverage()
	// Timeline is the scenario's timeline now.
	Timeline() TimelineStatus

	// Err is the first failure of a method without an error result.
	Err() error
}

var _ Mock = (*Platform)(nil)

// LoadScenarioYAML parses a YAML scenario, replaces the scenario with it and
// resets.
func (p *Platform) LoadScenarioYAML(data []byte) error {
	sc, err := parseScenario(data)
	if err != nil {
		return err
	}
	return p.LoadScenario(sc)
}
