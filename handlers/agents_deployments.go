package handlers

// Deployments of an agent: publish the main branch to
// sandbox, promote along sandbox → pre-release → live, roll back, list,
// and the active deployment per environment. Each published content is an
// agent_snapshot document shared by the deployments that point at it.

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/store"
)

// agentDeploymentsRoutes are the routes of AgentDeployments.
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
			{Name: "environment", Enum: deployEnvs, Required: true},
			{Name: "limit", Type: "integer", Min: i64(1), Doc: "At most this many (default all)."},
		},
		Responses: []Response{ok(200, deploymentList{})}, Errors: []int{400, 404}}
	opDeploymentActive = &Op{ID: "deploymentActive", Summary: "Active deployments",
		Doc: "The newest deployment of each environment (null when none).", Responses: []Response{ok(200, activeDeploymentsView{})},
		Errors: []int{404}}
	opDeploymentPromote = &Op{ID: "deploymentPromote", Summary: "Promote a deployment",
		Doc:  "A new deployment of the same version in the next environment, or in targetEnvironment (docs/api.md#agents-deployments).",
		Body: promoteBody{}, BodyOptional: true, Responses: deployAnswers(200), Errors: []int{400, 404, 412}}
	opDeploymentRollback = &Op{ID: "deploymentRollback", Summary: "Roll back to a deployment",
		Doc:  "A new sandbox deployment of the given (older) deployment's version.",
		Body: publishBody{}, BodyOptional: true, Responses: deployAnswers(200), Errors: []int{400, 404}}
)

// deployAnswers are a deployment answer: a bare record, or wrapped under
// deploy_response: wrapped (D6).
func deployAnswers(status int) []Response {
	return []Response{ok(status, deployment{}), {Status: status, Body: wrappedDeployment{},
		Fidelity: &Fidelity{ID: "D6", Switch: switchDeployResponse, Value: "wrapped", Note: "the real service's wrapped answer"}}}
}

type (
	wrappedDeployment struct {
		Deployment *deployment `json:"deployment"`
		TestRunIDs []string    `json:"testRunIds"`
	}
	deploymentList struct {
		Deployments []*deployment `json:"deployments"`
	}
	activeDeploymentsView struct {
		ActiveDeployments activeDeployments `json:"activeDeployments"`
	}
	// activeDeployments is the newest deployment per environment.
	activeDeployments struct {
		Sandbox    *deployment `json:"sandbox"`
		PreRelease *deployment `json:"pre-release"`
		Live       *deployment `json:"live"`
	}
	publishBody struct {
		Environment       string `json:"environment"`
		DeploymentMessage string `json:"deploymentMessage"`
	}
	promoteBody struct {
		TargetEnvironment string `json:"targetEnvironment"`
		DeploymentMessage string `json:"deploymentMessage"`
	}
)

func (publishBody) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"environment": {Enum: deployEnvs[:1], Doc: "Publishing goes to sandbox (rollback ignores it)."}}
}

// promoteTargets are the environments a deployment may be promoted to.
var promoteTargets = deployEnvs[1:]

func (promoteBody) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"targetEnvironment": {Enum: promoteTargets,
		Doc:      "Default: the next stage.",
		Fidelity: &Fidelity{ID: "D21", Switch: switchPromoteSkip, Value: "reject", Note: "sandbox to live is 412"}}}
}

func (deployment) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"environment": {Enum: deployEnvs}, "metadata": {Nullable: true}}
}

// deployment is a deployment record (docs/api.md#agents-deployments).
type deployment struct {
	ID              string         `json:"id"`
	AccountID       string         `json:"accountId"`
	AgentID         string         `json:"agentId"`
	Environment     string         `json:"environment"`
	ArtifactVersion string         `json:"artifactVersion"`
	Version         string         `json:"version"`
	CreatedBy       string         `json:"createdBy"`
	CreatedAt       string         `json:"createdAt"`
	Metadata        map[string]any `json:"metadata"`
}

// --- deployments ---

// newUUIDv7 returns a UUIDv7 of the virtual time (docs/api.md#ids).
func (a *API) newUUIDv7(t time.Time) string {
	u := a.newUUID() // random bits, version 4 layout
	ms := uint64(t.UnixMilli())
	h := fmt.Sprintf("%012x", ms&0xffffffffffff)
	return h[:8] + "-" + h[8:12] + "-7" + u[15:18] + u[18:]
}

