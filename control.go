package mockplatform

// The control plane ({base}/_mock, docs/api.md#control): each endpoint
// calls the Platform method a Go test would call.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/handlers"
	"github.com/agentplatform/mockplatform/journal"
	"github.com/agentplatform/mockplatform/scenario"
)

// maxControlBody bounds a scenario upload, as it bounds a scenario file.
const maxControlBody = scenario.MaxScenarioBytes

const controlPrefix = "/_mock"

// newControl builds the control plane's engine, apart from the API's so a
// control call is neither journaled nor subject to fault rules.
func (p *Platform) newControl() *gin.Engine {
	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	e.NoRoute(func(c *gin.Context) {
		controlError(c, http.StatusNotFound, "No route for "+c.Request.Method+" "+c.Request.URL.Path+".")
	})
	if obs := testObserveControl; obs != nil {
		tb := p.cfg.tb
		e.Use(observeControl(func(ex handlers.Exchange) { obs(tb, ex) }))
	}
	e.NoMethod(func(c *gin.Context) {
		controlError(c, http.StatusMethodNotAllowed, "Method "+c.Request.Method+" is not allowed here; allowed: "+c.Writer.Header().Get("Allow")+".")
	})
	g := e.Group(controlPrefix, controlRecovery, boundControlBody, p.guardControl)
	p.registerControl(g) // control_routes.go
	p.registerControlConsole(g, e)
	return e
}

// isControl reports whether a path belongs to the control plane.
func isControl(path string) bool {
	rest, ok := strings.CutPrefix(path, controlPrefix)
	return ok && (rest == "" || rest[0] == '/')
}

// controlRecovery answers a panic in a control handler with JSON.
func controlRecovery(c *gin.Context) {
	defer func() {
		if r := recover(); r != nil {
			c.AbortWithStatusJSON(http.StatusInternalServerError, controlErrorBody{Error: "internal error"})
		}
	}()
	c.Next()
}

func controlError(c *gin.Context, status int, msg string) {
	c.AbortWithStatusJSON(status, controlErrorBody{Error: msg})
}

// Bounds of control-plane JSON bodies.
const (
	maxControlSmall = 64 << 10 // clock, calls, alert inputs
	maxControlFault = 1 << 20  // a fault rule
)

// controlBodyLimit is the most a control call's body may hold.
func controlBodyLimit(c *gin.Context) int64 {
	switch c.FullPath() {
	case controlPrefix + "/scenario", controlPrefix + "/scenario/validate", controlPrefix + "/worlds":
		return maxControlBody
	case controlPrefix + "/faults":
		return maxControlFault
	}
	return maxControlSmall
}

// boundControlBody answers 413 to a control call whose Content-Length is
// over its limit before reading the body, and closes the connection, so
// the answer never waits for a body that may not come.
func boundControlBody(c *gin.Context) {
	if limit := controlBodyLimit(c); c.Request.ContentLength > limit {
		c.Header("Connection", "close")
		msg := fmt.Sprintf("the body exceeds %d bytes (its Content-Length is %d)", limit, c.Request.ContentLength)
		if strings.HasPrefix(c.FullPath(), controlPrefix+"/scenario") {
			msg = scenarioTooLarge
		}
		controlError(c, http.StatusRequestEntityTooLarge, msg)
	}
}

var errControlTooLarge = errors.New("body too large")

// bindControl reads a control call's JSON body into v by the rules of
// every body the mock reads (engine.CheckJSON), refusing unknown fields.
// An absent body leaves v as it is. On a problem it answers and returns false.
func bindControl(c *gin.Context, limit int64, v any, usage string) bool {
	err := decodeControl(c.Request.Body, limit, v)
	switch {
	case errors.Is(err, errControlTooLarge):
		controlError(c, http.StatusRequestEntityTooLarge, usage+": the body exceeds "+strconv.FormatInt(limit, 10)+" bytes")
		return false
	case err != nil:
		controlError(c, http.StatusBadRequest, usage+": "+err.Error())
		return false
	}
	return true
}

func decodeControl(body io.Reader, limit int64, v any) error {
	if body == nil {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return err
	}
	if int64(len(data)) > limit {
		return errControlTooLarge
	}
	if len(data) == 0 {
		return nil
	}
	return handlers.DecodeJSON(data, v)
}

type clockResponse struct {
	Now  string `json:"now"`
	Mode string `json:"mode"`
}

func (p *Platform) clockBody() clockResponse {
	return clockResponse{Now: p.Now().Format(time.RFC3339Nano), Mode: string(p.clock.Mode())}
}

