package handlers

// The record of runtime error answers, an input of the api_errors metric
// (docs/fidelity.md M12.6): the request middleware notes every answer of a
// runtime family with status 500 or more here.

import (
	"net/http"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"
)

// noteRuntimeError records an answer of a runtime family with status 500
// or more, stamped at the request's time, as an API error of the account
// and project its path names (the runtime region must be the account's).
func (a *API) noteRuntimeError(c *gin.Context, status int, at time.Time) {
	if status < http.StatusInternalServerError {
		return
	}
	f := familyOf(c)
	if f == nil || !f.isRuntime() {
		return
	}
	path := c.Request.URL.Path
	pair, ok := engine.RegionPair("runtime", engine.RegionOf(path))
	if !ok {
		return
	}
	segs := strings.Split(strings.Trim(engine.SubPath(path), "/"), "/")
	if len(segs) < 3 {
		return
	}
	acct := a.World().Account(segs[1])
	if acct == nil || acct.Region != pair {
		return
	}
	proj := acct.Project(segs[2])
	if proj == nil {
		return
	}
	a.Store().RecordAPIError(pair, acct.ID, proj.ID, at, engine.LongestWindow)
}
