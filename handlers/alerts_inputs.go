package handlers

// The record of runtime error answers, an input of the api_errors metric
// (docs/fidelity.md M12.6): the request middleware hands every answer of a
// runtime family to the engine, which records those of status 500 or more.

import (
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"
)

// noteRuntimeError hands the engine an answer of a runtime family with
// what its path names, /{base}/{region}/v1/{account}/{project}/..., and
// the request's time, when its status is an API error (most answers are
// not, so the path is read only for those).
func (a *API) noteRuntimeError(c *gin.Context, status int, at time.Time) {
	if !engine.IsAPIError(status) {
		return
	}
	f := familyOf(c)
	if f == nil || !f.isRuntime() {
		return
	}
	path := c.Request.URL.Path
	ans := engine.RuntimeAnswer{Region: engine.RegionOf(path), Status: status, At: at}
	_, rest, _ := strings.Cut(strings.Trim(engine.SubPath(path), "/"), "/")
	ans.Account, rest, _ = strings.Cut(rest, "/")
	ans.Project, _, _ = strings.Cut(rest, "/")
	a.NoteRuntimeAnswer(ans)
}