// handleControlHealth handles "GET /_mock/health".
func (p *Platform) handleControlHealth(c *gin.Context) {
	if m := p.cfg.mount; m != nil {
		c.JSON(http.StatusOK, healthAnswer{Status: "ok", World: m.id})
		return
	}
	n := p.worldCount()
	c.JSON(http.StatusOK, healthAnswer{Status: "ok", Worlds: &n})
}

// handleControlClock handles "GET /_mock/clock".
func (p *Platform) handleControlClock(c *gin.Context) {
	c.JSON(http.StatusOK, p.clockBody())
}

// handleControlAdvance handles "POST /_mock/clock/advance" {"duration"} or
// {"to"}. The advance runs under the request's context, so a client that
// goes away stops it at a timer boundary (503, docs/time.md).
func (p *Platform) handleControlAdvance(c *gin.Context) {
	var req advanceInput
	if !bindControl(c, maxControlSmall, &req, `body must be {"duration":"5m"} or {"to":"<RFC 3339 time>"}`) {
		return
	}
	var to time.Time
	if req.To != "" {
		var err error
		if to, err = time.Parse(time.RFC3339Nano, req.To); err != nil {
			controlError(c, http.StatusBadRequest, "to must be an RFC 3339 time such as 2026-01-02T15:04:05Z")
			return
		}
	}
	var err error
	switch {
	case req.Duration != "" && req.To != "":
		controlError(c, http.StatusBadRequest, "give duration or to, not both")
		return
	case req.Duration != "":
		d, perr := time.ParseDuration(req.Duration)
		if perr != nil || d < 0 {
			controlError(c, http.StatusBadRequest, "duration must be a non-negative Go duration such as 90s, 5m or 1h30m")
			return
		}
		_, err = p.AdvanceContext(c.Request.Context(), d)
	case req.To != "":
		if to.Before(p.Now()) {
			controlError(c, http.StatusBadRequest, "to is before now: the clock only moves forward")
			return
		}
		_, err = p.clock.Set(c.Request.Context(), to)
	default:
		controlError(c, http.StatusBadRequest, "duration or to is required")
		return
	}
	if err != nil {
		body := p.clockBody()
		c.AbortWithStatusJSON(http.StatusServiceUnavailable, advanceStopped{Error: err.Error(), Now: body.Now, Mode: body.Mode, Cancelled: true})
		return
	}
	c.JSON(http.StatusOK, p.clockBody())
}

// advanceStopped answers an advance that stopped before its target.
type advanceStopped struct {
	Error     string `json:"error"`
	Now       string `json:"now"`
	Mode      string `json:"mode"`
	Cancelled bool   `json:"cancelled"`
}

// handleControlReset handles "POST /_mock/reset".
func (p *Platform) handleControlReset(c *gin.Context) {
	if err := p.Reset(); err != nil {
		controlError(c, http.StatusInternalServerError, err.Error())
		return
	}
	c.JSON(http.StatusOK, resetAnswer{Status: "ok", Now: p.Now().Format(time.RFC3339Nano)})
}

// handleControlScenario handles "POST /_mock/scenario" (YAML): it replaces
// the scenario, then resets.
func (p *Platform) handleControlScenario(c *gin.Context) {
	p.uploads.Lock()
	defer p.uploads.Unlock()
	data, ok := readScenarioUpload(c)
	if !ok {
		return
	}
	if len(bytes.TrimSpace(data)) == 0 {
		controlError(c, http.StatusBadRequest, "the body must be a scenario in YAML (it is empty)")
		return
	}
	sc, err := handlers.Vocabulary().Parse("<request>", data)
	if err == nil {
		err = ValidateScenario(sc)
	}
	if err == nil {
		err = p.LoadScenario(sc)
	}
	if err != nil {
		var list scenario.Errors
		if errors.As(err, &list) {
			problems := make([]string, len(list))
			for i, e := range list {
				problems[i] = e.Error()
			}
			c.AbortWithStatusJSON(http.StatusBadRequest, problemsAnswer{Error: "invalid scenario", Problems: problems})
			return
		}
		controlError(c, http.StatusBadRequest, err.Error())
		return
	}
	c.JSON(http.StatusOK, scenarioLoaded{Status: "ok", Name: sc.Name, Now: p.Now().Format(time.RFC3339Nano)})
}

