package mockplatform

// The API coverage report (docs/coverage.md). A host reports the sum of
// its own paths, its worlds and the worlds it deleted.

import (
	"bytes"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/coverage"
	"github.com/agentplatform/mockplatform/handlers"
)

type (
	// CoverageReport is the coverage report: GET /_mock/coverage's JSON.
	CoverageReport = coverage.Report
	// CoverageRequirement is a condition a report must meet.
	CoverageRequirement = coverage.Requirement
)

// Coverage reports what the platform's clients exercised out of the family
// table's catalogue. Reset keeps the counts; ClearCoverage forgets them.
func (p *Platform) Coverage() *CoverageReport {
	s := coverage.NewSnapshot()
	p.api.Coverage().AddTo(&s)
	rules := faultIDs(p.Faults())
	if ws := p.worlds; ws != nil {
		ws.mu.Lock()
		s.Add(ws.retired)
		worlds := ws.coveredLocked()
		ws.mu.Unlock()
		for _, w := range worlds {
			w.api.Coverage().AddTo(&s)
			rules = append(rules, faultIDs(w.Faults())...)
		}
	}
	return coverage.Build(handlers.Catalogue(), s, rules)
}

// ClearCoverage forgets the coverage counted so far, worlds' included.
func (p *Platform) ClearCoverage() {
	p.api.Coverage().Clear()
	if ws := p.worlds; ws != nil {
		ws.mu.Lock()
		ws.retired = coverage.NewSnapshot()
		worlds := ws.coveredLocked()
		ws.mu.Unlock()
		for _, w := range worlds {
			w.api.Coverage().Clear()
		}
	}
}

// coveredLocked are the worlds whose counts are not in retired yet: the
// live ones and those being closed. ws.mu must be held.
func (ws *worldSet) coveredLocked() []*Platform {
	out := make([]*Platform, 0, len(ws.worlds)+len(ws.closing))
	for _, w := range ws.worlds {
		out = append(out, w.p)
	}
	for _, w := range ws.closing {
		out = append(out, w.p)
	}
	return out
}

// retire adds a closed world's counts to its host's and forgets the world.
func (ws *worldSet) retire(id string, p *Platform) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if w, ok := ws.worlds[id]; ok && w.p == p {
		delete(ws.worlds, id)
	}
	if w, ok := ws.closing[id]; ok && w.p == p {
		delete(ws.closing, id)
	}
	p.api.Coverage().AddTo(&ws.retired) // the world's counts lock is a leaf
}

func faultIDs(list []FaultStatus) []string {
	out := make([]string, len(list))
	for i, f := range list {
		out[i] = f.ID
	}
	return out
}

const (
	coverageJSON     = "json"
	coverageMarkdown = "markdown"
	coverageJUnit    = "junit"
)

// handleControlCoverage handles "GET /_mock/coverage" (?format=).
func (p *Platform) handleControlCoverage(c *gin.Context) {
	format := c.DefaultQuery("format", coverageJSON)
	r := p.Coverage()
	var buf bytes.Buffer
	var err error
	switch format {
	case coverageJSON:
		c.JSON(http.StatusOK, r)
		return
	case coverageMarkdown:
		err = r.Markdown(&buf)
		c.Header("Content-Type", "text/plain; charset=utf-8") // Markdown, shown as it is
	case coverageJUnit:
		err = r.JUnit(&buf)
		c.Header("Content-Type", "application/xml; charset=utf-8")
	default:
		controlError(c, http.StatusBadRequest, "format must be json, markdown or junit")
		return
	}
	if err != nil {
		controlError(c, http.StatusInternalServerError, "coverage report: "+err.Error())
		return
	}
	c.Status(http.StatusOK)
	if _, err := c.Writer.Write(buf.Bytes()); err != nil {
		p.cfg.logger.Debug("coverage report: write", "err", err)
	}
}

// handleControlCoverageClear handles "DELETE /_mock/coverage".
func (p *Platform) handleControlCoverageClear(c *gin.Context) {
	p.ClearCoverage()
	c.Status(http.StatusNoContent)
}