// renderDeployment answers a deployment per deploy_response (D6).
func (a *API) renderDeployment(c *gin.Context, status int, d *deployment) {
	if a.world().fidelity(switchDeployResponse) == "wrapped" {
		c.JSON(status, wrappedDeployment{Deployment: d, TestRunIDs: []string{}})
		return
	}
	c.JSON(status, d)
}

func deploymentMessage(f *fieldBody) (string, bool) { return f.str("deploymentMessage") }

// handleDeploymentPublish handles "POST .../deployments/publish": the
// main draft is snapshotted into a sandbox deployment
// (docs/api.md#agents-deployments), 201.
func (a *API) handleDeploymentPublish(c *gin.Context) error {
	f, err := readFields(c, true, bodyFields(publishBody{})...)
	if err != nil {
		return err
	}
	if env, ok := f.str("environment"); ok && env != "sandbox" {
		return &Error{Kind: KindInvalid, Code: CodeDeployInvalidEnv, Message: MsgPublishSandbox,
			Fields: []FieldError{{Field: "environment", Message: "must be sandbox"}}}
	}
	msg, _ := deploymentMessage(f)
	if err := f.err(); err != nil {
		return err
	}
	p := principal(c)
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
	cur, err := a.loadAgent(c)
	if err != nil {
		return err
	}
	snap := cur.branch(mainBranch).Content
	if a.world().fidelity(switchMergeDeploy) == "sandbox" {
		if err := a.alreadyPublished(p.Region, cur, snap); err != nil {
			return err
		}
	}
	now := a.clock.Now()
	version := a.newID("", hexDigits, 32)
	if err := a.store.PutDoc(docSnapshot, p.Region, version, &snap); err != nil {
		return err
	}
	dep := &deployment{ID: a.newUUIDv7(now), AccountID: cur.AccountID, AgentID: cur.AgentID, Environment: "sandbox",
		ArtifactVersion: fmtAgentTime(now), Version: version, CreatedBy: "api", CreatedAt: fmtAgentTime(now),
		Metadata: map[string]any{"deployment_message": msg, "deployment_type": "publish"}}
	if _, err := a.updateAgent(c, func(d *agentDoc) error {
		d.Deployments = append(d.Deployments, dep)
		return nil
	}); err != nil {
		return err
	}
	a.setRuntimeDeploymentLocked(p.Region, cur.AgentID, "sandbox", snap.Topics)
	a.renderDeployment(c, http.StatusCreated, dep)
	return nil
}

// alreadyPublished answers 409 DEPLOYMENTS_ALREADY_PUBLISHED when the active
// sandbox deployment came from a merge and holds content, the main draft
// unchanged since (merge_deploy: sandbox, docs/fidelity.md D22).
func (a *API) alreadyPublished(region string, d *agentDoc, draft branchContent) error {
	act := d.active("sandbox")
	if act == nil || act.Metadata["deployment_type"] != "merge" {
		return nil
	}
	var snap branchContent
	if err := a.store.GetDoc(docSnapshot, region, act.Version, &snap); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	}
	if jsonOf(snap) != jsonOf(draft) {
		return nil
	}
	return errf(KindConflict, CodeAlreadyPublished, MsgAlreadyPublished)
}

// findDeployment looks a deployment up by id.
func (d *agentDoc) findDeployment(id string) *deployment {
	for _, x := range d.Deployments {
		if x.ID == id {
			return x
		}
	}
	return nil
}