// scenarioProblem is one problem of a scenario at its line and column
// (0: no place in the text).
type scenarioProblem struct {
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

// handleControlScenarioValidate handles "POST /_mock/scenario/validate":
// it checks a scenario as POST /_mock/scenario would and changes nothing.
func (p *Platform) handleControlScenarioValidate(c *gin.Context) {
	p.uploads.Lock()
	defer p.uploads.Unlock()
	data, ok := readScenarioUpload(c)
	if !ok {
		return
	}
	sc, err := handlers.Vocabulary().Parse("<request>", data)
	if err == nil {
		err = ValidateScenario(sc)
	}
	if err == nil {
		c.JSON(http.StatusOK, scenarioValid{Valid: true, Name: sc.Name})
		return
	}
	problems := []scenarioProblem{}
	var list scenario.Errors
	if errors.As(err, &list) {
		for _, e := range list {
			problems = append(problems, scenarioProblem{Line: e.Line, Column: e.Column, Message: e.Msg})
		}
	} else {
		problems = append(problems, scenarioProblem{Message: err.Error()})
	}
	c.JSON(http.StatusOK, scenarioInvalid{Valid: false, Problems: problems})
}

var scenarioTooLarge = fmt.Sprintf("the scenario exceeds %d bytes: generate large data sets with generate: (docs/scenarios.md#bounds)", maxControlBody)

// readScenarioUpload reads a scenario upload of at most maxControlBody
// bytes. Callers hold p.uploads, so concurrent uploads do not add up their
// memory.
func readScenarioUpload(c *gin.Context) ([]byte, bool) {
	if c.Request.ContentLength > maxControlBody {
		controlError(c, http.StatusRequestEntityTooLarge, scenarioTooLarge)
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(c.Request.Body, maxControlBody+1))
	if err != nil {
		controlError(c, http.StatusBadRequest, "the scenario could not be read: "+err.Error())
		return nil, false
	}
	if len(data) > maxControlBody {
		controlError(c, http.StatusRequestEntityTooLarge, scenarioTooLarge)
		return nil, false
	}
	return data, true
}

// handleControlScenarioGet handles "GET /_mock/scenario": the scenario,
// redacted (scenario.Redacted).
func (p *Platform) handleControlScenarioGet(c *gin.Context) {
	c.JSON(http.StatusOK, p.Scenario().Redacted())
}

// handleControlRequests handles "GET /_mock/requests" and its filters.
func (p *Platform) handleControlRequests(c *gin.Context) {
	f := RequestFilter{Family: c.Query("family"), Method: c.Query("method"), Path: c.Query("path"), Source: c.Query("source")}
	if f.Source != "" && f.Source != journal.SourceClient && f.Source != journal.SourceTimeline {
		controlError(c, http.StatusBadRequest, "source must be client or timeline")
		return
	}
	for _, q := range []struct {
		name string
		dst  *int
	}{{"status", &f.Status}, {"limit", &f.Limit}} {
		if v := c.Query(q.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				controlError(c, http.StatusBadRequest, q.name+" must be a non-negative integer")
				return
			}
			*q.dst = n
		}
	}
	list := p.Requests(f)
	if list == nil {
		list = []Request{}
	}
	c.JSON(http.StatusOK, requestsAnswer{Requests: list})
}

// handleControlFaults handles "GET /_mock/faults".
func (p *Platform) handleControlFaults(c *gin.Context) {
	list := p.Faults()
	if list == nil {
		list = []FaultStatus{}
	}
	c.JSON(http.StatusOK, faultsAnswer{Faults: redactedFaults(list)})
}

// handleControlFaultAdd handles "POST /_mock/faults" (a JSON fault rule).
func (p *Platform) handleControlFaultAdd(c *gin.Context) {
	var r Fault
	if !bindControl(c, maxControlFault, &r, "invalid fault rule") {
		return
	}
	added, err := p.AddFault(r)
	if err != nil {
		controlError(c, http.StatusBadRequest, err.Error())
		return
	}
	c.JSON(http.StatusCreated, scenario.RedactFault(added))
}

// redactedFaults are fault rules fit to show, credential values redacted.
func redactedFaults(list []FaultStatus) []FaultStatus {
	for i := range list {
		list[i].Rule = scenario.RedactFault(list[i].Rule)
	}
	return list
}

// handleControlFaultsClear handles "DELETE /_mock/faults".
func (p *Platform) handleControlFaultsClear(c *gin.Context) {
	p.ClearFaults()
	c.Status(http.StatusNoContent)
}

// handleControlFaultRemove handles "DELETE /_mock/faults/{id}".
func (p *Platform) handleControlFaultRemove(c *gin.Context) {
	if !p.RemoveFault(c.Param("id")) {
		controlError(c, http.StatusNotFound, "no fault rule "+strconv.Quote(c.Param("id")))
		return
	}
	c.Status(http.StatusNoContent)
}
