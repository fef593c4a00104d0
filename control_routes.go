package mockplatform

// The control plane's route table: newControl registers it, the guard
// reads it, and a test generates docs/control.openapi.json from it. A new
// control endpoint is one entry here and its handler.

import (
	"net/http"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/internal/apispec"
)

// controlRoute is one route of the control plane; path is below /_mock.
type controlRoute struct {
	method, path string
	handle       func(*Platform, *gin.Context)
	op           apispec.Op
}

const (
	tagCore      = "core"
	tagWorlds    = "worlds"
	tagDocuments = "documents"
	tagFamilies  = "families"
)

var controlTags = []struct{ name, doc string }{
	{tagCore, "The instance: health, clock, reset, scenario, request journal, fault rules and coverage (docs/api.md#control)."},
	{tagWorlds, "Isolated copies of the mock under {base}/w/{id}/, created and deleted at the server's root (docs/worlds.md)."},
	{tagDocuments, "Documents for tools: the OpenAPI documents and the scenario files' JSON Schema."},
	{tagFamilies, "Simulated events of one family each: a caller, alert inputs, webhook deliveries, messaging sessions (docs/api.md#control)."},
}

var (
	controlTableOnce   sync.Once
	controlTableRoutes []controlRoute
)

func controlTable() []controlRoute {
	controlTableOnce.Do(func() { controlTableRoutes = newControlTable() })
	return controlTableRoutes
}

