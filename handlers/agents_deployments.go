package handlers

// Deployments of an agent: publish main to sandbox, promote along
// sandbox → pre-release → live, roll back.

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"
)

var agentDeploymentsRoutes = []Route{
	route("POST /v1/agents/:agent/deployments/publish", (*API).handleDeploymentPublish, opDeploymentPublish),
	route("GET /v1/agents/:agent/deployments", (*API).handleDeploymentList, opDeploymentList),
	route("GET /v1/agents/:agent/deployments/active", (*API).handleDeploymentActive, opDeploymentActive),
	route("POST /v1/agents/:agent/deployments/:deployment/promote", (*API).handleDeploymentPromote, opDeploymentPromote),
	route("POST /v1/agents/:agent/deployments/:deployment/rollback", (*API).handleDeploymentRollback, opDeploymentRollback),
}

var (
	opDeploymentPublish = &Op{ID: "deploymentPublish", Summary: "Publish main to sandbox",
		Doc:  "A new sandbox deployment of main's content (docs/api.md#agents-deployments).",
		Body: publishBody{}, BodyOptional: true, Responses: deployAnswers(201),
		Errors: []int{400, 404, 409}}
	opDeploymentList = &Op{ID: "deploymentList", Summary: "List deployments",
		Doc: "The deployments of one environment, newest first.",
		Query: []Param{
			{Name: "environment", Enum: engine.DeployEnvs, Required: true},
			{Name: "limit", Type: "integer", Min: engine.I64(1), Doc: "At most this many (default all)."},
		},
		Responses: []Response{ok(200, engine.DeploymentList{})}, Errors: []int{400, 404}}
	opDeploymentActive = &Op{ID: "deploymentActive", Summary: "Active deployments",
		Doc: "The newest deployment of each environment (null when none).", Responses: []Response{ok(200, engine.ActiveDeploymentsView{})},
		Errors: []int{404}}
	opDeploymentPromote = &Op{ID: "deploymentPromote", Summary: "Promote a deployment",
		Doc:  "A new deployment of the same version in the next environment, or in targetEnvironment (docs/api.md#agents-deployments).",
		Body: promoteBody{}, BodyOptional: true, Responses: deployAnswers(200), Errors: []int{400, 404, 412}}
	opDeploymentRollback = &Op{ID: "deploymentRollback", Summary: "Roll back to a deployment",
		Doc:  "A new sandbox deployment of the given (older) deployment's version.",
		Body: publishBody{}, BodyOptional: true, Responses: deployAnswers(200), Errors: []int{400, 404}}
)

// deployAnswers are a deployment answer, bare or wrapped (D6).
func deployAnswers(status int) []Response {
	return []Response{ok(status, engine.Deployment{}), {Status: status, Body: engine.WrappedDeployment{},
		Fidelity: &engine.Fidelity{ID: "D6", Switch: engine.SwitchDeployResponse, Value: "wrapped", Note: "the real service's wrapped answer"}}}
}

type (
	publishBody struct {
		Environment       string `json:"environment"`
		DeploymentMessage string `json:"deploymentMessage"`
	}
	promoteBody struct {
		TargetEnvironment string `json:"targetEnvironment"`
		DeploymentMessage string `json:"deploymentMessage"`
	}
)

func (publishBody) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{"environment": {Enum: engine.DeployEnvs[:1], Doc: "Publishing goes to sandbox (rollback ignores it)."}}
}

func (promoteBody) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{"targetEnvironment": {Enum: engine.PromoteTargets,
		Doc:      "Default: the next stage.",
		Fidelity: &engine.Fidelity{ID: "D21", Switch: engine.SwitchPromoteSkip, Value: "reject", Note: "sandbox to live is 412"}}}
}

