package console

import (
	"net/http"

	"github.com/agentplatform/mockplatform/scenario"
)

type scenarioPage struct {
	page
	S        *scenario.Scenario
	Projects int
}

// handleScenario serves the scenario and the editor that validates and
// loads one.
func (c *Console) handleScenario(w http.ResponseWriter, r *http.Request) {
	p := scenarioPage{page: c.newPage(r, "scenario", "Scenario"), S: c.b.Scenario()}
	if p.S != nil {
		for _, a := range p.S.Accounts {
			p.Projects += len(a.Projects)
		}
	}
	c.render(w, r, "scenario", http.StatusOK, p)
}
