package mockplatform

import (
	"context"
	"net/http"
	"time"
)

// Mock is what an in-process Platform and a mockd container (package
// mockdcontainer, a nested module) both offer: the base addresses, an HTTP
// client, and the control operations of the control plane. A test helper
// that takes a Mock runs against either.
//
// Over the control plane a call can fail; a remote implementation keeps the
// first such failure for its Err method and answers zero values, as
// bufio.Scanner does. The in-process Platform never fails these calls.
type Mock interface {
	URL() string
	RuntimeURL(region string) string
	BuilderURL(region string) string
	MessagingURL() string
	Client() *http.Client

	Now() time.Time
	Advance(d time.Duration) time.Time
	// AdvanceContext is Advance bounded by ctx: once ctx is done the
	// advance stops at a timer boundary and the error says so, with the
	// clock where it stopped (docs/time.md).
	AdvanceContext(ctx context.Context, d time.Duration) (time.Time, error)
	Reset() error
	LoadScenarioYAML(data []byte) error
	Requests(f RequestFilter) []Request
	AddFault(r Fault) (Fault, error)
	RemoveFault(id string) bool
	ClearFaults()
	Faults() []FaultStatus
	// Coverage is the API coverage report (docs/coverage.md): what the
	// mock's clients exercised, across resets; ClearCoverage forgets it.
	Coverage() *CoverageReport
	ClearCoverage()
	// Timeline is the scenario's timeline now: its entries with their
	// last and next firing and what their steps did (GET /_mock/timeline).
	Timeline() TimelineStatus

	// Err is the first failure of a method above that has no error
	// result (nil in process).
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