// renderDeployment answers a deployment per deploy_response (D6), with
// the test runs it started.
func (a *API) renderDeployment(c *gin.Context, status int, d *engine.Deployment, runs ...string) {
	if a.View().Fidelity(engine.SwitchDeployResponse) == "wrapped" {
		c.JSON(status, engine.WrappedDeployment{Deployment: d, TestRunIDs: append([]string{}, runs...)})
		return
	}
	c.JSON(status, d)
}

func deploymentMessage(f *fieldBody) (string, bool) { return f.str("deploymentMessage") }

// handleDeploymentPublish handles "POST .../deployments/publish"
// (docs/api.md#agents-deployments).
func (a *API) handleDeploymentPublish(c *gin.Context) error {
	f, err := readFields(c, true, engine.BodyFields(publishBody{})...)
	if err != nil {
		return err
	}
	if env, ok := f.str("environment"); ok && env != "sandbox" {
		return &engine.Error{Kind: engine.KindInvalid, Code: engine.CodeDeployInvalidEnv, Message: engine.MsgPublishSandbox,
			Fields: []engine.FieldError{{Field: "environment", Message: "must be sandbox"}}}
	}
	msg, _ := deploymentMessage(f)
	if err := f.err(); err != nil {
		return err
	}
	dep, err := a.Publish(principal(c), c.Param("agent"), msg)
	if err != nil {
		return err
	}
	runs, err := a.TestRuns().TestDeployment(principal(c), c.Param("agent"))
	if err != nil {
		return err
	}
	a.renderDeployment(c, http.StatusCreated, dep, runs...)
	return nil
}

// handleDeploymentPromote handles "POST .../deployments/{id}/promote"
// (D21).
func (a *API) handleDeploymentPromote(c *gin.Context) error {
	f, err := readFields(c, true, engine.BodyFields(promoteBody{})...)
	if err != nil {
		return err
	}
	target, _ := f.enum("targetEnvironment", engine.PromoteTargets)
	msg, _ := deploymentMessage(f)
	if err := f.err(); err != nil {
		return err
	}
	out, err := a.Promote(principal(c), c.Param("agent"), c.Param("deployment"), target, msg)
	if err != nil {
		return err
	}
	a.renderDeployment(c, http.StatusOK, out)
	return nil
}

// handleDeploymentRollback handles "POST .../deployments/{id}/rollback":
// a new sandbox deployment of the target's version (G8).
func (a *API) handleDeploymentRollback(c *gin.Context) error {
	if _, err := readFields(c, true, "deploymentMessage"); err != nil { // rollback reads the message only
		return err
	}
	out, err := a.Rollback(principal(c), c.Param("agent"), c.Param("deployment"))
	if err != nil {
		return err
	}
	out.Metadata = nil
	a.renderDeployment(c, http.StatusOK, out)
	return nil
}

// handleDeploymentList handles "GET .../deployments?environment=&limit=":
// newest first (docs/api.md#agents-deployments).
func (a *API) handleDeploymentList(c *gin.Context) error {
	env := c.Query("environment")
	if !slices.Contains(engine.DeployEnvs, env) {
		return &engine.Error{Kind: engine.KindInvalid, Code: engine.CodeDeployInvalidEnv, Message: engine.MsgDeployInvalidEnv,
			Fields: []engine.FieldError{{Field: "environment", Message: "must be one of: sandbox, pre-release, live"}}}
	}
	limit := 0
	if s, ok := c.GetQuery("limit"); ok {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return engine.Invalid(engine.CodeValidation, engine.MsgValidationFailed, engine.FieldError{Field: "limit", Message: "must be a positive integer"})
		}
		limit = n
	}
	out, err := a.Deployments(principal(c), c.Param("agent"), env, limit)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, engine.DeploymentList{Deployments: out})
	return nil
}

// handleDeploymentActive handles "GET .../deployments/active".
func (a *API) handleDeploymentActive(c *gin.Context) error {
	act, err := a.ActiveDeployments(principal(c), c.Param("agent"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, engine.ActiveDeploymentsView{ActiveDeployments: act})
	return nil
}
