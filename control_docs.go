package mockplatform

// The documents the control plane serves for tools: the JSON Schema of
// scenario files, for editors (docs/scenario.schema.json), generated from
// the scenario types by the scenario package's tests and committed.

import (
	_ "embed"
	"net/http"

	"github.com/gin-gonic/gin"
)

//go:embed docs/scenario.schema.json
var scenarioSchema []byte

func (p *Platform) registerControlDocs(g *gin.RouterGroup) {
	g.GET("/scenario.schema.json", p.handleControlScenarioSchema)
}

// handleControlScenarioSchema handles "GET /_mock/scenario.schema.json".
func (p *Platform) handleControlScenarioSchema(c *gin.Context) {
	c.Data(http.StatusOK, "application/schema+json", scenarioSchema)
}