func newControlTable() []controlRoute {
	id := []apispec.Param{{Name: "id", Doc: "The id."}}
	ok := func(body any, doc string) []apispec.Response {
		return []apispec.Response{{Status: http.StatusOK, Body: body, Doc: doc}}
	}
	return []controlRoute{
		{"GET", "/health", (*Platform).handleControlHealth, apispec.Op{ID: "health", Tag: tagCore, Open: true,
			Summary: "Whether the instance serves; needs no token.",
			Responses: []apispec.Response{
				{Status: 200, Body: healthAnswer{}, Doc: "Serving: a host says how many worlds it has, a world its id."},
				{Status: 503, Body: startingAnswer{}, Doc: "mockd is loading its scenario or data file: the load's progress."},
			}}},
		{"GET", "/clock", (*Platform).handleControlClock, apispec.Op{ID: "getClock", Tag: tagCore,
			Summary: "The virtual clock: its time and mode.", Responses: ok(clockResponse{}, "")}},
		{"POST", "/clock/advance", (*Platform).handleControlAdvance, apispec.Op{ID: "advanceClock", Tag: tagCore,
			Summary: "Moves the clock forward by a duration or to a time, running every timer that falls due (docs/time.md).",
			Body:    advanceInput{},
			Responses: []apispec.Response{{Status: 200, Body: clockResponse{}},
				{Status: 503, Body: advanceStopped{}, Doc: "Stopped before its target (the client went away, the server shuts down): the clock is at the last timer fired."}}}},
		{"POST", "/reset", (*Platform).handleControlReset, apispec.Op{ID: "reset", Tag: tagCore,
			Summary:   "Back to the scenario's initial state: data, clock, faults, journal.",
			Responses: ok(resetAnswer{}, "")}},
		{"GET", "/scenario", (*Platform).handleControlScenarioGet, apispec.Op{ID: "getScenario", Tag: tagCore,
			Summary: "The scenario in force, as JSON, secrets redacted.",
			Responses: ok(apispec.Schema{"type": "object",
				"description": "The scenario, with the keys of scenario files (docs/scenarios.md)."}, "")}},
		{"POST", "/scenario", (*Platform).handleControlScenario, apispec.Op{ID: "loadScenario", Tag: tagCore,
			Summary:   "Replaces the scenario (YAML), then resets; a layer (no accounts) goes on top of the starting scenario.",
			BodyTypes: scenarioTypes,
			Responses: []apispec.Response{{Status: 200, Body: scenarioLoaded{}},
				{Status: 400, Body: problemsAnswer{}, Doc: "The scenario is invalid: one problem a line, file:line:column: message."},
				{Status: 400, Body: controlErrorBody{}}}}},
		{"POST", "/scenario/validate", (*Platform).handleControlScenarioValidate, apispec.Op{ID: "validateScenario", Tag: tagCore,
			Summary:   "Checks a scenario (YAML) as the upload would, changing nothing.",
			BodyTypes: scenarioTypes, BodyOptional: true,
			Responses: []apispec.Response{{Status: 200, Body: scenarioValid{}}, {Status: 200, Body: scenarioInvalid{}}}}},
		{"GET", "/requests", (*Platform).handleControlRequests, apispec.Op{ID: "listRequests", Tag: tagCore,
			Summary: "The request journal, oldest first, filtered.",
			Query: []apispec.Param{
				{Name: "family", Doc: "Only this family's requests."},
				{Name: "method", Doc: "Only this method's."},
				{Name: "path", Doc: "Only requests whose path contains this."},
				{Name: "status", Doc: "Only answers of this status.", Type: "integer", Min: apispec.Int(0)},
				{Name: "source", Doc: "Only what clients sent (client) or what the scenario's timeline ran (timeline).", Enum: []string{"client", "timeline"}},
				{Name: "limit", Doc: "Only the last N matches (0: all).", Type: "integer", Min: apispec.Int(0)},
			},
			Errors: []int{400}, Responses: ok(requestsAnswer{}, "")}},
		{"GET", "/timeline", (*Platform).handleControlTimeline, apispec.Op{ID: "getTimeline", Tag: tagCore,
			Summary:   "The scenario's timeline: each entry with its last and next firing, and what its steps did since the reset (docs/timeline.md).",
			Responses: ok(TimelineStatus{}, "")}},
		{"GET", "/faults", (*Platform).handleControlFaults, apispec.Op{ID: "listFaults", Tag: tagCore,
			Summary: "The fault rules with their counters.", Responses: ok(faultsAnswer{}, "")}},
		{"POST", "/faults", (*Platform).handleControlFaultAdd, apispec.Op{ID: "addFault", Tag: tagCore,
			Summary: "Adds a fault rule (docs/scenarios.md#faults); it answers the rule with its id.",
			Body:    Fault{}, Responses: []apispec.Response{{Status: 201, Body: Fault{}}}}},
		{"DELETE", "/faults", (*Platform).handleControlFaultsClear, apispec.Op{ID: "clearFaults", Tag: tagCore,
			Summary: "Removes every fault rule.", Responses: []apispec.Response{{Status: 204}}}},
		{"DELETE", "/faults/:id", (*Platform).handleControlFaultRemove, apispec.Op{ID: "removeFault", Tag: tagCore,
			Summary: "Removes one fault rule.", Path: id, Errors: []int{404},
			Responses: []apispec.Response{{Status: 204}}}},
		{"GET", "/coverage", (*Platform).handleControlCoverage, apispec.Op{ID: "getCoverage", Tag: tagCore,
			Summary: "The API coverage report: what clients exercised since the start or the last clear, across resets (docs/coverage.md).",
			Doc: "Each operation called, each status and error code answered, each state-machine transition taken, each " +
				"fault rule and preset that fired and each clock-driven event kind that ran, out of the mock's catalogue, " +
				"with what was never exercised, most often got wrong first. mockd's root reports the sum of its own paths " +
				"and of every world, deleted ones included; a world reports its own.",
			Query: []apispec.Param{{Name: "format", Enum: []string{coverageJSON, coverageMarkdown, coverageJUnit},
				Doc: "json (default); markdown, a short report; junit, JUnit XML with one test case per operation."}},
			Errors: []int{400},
			Responses: []apispec.Response{
				{Status: 200, Body: CoverageReport{}},
				{Status: 200, Type: "text/plain", Body: apispec.Schema{"type": "string", "description": "The Markdown report."}},
				{Status: 200, Type: "application/xml", Body: apispec.Schema{"type": "string"}},
			}}},
		{"DELETE", "/coverage", (*Platform).handleControlCoverageClear, apispec.Op{ID: "clearCoverage", Tag: tagCore,
			Summary:   "Forgets the coverage counted so far (mockd's root: its worlds' too).",
			Responses: []apispec.Response{{Status: 204}}}},

		{"GET", "/worlds", (*Platform).handleWorldsList, apispec.Op{ID: "listWorlds", Tag: tagWorlds,
			Summary: "The worlds alive, oldest first, and the limits.", Errors: []int{404},
			Responses: ok(worldsAnswer{}, "")}},
		{"POST", "/worlds", (*Platform).handleWorldCreate, apispec.Op{ID: "createWorld", Tag: tagWorlds,
			Summary: "Creates a world: the host's scenario, seed and clock unless given; no body at all is a default world.",
			Body:    worldRequest{}, BodyOptional: true, Errors: []int{404},
			Responses: []apispec.Response{{Status: 201, Body: worldAnswer{}},
				{Status: 400, Body: problemsAnswer{}, Doc: "A scenario is invalid: one problem a line."},
				{Status: 400, Body: controlErrorBody{}},
				{Status: 429, Body: tooManyWorlds{}, Doc: "The world limit (mockd --max-worlds) is reached."}}}},
		{"GET", "/worlds/:id", (*Platform).handleWorldGet, apispec.Op{ID: "getWorld", Tag: tagWorlds,
			Summary: "One world.", Path: id, Errors: []int{404}, Responses: ok(worldAnswer{}, "")}},
		{"DELETE", "/worlds/:id", (*Platform).handleWorldDelete, apispec.Op{ID: "deleteWorld", Tag: tagWorlds,
			Summary: "Deletes a world and everything in it.", Path: id, Errors: []int{404},
			Responses: []apispec.Response{{Status: 204}}}},

		{"GET", "/scenario.schema.json", (*Platform).handleControlScenarioSchema, apispec.Op{ID: "scenarioSchema", Tag: tagDocuments,
			Summary:   "The JSON Schema of scenario files.",
			Responses: []apispec.Response{{Status: 200, Type: "application/schema+json", Body: apispec.Schema{"type": "object"}}}}},
		{"GET", "/openapi.json", (*Platform).handleControlOpenAPI, apispec.Op{ID: "apiDocument", Tag: tagDocuments,
			Summary:   "The OpenAPI document of the emulated API, with this instance as its server (docs/openapi.md).",
			Responses: ok(apispec.Schema{"type": "object"}, "")}},
		{"GET", "/control.openapi.json", (*Platform).handleControlOpenAPIControl, apispec.Op{ID: "controlDocument", Tag: tagDocuments,
			Summary:   "This document, with this instance as its server.",
			Responses: ok(apispec.Schema{"type": "object"}, "")}},

		{"POST", "/dni/dial", (*Platform).handleControlDial, apispec.Op{ID: "dial", Tag: tagFamilies,
			Summary: "A caller dials a reserved number or a connector's number: a voice call starts.",
			Body:    dialInput{}, Errors: []int{404}, Responses: ok(DialResult{}, "")}},
		{"POST", "/calls/:id/say", (*Platform).handleControlSay, apispec.Op{ID: "say", Tag: tagFamilies,
			Summary: "The caller speaks into a voice call (\"\" is silence); the agent's answer.",
			Path:    []apispec.Param{{Name: "id", Doc: "The conversation id."}},
			Body:    sayInput{}, Errors: []int{404, 409, 410}, Responses: ok(SayResult{}, "")}},
		{"POST", "/calls/:id/hangup", (*Platform).handleControlHangup, apispec.Op{ID: "hangup", Tag: tagFamilies,
			Summary: "The caller hangs up a voice call.", Path: []apispec.Param{{Name: "id", Doc: "The conversation id."}},
			Errors: []int{404, 409, 410}, Responses: ok(hangupAnswer{}, "")}},
		{"POST", "/alerts/evaluate", (*Platform).handleControlEvaluate, apispec.Op{ID: "evaluateAlerts", Tag: tagFamilies,
			Summary: "One alert evaluation pass now, with the webhook attempts it starts.",
			Errors:  []int{503}, Responses: ok(evaluatedAnswer{}, "")}},
		{"POST", "/alerts/inputs", (*Platform).handleControlAlertInput, apispec.Op{ID: "recordAlertInput", Tag: tagFamilies,
			Summary: "Records an alert metric input: a function error or crash of a conversation, an API error of a project.",
			Body:    alertInput{}, Errors: []int{404}, Responses: ok(recordedAnswer{}, "")}},
		{"GET", "/webhooks/deliveries", (*Platform).handleControlDeliveries, apispec.Op{ID: "listDeliveries", Tag: tagFamilies,
			Summary: "Every webhook delivery attempt since the last reset, oldest first.", Responses: ok(deliveriesAnswer{}, "")}},
		{"GET", "/messaging/sessions", (*Platform).handleControlMessagingSessions, apispec.Op{ID: "listMessagingSessions", Tag: tagFamilies,
			Summary: "The live messaging sessions, oldest first.", Responses: ok(sessionsAnswer{}, "")}},
		{"POST", "/messaging/sessions/:id/expire", (*Platform).handleControlMessagingExpire, apispec.Op{ID: "expireMessagingSession", Tag: tagFamilies,
			Summary: "Expires a messaging session as idleness would (its sockets close with 4001).",
			Path:    []apispec.Param{{Name: "id", Doc: "The session id."}}, Errors: []int{404},
			Responses: ok(sessionExpired{}, "")}},
		{"POST", "/messaging/tokens/expire", (*Platform).handleControlMessagingTokensExpire, apispec.Op{ID: "expireMessagingTokens", Tag: tagFamilies,
			Summary: "Makes every messaging access token issued so far invalid.", Responses: ok(tokensExpired{}, "")}},
	}
}

func (p *Platform) registerControl(g *gin.RouterGroup) {
	for _, rt := range controlTable() {
		handle := rt.handle
		g.Handle(rt.method, rt.path, func(c *gin.Context) { handle(p, c) })
	}
}

// controlOp returns the operation of a control route, or nil.
func controlOp(method, fullPath string) *apispec.Op {
	for _, rt := range controlTable() {
		if rt.method == method && controlPrefix+rt.path == fullPath {
			return &rt.op
		}
	}
	return nil
}
