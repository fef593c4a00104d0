package mockdcontainer

import (
	"context"
	"net/http"

	"github.com/agentplatform/mockplatform"
)

// Coverage is the API coverage report (GET /_mock/coverage): a world's
// own, or mockd's sum over its paths and worlds (docs/coverage.md). It
// is nil when the call fails (Err says why).
func (c *Remote) Coverage() *mockplatform.CoverageReport {
	var r mockplatform.CoverageReport
	if err := c.control(context.Background(), http.MethodGet, "/coverage", nil, http.StatusOK, &r); err != nil {
		c.fail(err)
		return nil
	}
	return &r
}

// ClearCoverage forgets the coverage counted so far (DELETE
// /_mock/coverage; at mockd's root, its worlds' too).
func (c *Remote) ClearCoverage() {
	if err := c.control(context.Background(), http.MethodDelete, "/coverage", nil, http.StatusNoContent, nil); err != nil {
		c.fail(err)
	}
}
