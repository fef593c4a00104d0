package handlers

// The record of runtime error answers, an input of the api_errors metric
// (docs/fidelity.md M12.6): the request middleware notes every answer of a
// runtime family with status 500 or more here.

import (
	"net/http"
	"strings"
	"time"

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
	pair, ok := regionPair("runtime", regionOf(path))
	if !ok {
		return
	}
	segs := strings.Split(strings.Trim(subPath(path), "/"), "/")
	if len(segs) < 3 {
		return
	}
	acct := a.world().account(segs[1])
	if acct == nil || acct.Region != pair {
		return
	}
	proj := acct.Project(segs[2])
	if proj == nil {
		return
	}
	a.store.RecordAPIError(pair, acct.ID, proj.ID, at, longestWindow)
}