// copyDeployment appends a new deployment of the same content to env and
// makes it active there.
func (a *API) copyDeployment(c *gin.Context, id string, target func(from *deployment) (string, error), meta func(*deployment) map[string]any) (*deployment, *deployment, error) {
	p := principal(c)
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
	now := a.clock.Now()
	var out, stored *deployment
	d, err := a.updateAgent(c, func(d *agentDoc) error {
		from := d.findDeployment(id)
		if from == nil {
			return errf(KindNotFound, CodeDeploymentNotFound, MsgDeploymentNotFound)
		}
		env, err := target(from)
		if err != nil {
			return err
		}
		stored = &deployment{ID: a.newUUIDv7(now), AccountID: d.AccountID, AgentID: d.AgentID, Environment: env,
			ArtifactVersion: from.ArtifactVersion, Version: from.Version, CreatedBy: "api", CreatedAt: fmtAgentTime(now)}
		stored.Metadata = meta(stored)
		d.Deployments = append(d.Deployments, stored)
		cp := *stored
		out = &cp
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	var snap branchContent
	if err := a.store.GetDoc(docSnapshot, p.Region, out.Version, &snap); err != nil {
		return nil, nil, err
	}
	a.setRuntimeDeploymentLocked(p.Region, d.AgentID, out.Environment, snap.Topics)
	return out, stored, nil
}

// handleDeploymentPromote handles "POST .../deployments/{id}/promote": a
// new deployment of the same version in the next environment, or in
// targetEnvironment (D21), 200.
func (a *API) handleDeploymentPromote(c *gin.Context) error {
	f, err := readFields(c, true, bodyFields(promoteBody{})...)
	if err != nil {
		return err
	}
	targetEnv, hasTarget := f.enum("targetEnvironment", promoteTargets)
	msg, _ := deploymentMessage(f)
	if err := f.err(); err != nil {
		return err
	}
	out, _, err := a.copyDeployment(c, c.Param("deployment"), func(from *deployment) (string, error) {
		cur := envOrder[from.Environment]
		if !hasTarget {
			if cur >= envOrder["live"] {
				return "", &Error{Kind: KindInvalid, Code: CodeDeployTarget, Message: "The deployment is already live.",
					Fields: []FieldError{{Field: "targetEnvironment", Message: "must be later than live"}}}
			}
			return deployEnvs[cur+1], nil
		}
		if envOrder[targetEnv] <= cur {
			return "", &Error{Kind: KindInvalid, Code: CodeDeployTarget,
				Message: fmt.Sprintf("Cannot promote a %s deployment to %s.", from.Environment, targetEnv),
				Fields:  []FieldError{{Field: "targetEnvironment", Message: "must be later than " + from.Environment}}}
		}
		if targetEnv == "live" && from.Environment == "sandbox" && a.world().fidelity(switchPromoteSkip) == "reject" {
			return "", errf(KindPrecondition, CodePreReleaseNotReady, MsgPreReleaseNotReady)
		}
		return targetEnv, nil
	}, func(*deployment) map[string]any {
		return map[string]any{"deployment_message": msg, "deployment_type": "promotion"}
	})
	if err != nil {
		return err
	}
	a.renderDeployment(c, http.StatusOK, out)
	return nil
}

// handleDeploymentRollback handles "POST .../deployments/{id}/rollback":
// a new sandbox deployment copying the target's version; metadata null in
// the answer, deployment_type "rollback" in later listings (G8).
func (a *API) handleDeploymentRollback(c *gin.Context) error {
	if _, err := readFields(c, true, "deploymentMessage"); err != nil { // rollback reads the message only
		return err
	}
	out, _, err := a.copyDeployment(c, c.Param("deployment"), func(*deployment) (string, error) { return "sandbox", nil },
		func(*deployment) map[string]any { return map[string]any{"deployment_type": "rollback"} })
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
	if !containsStr(deployEnvs, env) {
		return &Error{Kind: KindInvalid, Code: CodeDeployInvalidEnv, Message: MsgDeployInvalidEnv,
			Fields: []FieldError{{Field: "environment", Message: "must be one of: sandbox, pre-release, live"}}}
	}
	limit := 0
	if s, ok := c.GetQuery("limit"); ok {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return invalid(CodeValidation, MsgValidationFailed, FieldError{Field: "limit", Message: "must be a positive integer"})
		}
		limit = n
	}
	d, err := a.loadAgent(c)
	if err != nil {
		return err
	}
	out := []*deployment{}
	for i := len(d.Deployments) - 1; i >= 0; i-- {
		if d.Deployments[i].Environment == env {
			out = append(out, d.Deployments[i])
		}
		if limit > 0 && len(out) == limit {
			break
		}
	}
	c.JSON(http.StatusOK, deploymentList{Deployments: out})
	return nil
}

// handleDeploymentActive handles "GET .../deployments/active".
func (a *API) handleDeploymentActive(c *gin.Context) error {
	d, err := a.loadAgent(c)
	if err != nil {
		return err
	}
	act := activeDeployments{Sandbox: d.active("sandbox"), PreRelease: d.active("pre-release"), Live: d.active("live")}
	c.JSON(http.StatusOK, activeDeploymentsView{ActiveDeployments: act})
	return nil
}
