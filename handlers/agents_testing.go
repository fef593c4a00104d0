package handlers

// Test runs and test history (docs/api.md#agents-testing): the kit's
// calls that no real document lists (engine/test_runs.go).

import (
	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"
)

// kitCall marks the kit's calls that no real document lists.
var kitCall = &engine.Fidelity{ID: "G28", Note: "the kit's call: no real document lists it"}

// pageParams are the paging parameters of the test lists.
var pageParams = []Param{{Name: "limit", Type: "integer", Min: engine.I64(1), Max: engine.I64(100), Doc: "Default 100."},
	{Name: "offset", Type: "integer", Min: engine.I64(0), Doc: "Default 0."}, {Name: "branchId", Doc: "Only this branch's."}}

// agentTestingRoutes are its routes, in the agents family.
var agentTestingRoutes = []Route{
	route("GET /v1/agents/:agent/testing/test-runs", jsonOp(200, func(a *API, c *gin.Context) (engine.TestRunList, error) {
		return a.TestRuns(principal(c), c.Param("agent"), c.Request.URL.Query())
	}), &Op{ID: "testRunList", Summary: "List test runs", Doc: "Newest first (docs/api.md#agents-testing).",
		Query:     append(pageParams[:len(pageParams):len(pageParams)], Param{Name: "testSetId", Doc: "Runs of a test set: the mock's runs belong to none."}),
		Responses: []Response{ok(200, engine.TestRunList{})}, Errors: []int{400, 404}, Fidelity: kitCall}),
	route("GET /v1/agents/:agent/testing/test-runs/:test_run", jsonOp(200, func(a *API, c *gin.Context) (engine.TestRunDetail, error) {
		return a.TestRun(principal(c), c.Param("agent"), c.Param("test_run"))
	}), &Op{ID: "testRunGet", Summary: "Read a test run", Doc: "With its finished cases (docs/api.md#agents-testing).",
		Responses: []Response{ok(200, engine.TestRunDetail{})}, Errors: []int{404}, Fidelity: kitCall}),
	route("POST /v1/agents/:agent/testing/test-runs/trigger", bodyOp(200, func(a *API, c *gin.Context, b *engine.TestRunBody) (engine.TestRunStarted, error) {
		return a.TriggerTestRun(principal(c), c.Param("agent"), *b)
	}), &Op{ID: "testRunTrigger", Summary: "Run test cases", Doc: "On a branch, on the virtual clock (docs/api.md#agents-testing).",
		Body: engine.TestRunBody{}, Responses: []Response{ok(200, engine.TestRunStarted{})}, Errors: []int{400, 404}, Fidelity: kitCall}),
	route("GET /v1/agents/:agent/testing/test-history", jsonOp(200, func(a *API, c *gin.Context) (engine.TestHistoryPage, error) {
		return a.TestHistory(principal(c), c.Param("agent"), c.Request.URL.Query())
	}), &Op{ID: "testHistoryList", Summary: "List test results", Doc: "Finished cases, newest first (docs/api.md#agents-testing).",
		Query:     append(pageParams[:len(pageParams):len(pageParams)], Param{Name: "testCaseId", Doc: "Only this case's."}),
		Responses: []Response{ok(200, engine.TestHistoryPage{})}, Errors: []int{400, 404}, Fidelity: kitCall}),
}
