package handlers

// Agents API: agents, branches, deployments, real-time configs (spec 2.7-2.9,
// 3.3, 4.3, 7.1; notes section 4). Agent ID = project ID (notes §1): every
// project of the scenario is an agent (its chat agent answers from the
// deployment active in the conversation's environment, runtime_script.go);
// agents created through the API exist on the build side only.
//
// An agent is one "agent" document (its branches, deployments and config
// pages); each published content is an "agent_snapshot" document keyed by
// its version, shared by the deployments that promote or roll back to it.

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

func (a *API) registerAgents(rt gin.IRoutes) {
	rt.GET("/v1/agents", a.wrap(famAgents, a.handleAgentList))
	rt.POST("/v1/agents", a.wrap(famAgents, a.handleAgentCreate))
	rt.GET("/v1/accounts/:account/agents", a.wrap(famAgents, a.handleAgentList))
	rt.POST("/v1/accounts/:account/agents", a.wrap(famAgents, a.handleAgentCreate))
	rt.GET("/v1/agents/:agent", a.wrap(famAgents, a.handleAgentGet))
	rt.DELETE("/v1/agents/:agent", a.wrap(famAgents, a.handleAgentDelete))
	rt.POST("/v1/agents/:agent/duplicate", a.wrap(famAgents, a.handleAgentDuplicate))

	rt.GET("/v1/agents/:agent/branches", a.wrap(famAgents, a.handleBranchList))
	rt.POST("/v1/agents/:agent/branches", a.wrap(famAgents, a.handleBranchCreate))
	rt.DELETE("/v1/agents/:agent/branches/:branch", a.wrap(famAgents, a.handleBranchDelete))
	rt.POST("/v1/agents/:agent/branches/:branch/merge", a.wrap(famAgents, a.handleBranchMerge))
	rt.GET("/v1/agents/:agent/branches/:branch/behavior", a.wrap(famAgents, a.handleBehaviorGet))
	rt.PATCH("/v1/agents/:agent/branches/:branch/behavior", a.wrap(famAgents, a.handleBehaviorUpdate))
	rt.GET("/v1/agents/:agent/branches/:branch/knowledge-base/topics", a.wrap(famAgents, a.handleTopicList))
	rt.POST("/v1/agents/:agent/branches/:branch/knowledge-base/topics", a.wrap(famAgents, a.handleTopicCreate))
	rt.GET("/v1/agents/:agent/branches/:branch/knowledge-base/topics/:item", a.wrap(famAgents, a.handleTopicGet))
	rt.PATCH("/v1/agents/:agent/branches/:branch/knowledge-base/topics/:item", a.wrap(famAgents, a.handleTopicUpdate))
	rt.DELETE("/v1/agents/:agent/branches/:branch/knowledge-base/topics/:item", a.wrap(famAgents, a.handleTopicDelete))
	rt.GET("/v1/agents/:agent/branches/:branch/attributes", a.wrap(famAgents, a.handleAttributeList))
	rt.POST("/v1/agents/:agent/branches/:branch/attributes", a.wrap(famAgents, a.handleAttributeCreate))
	rt.PATCH("/v1/agents/:agent/branches/:branch/attributes/:item", a.wrap(famAgents, a.handleAttributeUpdate))
	rt.DELETE("/v1/agents/:agent/branches/:branch/attributes/:item", a.wrap(famAgents, a.handleAttributeDelete))
	rt.GET("/v1/agents/:agent/branches/:branch/variants", a.wrap(famAgents, a.handleVariantList))
	rt.POST("/v1/agents/:agent/branches/:branch/variants", a.wrap(famAgents, a.handleVariantCreate))
	rt.PATCH("/v1/agents/:agent/branches/:branch/variants/:item", a.wrap(famAgents, a.handleVariantUpdate))
	rt.DELETE("/v1/agents/:agent/branches/:branch/variants/:item", a.wrap(famAgents, a.handleVariantDelete))

	rt.POST("/v1/agents/:agent/deployments/publish", a.wrap(famAgents, a.handleDeploymentPublish))
	rt.GET("/v1/agents/:agent/deployments", a.wrap(famAgents, a.handleDeploymentList))
	rt.GET("/v1/agents/:agent/deployments/active", a.wrap(famAgents, a.handleDeploymentActive))
	rt.POST("/v1/agents/:agent/deployments/:deployment/promote", a.wrap(famAgents, a.handleDeploymentPromote))
	rt.POST("/v1/agents/:agent/deployments/:deployment/rollback", a.wrap(famAgents, a.handleDeploymentRollback))

	rt.GET("/v1/agents/:agent/real-time-configs", a.wrap(famAgents, a.handleConfigList))
	rt.GET("/v1/agents/:agent/real-time-configs/:env", a.wrap(famAgents, a.handleConfigGet))
	rt.PUT("/v1/agents/:agent/real-time-configs/:env/schema", a.wrap(famAgents, a.handleConfigSchema))
	rt.PATCH("/v1/agents/:agent/real-time-configs/:env/variables", a.wrap(famAgents, a.handleConfigVariables))
}

// Agents error codes (notes §4) and messages that tests compare. Under the
// spec body the code is not shown; the message is.
const (
	CodeAgentNotFound      = "AGENT_NOT_FOUND"
	CodeBranchNotFound     = "BRANCH_NOT_FOUND"
	CodeTopicNotFound      = "KNOWLEDGE_BASE_TOPIC_NOT_FOUND"
	CodeTopicExists        = "KNOWLEDGE_BASE_TOPIC_ALREADY_EXISTS"
	CodeMergeConflict      = "MERGE_BRANCH_CONFLICT"
	CodeMainReadOnly       = "MAIN_BRANCH_READ_ONLY"
	CodeDeploymentNotFound = "DEPLOYMENT_NOT_FOUND"
	CodeDeployInvalidEnv   = "DEPLOYMENTS_INVALID_ENVIRONMENT"
	CodeDeployTarget       = "DEPLOYMENTS_INVALID_TARGET"
	CodePreReleaseNotReady = "DEPLOYMENTS_PRE_RELEASE_NOT_READY"
	CodeConfigUnknownEnv   = "REAL_TIME_CONFIG_UNKNOWN_CLIENT_ENVIRONMENT"
	CodeConfigInvalid      = "REAL_TIME_CONFIG_INVALID_FOR_SCHEMA"
	CodeConfigBadSchema    = "REAL_TIME_CONFIG_INVALID_SCHEMA"
	CodeItemNotFound       = "NOT_FOUND"
	CodeVariantDefault     = "VARIANTS_REMOVE_DEFAULT_ERROR"
	CodeVariantDuplicate   = "VARIANTS_DUPLICATE_NAME_ERROR"
	CodeAttributeDuplicate = "ATTRIBUTES_DUPLICATE_NAME_ERROR"
	CodeAlreadyPublished   = "DEPLOYMENTS_ALREADY_PUBLISHED"

	MsgAgentNotFound      = "Agent not found."
	MsgBranchNotFound     = "Branch not found."
	MsgTopicNotFound      = "Knowledge base topic not found."
	MsgTopicExists        = "A knowledge base topic with this name already exists."
	MsgMergeConflict      = "Merge conflict: the branch and main both changed the same items."
	MsgMergeMain          = "The main branch cannot be merged into itself."
	MsgMainReadOnly       = "Cannot directly update main branch"
	MsgDeploymentNotFound = "Deployment not found."
	MsgDeployInvalidEnv   = "environment must be one of: sandbox, pre-release, live"
	MsgPublishSandbox     = "Publishing goes to sandbox: environment must be sandbox."
	MsgPreReleaseNotReady = "must deploy to pre-release before promoting to live"
	MsgConfigUnknownEnv   = "Unknown client environment: want sandbox, pre-release or live."
	MsgConfigInvalid      = "Config values fail JSON Schema validation."
	MsgConfigBadSchema    = "The schema is not a valid JSON Schema."
	MsgVariantDefault     = "The default variant cannot be removed."
	MsgVariantDuplicate   = "A variant with this name already exists."
	MsgAttributeDuplicate = "An attribute with this name already exists."
	MsgItemNotFound       = "Not found."
	MsgAlreadyPublished   = "Deployments already published"
)

// Fidelity switches of the agents family (docs/fidelity.md).
const (
	switchMainBranch     = "main_branch"           // "writable" (default) | "read_only" (D4)
	switchMergeConflict  = "merge_conflict_status" // "409" (default) | "400" (D5)
	switchDeployResponse = "deploy_response"       // "spec" (default) | "wrapped" (D6)
	switchPromoteSkip    = "promote_skip_stage"    // "allow" (default) | "reject" (D21)
	switchAgentCreate    = "agent_create"          // "spec" (default) | "oas" (D2)
	switchMergeDeploy    = "merge_deploy"          // "off" (default) | "sandbox" (D22)
)

const (
	docAgent    = "agent"
	docSnapshot = "agent_snapshot"
	mainBranch  = "main"
	hexDigits   = "0123456789abcdef"
	upperAlnum  = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
)

// envOrder ranks the environments along the deployment path (spec 3.3).
var envOrder = map[string]int{"sandbox": 0, "pre-release": 1, "live": 2}

var deployEnvs = []string{"sandbox", "pre-release", "live"}

// agentDoc is the stored agent.
type agentDoc struct {
	AccountID   string                 `json:"account_id"`
	AgentID     string                 `json:"agent_id"`
	Name        string                 `json:"name"`
	Description string                 `json:"description,omitempty"`
	CreatedAt   time.Time              `json:"created_at"`
	UpdatedAt   time.Time              `json:"updated_at"`
	Seq         int64                  `json:"seq"`
	Branches    []*branchDoc           `json:"branches"`
	Deployments []*deployment          `json:"deployments"` // oldest first
	Configs     map[string]*configPage `json:"configs"`
}

// branchDoc is a branch: its content and the content of main at the
// branch point (the merge base).
type branchDoc struct {
	ID        string        `json:"id"`
	Name      string        `json:"name"`
	CreatedAt time.Time     `json:"created_at"`
	Content   branchContent `json:"content"`
	Base      branchContent `json:"base"`
}

// branchContent is what a branch holds (spec 2.9).
type branchContent struct {
	Behavior   string       `json:"behavior"`
	Topics     []*topicRec  `json:"topics"`
	Attributes []*attribute `json:"attributes"`
	Variants   []*variant   `json:"variants"`
}

type topicRec struct {
	ID             string        `json:"id"`
	Name           string        `json:"name"`
	Content        string        `json:"content"`
	Actions        string        `json:"actions"`
	ExampleQueries exampleQuries `json:"exampleQueries"`
	IsActive       bool          `json:"isActive"`
}

type exampleQuries struct {
	Queries []string `json:"queries"`
}

type attribute struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type variant struct {
	ID              string          `json:"id"`
	Name            string          `json:"name"`
	IsDefault       bool            `json:"isDefault"`
	AttributeValues attributeValues `json:"attributeValues"`
}

type attributeValues struct {
	Values map[string]string `json:"values"`
}

// deployment is a deployment record (spec 2.7; notes §4).
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

// configPage is a real-time config page of an environment (notes §4).
type configPage struct {
	ClientEnv   string          `json:"clientEnv"`
	Variables   map[string]any  `json:"variables"`
	Schema      json.RawMessage `json:"schema"`
	LastUpdated *string         `json:"lastUpdated"`
}

// agentView is the agent record (notes §4).
type agentView struct {
	AccountID   string `json:"accountId"`
	AgentID     string `json:"agentId"`
	AgentName   string `json:"agentName"`
	Description string `json:"description,omitempty"`
	CreatedAt   string `json:"createdAt"`
	UpdatedAt   string `json:"updatedAt"`
	BranchCount int    `json:"branchCount"`
}

func (d *agentDoc) view() agentView {
	return agentView{AccountID: d.AccountID, AgentID: d.AgentID, AgentName: d.Name, Description: d.Description,
		CreatedAt: fmtAgentTime(d.CreatedAt), UpdatedAt: fmtAgentTime(d.UpdatedAt), BranchCount: len(d.Branches)}
}

func (d *agentDoc) branch(ref string) *branchDoc {
	for _, b := range d.Branches {
		if b.ID == ref || (ref == mainBranch && b.ID == mainBranch) {
			return b
		}
	}
	return nil
}

// active is the newest deployment of an environment, nil if none.
func (d *agentDoc) active(env string) *deployment {
	for i := len(d.Deployments) - 1; i >= 0; i-- {
		if d.Deployments[i].Environment == env {
			return d.Deployments[i]
		}
	}
	return nil
}

func (d *agentDoc) nextSeq() string {
	d.Seq++
	return strconv.FormatInt(d.Seq, 10)
}

// newAgentDoc is an agent with an empty main branch and empty config pages.
func newAgentDoc(account, id, name string, now time.Time) *agentDoc {
	d := &agentDoc{AccountID: account, AgentID: id, Name: name, CreatedAt: now, UpdatedAt: now, Seq: 1,
		Branches:    []*branchDoc{{ID: mainBranch, Name: mainBranch, CreatedAt: now, Content: emptyContent()}},
		Deployments: []*deployment{}, Configs: map[string]*configPage{}}
	for _, env := range deployEnvs {
		d.Configs[env] = &configPage{ClientEnv: env, Variables: map[string]any{}, Schema: json.RawMessage("null")}
	}
	return d
}

func emptyContent() branchContent {
	return branchContent{Topics: []*topicRec{}, Attributes: []*attribute{}, Variants: []*variant{}}
}

// clone deep-copies content through JSON.
func (c branchContent) clone() branchContent {
	b, _ := json.Marshal(c)
	var out branchContent
	_ = json.Unmarshal(b, &out)
	if out.Topics == nil {
		out.Topics = []*topicRec{}
	}
	if out.Attributes == nil {
		out.Attributes = []*attribute{}
	}
	if out.Variants == nil {
		out.Variants = []*variant{}
	}
	return out
}

// agentRef resolves the path's agent id: a scenario project's slug, id or
// PROJECT-<id> gives its id; anything else is taken as is.
func agentRef(p *Principal, ref string) string {
	if proj := p.Account.Project(ref); proj != nil {
		return proj.ID
	}
	return ref
}

func errAgentNotFound() error { return errf(KindNotFound, CodeAgentNotFound, MsgAgentNotFound) }

// loadAgent reads the path's agent of the principal's account.
func (a *API) loadAgent(c *gin.Context) (*agentDoc, error) {
	p := principal(c)
	var d agentDoc
	if err := a.store.GetDoc(docAgent, p.Region, agentRef(p, c.Param("agent")), &d); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, errAgentNotFound()
		}
		return nil, err
	}
	if d.AccountID != p.Account.ID {
		return nil, &Error{Kind: KindForbidden, Code: "FORBIDDEN", Message: msgNoPermission}
	}
	return &d, nil
}

// updateAgent applies fn to the path's agent in one store update.
func (a *API) updateAgent(c *gin.Context, fn func(d *agentDoc) error) (*agentDoc, error) {
	p := principal(c)
	var d agentDoc
	err := a.store.UpdateDoc(docAgent, p.Region, agentRef(p, c.Param("agent")), &d, func() error {
		if d.AccountID != p.Account.ID {
			return &Error{Kind: KindForbidden, Code: "FORBIDDEN", Message: msgNoPermission}
		}
		if err := fn(&d); err != nil {
			return err
		}
		d.UpdatedAt = a.clock.Now()
		return nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, errAgentNotFound()
	}
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// --- agents ---

// handleAgentList handles "GET {builder}/v1/agents" and
// "GET {builder}/v1/accounts/{accountId}/agents": a bare array (notes §4, D1).
func (a *API) handleAgentList(c *gin.Context) error {
	p := principal(c)
	list := []agentView{}
	err := a.store.ListDocs(docAgent, p.Region, func(_ string, raw []byte) bool {
		var d agentDoc
		if json.Unmarshal(raw, &d) == nil && d.AccountID == p.Account.ID {
			list = append(list, d.view())
		}
		return true
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, list)
	return nil
}

var agentIDRE = regexp.MustCompile(`^[a-zA-Z0-9-]+$`)

// handleAgentCreate handles "POST {builder}/v1/agents" (and the account
// path): name 1-128 characters and description (spec 4.3); the real
// fields responseSettings and agentId are accepted too (D2). Under
// agent_create: oas the real body rules apply instead (createAgentOAS).
func (a *API) handleAgentCreate(c *gin.Context) error {
	oas := a.world().fidelity(switchAgentCreate) == "oas"
	var name, desc, id string
	var hasID bool
	if oas {
		var err error
		if name, id, hasID, err = readCreateAgentOAS(c); err != nil {
			return err
		}
	} else {
		f, err := readFields(c, false, "name", "description", "agentId", "responseSettings", "voiceSettings", "llmSettings", "experimentalConfig")
		if err != nil {
			return err
		}
		f.require("name")
		name, _ = f.strLen("name", 1, 128)
		desc, _ = f.str("description")
		id, hasID = f.str("agentId")
		if hasID && !agentIDRE.MatchString(id) {
			f.fail("agentId", "must match ^[a-zA-Z0-9-]+$")
		}
		if err := f.err(); err != nil {
			return err
		}
	}
	a.build.agentMu.Lock()
	defer a.build.agentMu.Unlock()
	d, err := a.insertAgent(principal(c), id, hasID, name, func(d *agentDoc) { d.Description = desc })
	if err != nil {
		return err
	}
	if oas {
		// OAS CreateAgentResponse: 200, these six fields only.
		c.JSON(http.StatusOK, d.view())
		return nil
	}
	now := fmtAgentTime(d.CreatedAt)
	c.JSON(http.StatusCreated, gin.H{"accountId": d.AccountID, "agentId": d.AgentID, "agentName": d.Name,
		"description": d.Description, "createdAt": now, "updatedAt": now, "branchCount": 1,
		"branch": branchView(d.Branches[0])})
	return nil
}

// insertAgent stores a new agent of the principal's account named name,
// with the given id (hasID) or a fresh PROJECT-XXXXXXXX one; fill sets the
// rest. A given id that is taken is 409 AGENT_ALREADY_EXISTS.
// a.build.agentMu must be held.
func (a *API) insertAgent(p *Principal, id string, hasID bool, name string, fill func(d *agentDoc)) (*agentDoc, error) {
	now := a.clock.Now()
	var err error
	for range 5 {
		if !hasID {
			id = a.newID("PROJECT-", upperAlnum, 8)
		}
		d := newAgentDoc(p.Account.ID, id, name, now)
		fill(d)
		if err = a.store.InsertDoc(docAgent, p.Region, id, d); err == nil {
			return d, nil
		}
		if !errors.Is(err, store.ErrExists) {
			return nil, err
		}
		if hasID {
			return nil, errf(KindConflict, "AGENT_ALREADY_EXISTS", "An agent with this id already exists.")
		}
	}
	return nil, err
}

// readCreateAgentOAS validates a create-agent body by the real rules (D2,
// OAS CreateAgentBody): name 1-100 and responseSettings.greeting required,
// additionalProperties false at every level (so description and any
// unknown field give 400, one error per field).
func readCreateAgentOAS(c *gin.Context) (name, id string, hasID bool, err error) {
	data, _ := c.Get(ctxBody)
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(bodyBytes(data), &keys)
	known := []string{"name", "agentId", "responseSettings", "voiceSettings", "llmSettings", "experimentalConfig"}
	// Every key is "known" to readFields: the unknown ones are errors
	// here, not warnings.
	all := slices.Collect(maps.Keys(keys))
	f, err := readFields(c, false, all...)
	if err != nil {
		return "", "", false, err
	}
	slices.Sort(all)
	for _, k := range all {
		if !containsStr(known, k) {
			f.fail(k, "is not allowed")
		}
	}
	f.require("name")
	name, _ = f.strLen("name", 1, 100)
	id, hasID = f.str("agentId")
	if hasID && !agentIDRE.MatchString(id) {
		f.fail("agentId", "must match ^[a-zA-Z0-9-]+$")
	}
	closedObject(f, "responseSettings", true, map[string]bool{"greeting": true, "languageCode": true}, []string{"greeting"})
	closedObject(f, "voiceSettings", false, map[string]bool{"voiceId": true}, []string{"voiceId"})
	closedObject(f, "llmSettings", false, map[string]bool{"modelId": false}, nil)
	if f.has("experimentalConfig") {
		var ec struct {
			Configs []map[string]any `json:"configs"`
		}
		var probe map[string]json.RawMessage
		switch {
		case !f.object("experimentalConfig", &probe, "must be an object"):
		case probe["configs"] == nil:
			f.fail("experimentalConfig/configs", "is required")
		case json.Unmarshal(f.raw["experimentalConfig"], &ec) != nil || ec.Configs == nil:
			f.fail("experimentalConfig/configs", "must be an array of objects")
		}
	}
	return name, id, hasID, f.err()
}

// closedObject checks an object field whose properties are strings:
// props maps each allowed property to whether it needs at least 1
// character; required lists the required ones; others are not allowed.
func closedObject(f *fieldBody, name string, required bool, props map[string]bool, need []string) {
	if !f.has(name) {
		if required {
			f.fail(name, "is required")
		}
		return
	}
	var obj map[string]json.RawMessage
	if !f.object(name, &obj, "must be an object") {
		return
	}
	sub := &fieldBody{raw: obj}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		nonEmpty, ok := props[k]
		switch {
		case !ok:
			sub.fail(k, "is not allowed")
		default:
			if v, ok := sub.str(k); ok && nonEmpty && v == "" {
				sub.fail(k, "must not be empty")
			}
		}
	}
	for _, k := range need {
		sub.require(k)
	}
	for _, e := range sub.errs {
		f.fail(name+"/"+e.Field, "%s", e.Message)
	}
}

func bodyBytes(v any) []byte {
	b, _ := v.([]byte)
	return b
}

// handleAgentGet handles "GET {builder}/v1/agents/{agentId}".
func (a *API) handleAgentGet(c *gin.Context) error {
	d, err := a.loadAgent(c)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, d.view())
	return nil
}

// handleAgentDelete handles "DELETE {builder}/v1/agents/{agentId}" (204).
func (a *API) handleAgentDelete(c *gin.Context) error {
	a.build.agentMu.Lock()
	defer a.build.agentMu.Unlock()
	d, err := a.loadAgent(c)
	if err != nil {
		return err
	}
	p := principal(c)
	if err := a.store.DeleteDoc(docAgent, p.Region, d.AgentID); err != nil {
		return err
	}
	if err := a.dropTelephony(p.Region, p.Account.ID, d.AgentID); err != nil {
		return err
	}
	a.setRuntime(p.Region, d.AgentID, nil, nil)
	c.Status(http.StatusNoContent)
	return nil
}

// handleAgentDuplicate handles "POST {builder}/v1/agents/{agentId}/duplicate"
// {newAgentName (1-100), newAgentId?} (notes section 4, OAS
// DuplicateAgentBody): a new agent whose main branch is a copy of the
// source's main branch, with its real-time config pages (schemas and
// variables); branches other than main, deployments and telephony are not
// copied. 200 with the CreateAgentResponse fields.
func (a *API) handleAgentDuplicate(c *gin.Context) error {
	f, err := readFields(c, false, "newAgentName", "newAgentId")
	if err != nil {
		return err
	}
	f.require("newAgentName")
	name, _ := f.strLen("newAgentName", 1, 100)
	id, hasID := f.str("newAgentId")
	if hasID && !agentIDRE.MatchString(id) {
		f.fail("newAgentId", "must match ^[a-zA-Z0-9-]+$")
	}
	if err := f.err(); err != nil {
		return err
	}
	a.build.agentMu.Lock()
	defer a.build.agentMu.Unlock()
	src, err := a.loadAgent(c)
	if err != nil {
		return err
	}
	d, err := a.insertAgent(principal(c), id, hasID, name, func(d *agentDoc) {
		d.Description = src.Description
		d.Branches[0].Content = src.branch(mainBranch).Content.clone()
		for env, page := range src.Configs {
			cp := *page
			cp.Variables = cloneMap(page.Variables)
			d.Configs[env] = &cp
		}
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, d.view())
	return nil
}

// cloneMap deep-copies a JSON object through JSON.
func cloneMap(m map[string]any) map[string]any {
	out := map[string]any{}
	if b, err := json.Marshal(m); err == nil {
		if err := json.Unmarshal(b, &out); err != nil {
			return map[string]any{}
		}
	}
	return out
}

// --- branches ---

func branchView(b *branchDoc) gin.H {
	return gin.H{"branchId": b.ID, "name": b.Name, "createdAt": fmtAgentTime(b.CreatedAt)}
}

// handleBranchList handles "GET .../branches" → {"branches": [...]}.
func (a *API) handleBranchList(c *gin.Context) error {
	d, err := a.loadAgent(c)
	if err != nil {
		return err
	}
	out := []gin.H{}
	for _, b := range d.Branches {
		out = append(out, branchView(b))
	}
	c.JSON(http.StatusOK, gin.H{"branches": out})
	return nil
}

// handleBranchCreate handles "POST .../branches" with name (spec) or
// branchName (OAS), D3: a copy of main; 201 {branchId, sequenceId}.
func (a *API) handleBranchCreate(c *gin.Context) error {
	f, err := readFields(c, false, "name", "branchName")
	if err != nil {
		return err
	}
	name, ok1 := f.strLen("name", 1, 100)
	bn, ok2 := f.strLen("branchName", 1, 100)
	switch {
	case !f.has("name") && !f.has("branchName"):
		f.fail("name", "is required")
	case ok1 && ok2 && name != bn:
		f.fail("branchName", "conflicts with name")
	case ok2:
		name = bn
	}
	if err := f.err(); err != nil {
		return err
	}
	now := a.clock.Now()
	id := a.newID("BRANCH-", upperAlnum, 8)
	var seq string
	if _, err := a.updateAgent(c, func(d *agentDoc) error {
		main := d.branch(mainBranch)
		d.Branches = append(d.Branches, &branchDoc{ID: id, Name: name, CreatedAt: now, Content: main.Content.clone(), Base: main.Content.clone()})
		seq = d.nextSeq()
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusCreated, gin.H{"branchId": id, "sequenceId": seq})
	return nil
}

// handleBranchDelete handles "DELETE .../branches/{branchId}".
func (a *API) handleBranchDelete(c *gin.Context) error {
	ref := c.Param("branch")
	if ref == mainBranch {
		return invalid(CodeValidation, "The main branch cannot be deleted.")
	}
	var seq string
	if _, err := a.updateAgent(c, func(d *agentDoc) error {
		i := slices.IndexFunc(d.Branches, func(b *branchDoc) bool { return b.ID == ref })
		if i < 0 {
			return errf(KindNotFound, CodeBranchNotFound, MsgBranchNotFound)
		}
		d.Branches = slices.Delete(d.Branches, i, i+1)
		seq = d.nextSeq()
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"sequence": seq, "message": "Branch deleted"})
	return nil
}

// handleBranchMerge handles "POST .../branches/{branchId}/merge": a
// three-way merge of the branch into main against the branch point
// (merge.go); 409 with the conflicting paths when both changed an item
// and no conflictResolutions entry settles it. Under merge_deploy:
// sandbox (D22) a successful merge also publishes main to sandbox.
func (a *API) handleBranchMerge(c *gin.Context) error {
	f, err := readFields(c, true, "deploymentMessage", "conflictResolutions")
	if err != nil {
		return err
	}
	msg, _ := deploymentMessage(f)
	res := readResolutions(f)
	if err := f.err(); err != nil {
		return err
	}
	ref := c.Param("branch")
	if ref == mainBranch {
		return invalid(CodeValidation, MsgMergeMain)
	}
	deploy := a.world().fidelity(switchMergeDeploy) == "sandbox"
	p := principal(c)
	a.build.agentMu.Lock()
	defer a.build.agentMu.Unlock()
	now := a.clock.Now()
	var dep *deployment
	var seq string
	var merged branchContent
	var used map[string]bool
	d, err := a.updateAgent(c, func(d *agentDoc) error {
		b := d.branch(ref)
		if b == nil {
			return errf(KindNotFound, CodeBranchNotFound, MsgBranchNotFound)
		}
		main := d.branch(mainBranch)
		var conflicts []string
		var err error
		merged, conflicts, used, err = mergeResolve(b.Base, main.Content, b.Content, res)
		if err != nil {
			return err
		}
		if len(conflicts) > 0 {
			e := &Error{Kind: KindConflict, Code: CodeMergeConflict, Message: MsgMergeConflict}
			if a.world().fidelity(switchMergeConflict) == "400" {
				e.Kind = KindInvalid
			}
			for _, p := range conflicts {
				e.Fields = append(e.Fields, FieldError{Field: p, Message: "changed on both main and the branch"})
			}
			return e
		}
		main.Content = merged
		b.Content, b.Base = merged.clone(), merged.clone()
		seq = d.nextSeq()
		if deploy {
			dep = &deployment{ID: a.newUUIDv7(now), AccountID: d.AccountID, AgentID: d.AgentID, Environment: "sandbox",
				ArtifactVersion: fmtAgentTime(now), Version: a.newID("", hexDigits, 32), CreatedBy: "api", CreatedAt: fmtAgentTime(now),
				Metadata: map[string]any{"deployment_message": msg, "deployment_type": "merge"}}
			d.Deployments = append(d.Deployments, dep)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, path := range slices.Sorted(maps.Keys(res)) {
		if !used[path] {
			addWarning(c, "conflictResolutions: %q is not a conflicting path (ignored)", path)
		}
	}
	message := "Branch merged to main"
	if dep != nil {
		// The deployment is recorded; its snapshot follows (agentMu is
		// held, so nothing reads it in between).
		if err := a.store.PutDoc(docSnapshot, p.Region, dep.Version, &merged); err != nil {
			return err
		}
		a.setRuntimeDeployment(p.Region, d.AgentID, "sandbox", merged.Topics)
		message = "Branch merged to main and deployed to sandbox"
	}
	c.JSON(http.StatusOK, gin.H{"sequence": seq, "message": message, "testRunIds": []string{}})
	return nil
}

// editBranch applies fn to the content of the path's branch. Writes to
// main give 422 under main_branch: read_only (D4).
func (a *API) editBranch(c *gin.Context, fn func(cont *branchContent) error) (*agentDoc, error) {
	ref := c.Param("branch")
	if ref == mainBranch && a.world().fidelity(switchMainBranch) == "read_only" {
		return nil, errf(KindUnprocessable, CodeMainReadOnly, MsgMainReadOnly)
	}
	return a.updateAgent(c, func(d *agentDoc) error {
		b := d.branch(ref)
		if b == nil {
			return errf(KindNotFound, CodeBranchNotFound, MsgBranchNotFound)
		}
		return fn(&b.Content)
	})
}

// readBranch returns the content of the path's branch.
func (a *API) readBranch(c *gin.Context) (*branchContent, error) {
	d, err := a.loadAgent(c)
	if err != nil {
		return nil, err
	}
	b := d.branch(c.Param("branch"))
	if b == nil {
		return nil, errf(KindNotFound, CodeBranchNotFound, MsgBranchNotFound)
	}
	return &b.Content, nil
}

// handleBehaviorGet handles "GET .../branches/{branch}/behavior".
func (a *API) handleBehaviorGet(c *gin.Context) error {
	cont, err := a.readBranch(c)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"behavior": cont.Behavior})
	return nil
}

// handleBehaviorUpdate handles "PATCH .../branches/{branch}/behavior".
func (a *API) handleBehaviorUpdate(c *gin.Context) error {
	f, err := readFields(c, false, "behavior")
	if err != nil {
		return err
	}
	f.require("behavior")
	text, _ := f.strLen("behavior", 1, 1<<20)
	if err := f.err(); err != nil {
		return err
	}
	if _, err := a.editBranch(c, func(cont *branchContent) error { cont.Behavior = text; return nil }); err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"behavior": text})
	return nil
}

// --- knowledge-base topics ---

var topicFields = []string{"name", "content", "actions", "exampleQueries", "isActive"}

// readTopic validates topic fields into t (all required ones on create).
func readTopic(c *gin.Context, t *topicRec, create bool) error {
	f, err := readFields(c, false, append(topicFields, "sampleQuestions")...)
	if err != nil {
		return err
	}
	if f.has("sampleQuestions") {
		f.fail("sampleQuestions", "is not supported: use exampleQueries")
	}
	if create {
		f.require("name")
		f.require("content")
	}
	if s, ok := f.strLen("name", 1, 255); ok {
		t.Name = s
	}
	if s, ok := f.strLen("content", 1, 1<<20); ok {
		t.Content = s
	}
	if s, ok := f.str("actions"); ok {
		t.Actions = s
	}
	if f.has("exampleQueries") {
		var q exampleQuries
		if f.object("exampleQueries", &q, "must be an object {queries: [string]}") {
			if len(q.Queries) > 100 {
				f.fail("exampleQueries", "at most 100 queries")
			}
			if q.Queries == nil {
				q.Queries = []string{}
			}
			t.ExampleQueries = q
		}
	}
	if b, ok := f.boolean("isActive"); ok {
		t.IsActive = b
	}
	return f.err()
}

func findTopic(cont *branchContent, id string) (int, *topicRec) {
	for i, t := range cont.Topics {
		if t.ID == id {
			return i, t
		}
	}
	return -1, nil
}

func topicNameTaken(cont *branchContent, name, except string) bool {
	for _, t := range cont.Topics {
		if t.ID != except && strings.EqualFold(t.Name, name) {
			return true
		}
	}
	return false
}

// handleTopicList handles "GET .../knowledge-base/topics" (a bare array).
func (a *API) handleTopicList(c *gin.Context) error {
	cont, err := a.readBranch(c)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, cont.Topics)
	return nil
}

// handleTopicCreate handles "POST .../knowledge-base/topics" (201).
func (a *API) handleTopicCreate(c *gin.Context) error {
	t := &topicRec{ExampleQueries: exampleQuries{Queries: []string{}}, IsActive: true}
	if err := readTopic(c, t, true); err != nil {
		return err
	}
	t.ID = a.newID("TOPICS-", hexDigits, 8)
	if _, err := a.editBranch(c, func(cont *branchContent) error {
		if topicNameTaken(cont, t.Name, "") {
			return errf(KindConflict, CodeTopicExists, MsgTopicExists)
		}
		cont.Topics = append(cont.Topics, t)
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusCreated, t)
	return nil
}

// handleTopicGet handles "GET .../knowledge-base/topics/{topicId}".
func (a *API) handleTopicGet(c *gin.Context) error {
	cont, err := a.readBranch(c)
	if err != nil {
		return err
	}
	_, t := findTopic(cont, c.Param("item"))
	if t == nil {
		return errf(KindNotFound, CodeTopicNotFound, MsgTopicNotFound)
	}
	c.JSON(http.StatusOK, t)
	return nil
}

// handleTopicUpdate handles "PATCH .../knowledge-base/topics/{topicId}" (204, notes §4).
func (a *API) handleTopicUpdate(c *gin.Context) error {
	var patch topicRec
	if err := readTopic(c, &patch, false); err != nil {
		return err
	}
	id := c.Param("item")
	if _, err := a.editBranch(c, func(cont *branchContent) error {
		_, t := findTopic(cont, id)
		if t == nil {
			return errf(KindNotFound, CodeTopicNotFound, MsgTopicNotFound)
		}
		// Apply the given fields (re-read from the body, a flat patch).
		if patch.Name != "" && topicNameTaken(cont, patch.Name, id) {
			return errf(KindConflict, CodeTopicExists, MsgTopicExists)
		}
		return readTopic(c, t, false)
	}); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// handleTopicDelete handles "DELETE .../knowledge-base/topics/{topicId}" (204).
func (a *API) handleTopicDelete(c *gin.Context) error {
	id := c.Param("item")
	if _, err := a.editBranch(c, func(cont *branchContent) error {
		i, _ := findTopic(cont, id)
		if i < 0 {
			return errf(KindNotFound, CodeTopicNotFound, MsgTopicNotFound)
		}
		cont.Topics = slices.Delete(cont.Topics, i, i+1)
		return nil
	}); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// --- attributes and variants ---

// handleAttributeList handles "GET .../attributes" → {"attributes": [...]}.
func (a *API) handleAttributeList(c *gin.Context) error {
	cont, err := a.readBranch(c)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"attributes": cont.Attributes})
	return nil
}

func readName(c *gin.Context, required bool) (string, error) {
	f, err := readFields(c, false, "name")
	if err != nil {
		return "", err
	}
	if required {
		f.require("name")
	}
	name, _ := f.strLen("name", 1, 255)
	return name, f.err()
}

// handleAttributeCreate handles "POST .../attributes" (201 {id, name}).
func (a *API) handleAttributeCreate(c *gin.Context) error {
	name, err := readName(c, true)
	if err != nil {
		return err
	}
	at := &attribute{ID: a.newID("ATTRIBUTE-", upperAlnum, 8), Name: name}
	if _, err := a.editBranch(c, func(cont *branchContent) error {
		for _, x := range cont.Attributes {
			if x.Name == name {
				return errf(KindConflict, CodeAttributeDuplicate, MsgAttributeDuplicate)
			}
		}
		cont.Attributes = append(cont.Attributes, at)
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusCreated, at)
	return nil
}

// handleAttributeUpdate handles "PATCH .../attributes/{id}" (200).
func (a *API) handleAttributeUpdate(c *gin.Context) error {
	name, err := readName(c, true)
	if err != nil {
		return err
	}
	id := c.Param("item")
	var out *attribute
	if _, err := a.editBranch(c, func(cont *branchContent) error {
		for _, x := range cont.Attributes {
			if x.ID == id {
				x.Name, out = name, x
				return nil
			}
		}
		return errf(KindNotFound, CodeItemNotFound, MsgItemNotFound)
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, out)
	return nil
}

// handleAttributeDelete handles "DELETE .../attributes/{id}" (200 {id}).
func (a *API) handleAttributeDelete(c *gin.Context) error {
	id := c.Param("item")
	if _, err := a.editBranch(c, func(cont *branchContent) error {
		i := slices.IndexFunc(cont.Attributes, func(x *attribute) bool { return x.ID == id })
		if i < 0 {
			return errf(KindNotFound, CodeItemNotFound, MsgItemNotFound)
		}
		cont.Attributes = slices.Delete(cont.Attributes, i, i+1)
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"id": id})
	return nil
}

// handleVariantList handles "GET .../variants" → {"variants": [...]}.
func (a *API) handleVariantList(c *gin.Context) error {
	cont, err := a.readBranch(c)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"variants": cont.Variants})
	return nil
}

func readVariant(c *gin.Context, v *variant, create bool) error {
	f, err := readFields(c, false, "name", "attributeValues", "isDefault")
	if err != nil {
		return err
	}
	if create {
		f.require("name")
	}
	if s, ok := f.strLen("name", 1, 255); ok {
		v.Name = s
	}
	if f.has("attributeValues") {
		var av attributeValues
		if f.object("attributeValues", &av, "must be an object {values: {name: string}}") {
			if av.Values == nil {
				av.Values = map[string]string{}
			}
			v.AttributeValues = av
		}
	}
	if b, ok := f.boolean("isDefault"); ok {
		v.IsDefault = b
	}
	return f.err()
}

// handleVariantCreate handles "POST .../variants" (201).
func (a *API) handleVariantCreate(c *gin.Context) error {
	v := &variant{AttributeValues: attributeValues{Values: map[string]string{}}}
	if err := readVariant(c, v, true); err != nil {
		return err
	}
	v.ID = a.newID("VARIANT-", upperAlnum, 8)
	if _, err := a.editBranch(c, func(cont *branchContent) error {
		for _, x := range cont.Variants {
			if x.Name == v.Name {
				return errf(KindConflict, CodeVariantDuplicate, MsgVariantDuplicate)
			}
		}
		if v.IsDefault || len(cont.Variants) == 0 {
			v.IsDefault = true
			for _, x := range cont.Variants {
				x.IsDefault = false
			}
		}
		cont.Variants = append(cont.Variants, v)
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusCreated, v)
	return nil
}

// handleVariantUpdate handles "PATCH .../variants/{id}" (200).
func (a *API) handleVariantUpdate(c *gin.Context) error {
	var patch variant
	if err := readVariant(c, &patch, false); err != nil {
		return err
	}
	id := c.Param("item")
	var out *variant
	if _, err := a.editBranch(c, func(cont *branchContent) error {
		for _, x := range cont.Variants {
			if x.ID == id {
				out = x
			}
		}
		if out == nil {
			return errf(KindNotFound, CodeItemNotFound, MsgItemNotFound)
		}
		for _, x := range cont.Variants {
			if x.ID != id && patch.Name != "" && x.Name == patch.Name {
				return errf(KindConflict, CodeVariantDuplicate, MsgVariantDuplicate)
			}
		}
		wasDefault := out.IsDefault
		if err := readVariant(c, out, false); err != nil {
			return err
		}
		if out.IsDefault && !wasDefault {
			for _, x := range cont.Variants {
				x.IsDefault = x == out
			}
		}
		if wasDefault && !out.IsDefault {
			return errf(KindInvalid, CodeVariantDefault, MsgVariantDefault)
		}
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, out)
	return nil
}

// handleVariantDelete handles "DELETE .../variants/{id}" (200 {id}); the
// default variant cannot be removed (400 VARIANTS_REMOVE_DEFAULT_ERROR).
func (a *API) handleVariantDelete(c *gin.Context) error {
	id := c.Param("item")
	if _, err := a.editBranch(c, func(cont *branchContent) error {
		i := slices.IndexFunc(cont.Variants, func(x *variant) bool { return x.ID == id })
		if i < 0 {
			return errf(KindNotFound, CodeItemNotFound, MsgItemNotFound)
		}
		if cont.Variants[i].IsDefault {
			return errf(KindInvalid, CodeVariantDefault, MsgVariantDefault)
		}
		cont.Variants = slices.Delete(cont.Variants, i, i+1)
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"id": id})
	return nil
}

// --- deployments ---

// newUUIDv7 returns a UUIDv7 of the virtual time (notes §16).
func (a *API) newUUIDv7(t time.Time) string {
	u := a.newUUID() // random bits, version 4 layout
	ms := uint64(t.UnixMilli())
	h := fmt.Sprintf("%012x", ms&0xffffffffffff)
	return h[:8] + "-" + h[8:12] + "-7" + u[15:18] + u[18:]
}

// renderDeployment answers a deployment per deploy_response (D6).
func (a *API) renderDeployment(c *gin.Context, status int, d *deployment) {
	if a.world().fidelity(switchDeployResponse) == "wrapped" {
		c.JSON(status, gin.H{"deployment": d, "testRunIds": []string{}})
		return
	}
	c.JSON(status, d)
}

func deploymentMessage(f *fieldBody) (string, bool) { return f.str("deploymentMessage") }

// handleDeploymentPublish handles "POST .../deployments/publish": the
// main draft is snapshotted into a sandbox deployment (spec 3.3), 201.
func (a *API) handleDeploymentPublish(c *gin.Context) error {
	f, err := readFields(c, true, "environment", "deploymentMessage")
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
	a.build.agentMu.Lock()
	defer a.build.agentMu.Unlock()
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
	a.setRuntimeDeployment(p.Region, cur.AgentID, "sandbox", snap.Topics)
	a.renderDeployment(c, http.StatusCreated, dep)
	return nil
}

// alreadyPublished answers 409 DEPLOYMENTS_ALREADY_PUBLISHED when the
// active sandbox deployment came from a merge and holds content, the
// main draft unchanged since (merge_deploy: sandbox, D22; notes section 4
// "Publishing after a merge").
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
	a.build.agentMu.Lock()
	defer a.build.agentMu.Unlock()
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
	a.setRuntimeDeployment(p.Region, d.AgentID, out.Environment, snap.Topics)
	return out, stored, nil
}

// handleDeploymentPromote handles "POST .../deployments/{id}/promote": a
// new deployment of the same version in the next environment, or in
// targetEnvironment (D21), 200.
func (a *API) handleDeploymentPromote(c *gin.Context) error {
	f, err := readFields(c, true, "targetEnvironment", "deploymentMessage")
	if err != nil {
		return err
	}
	targetEnv, hasTarget := f.enum("targetEnvironment", []string{"pre-release", "live"})
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
	if _, err := readFields(c, true, "deploymentMessage"); err != nil {
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
// newest first (spec 4.3).
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
	c.JSON(http.StatusOK, gin.H{"deployments": out})
	return nil
}

// handleDeploymentActive handles "GET .../deployments/active".
func (a *API) handleDeploymentActive(c *gin.Context) error {
	d, err := a.loadAgent(c)
	if err != nil {
		return err
	}
	act := map[string]*deployment{}
	for _, env := range deployEnvs {
		act[env] = d.active(env)
	}
	c.JSON(http.StatusOK, gin.H{"activeDeployments": act})
	return nil
}

// --- real-time configs ---

func configEnv(c *gin.Context) (string, error) {
	env := c.Param("env")
	if !containsStr(deployEnvs, env) {
		return "", errf(KindInvalid, CodeConfigUnknownEnv, MsgConfigUnknownEnv)
	}
	return env, nil
}

// handleConfigList handles "GET .../real-time-configs" → {"configPages": [...]}.
func (a *API) handleConfigList(c *gin.Context) error {
	d, err := a.loadAgent(c)
	if err != nil {
		return err
	}
	pages := []*configPage{}
	for _, env := range deployEnvs {
		pages = append(pages, d.Configs[env])
	}
	c.JSON(http.StatusOK, gin.H{"configPages": pages})
	return nil
}

// handleConfigGet handles "GET .../real-time-configs/{clientEnv}".
func (a *API) handleConfigGet(c *gin.Context) error {
	env, err := configEnv(c)
	if err != nil {
		return err
	}
	d, err := a.loadAgent(c)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, d.Configs[env])
	return nil
}

// handleConfigSchema handles "PUT .../real-time-configs/{clientEnv}/schema".
func (a *API) handleConfigSchema(c *gin.Context) error {
	env, err := configEnv(c)
	if err != nil {
		return err
	}
	f, err := readFields(c, false, "schema")
	if err != nil {
		return err
	}
	f.require("schema")
	var schema map[string]any
	f.object("schema", &schema, "must be a JSON Schema object")
	if err := f.err(); err != nil {
		return err
	}
	raw := f.raw["schema"]
	if _, err := a.compileSchema(raw); err != nil {
		return &Error{Kind: KindInvalid, Code: CodeConfigBadSchema, Message: MsgConfigBadSchema,
			Fields: []FieldError{{Field: "schema", Message: err.Error()}}}
	}
	now := fmtAgentTime(a.clock.Now())
	d, err := a.updateAgent(c, func(d *agentDoc) error {
		d.Configs[env].Schema = raw
		d.Configs[env].LastUpdated = &now
		return nil
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, d.Configs[env])
	return nil
}

// handleConfigVariables handles "PATCH .../real-time-configs/{segment}/variables"
// (spec 4.3): the given variables are set (a null value removes one), the
// result is validated against the page's JSON Schema (per-field errors)
// and takes effect at once, without a publish.
func (a *API) handleConfigVariables(c *gin.Context) error {
	env, err := configEnv(c)
	if err != nil {
		return err
	}
	f, err := readFields(c, false, "variables")
	if err != nil {
		return err
	}
	f.require("variables")
	var vars map[string]any
	f.object("variables", &vars, "must be an object")
	if err := f.err(); err != nil {
		return err
	}
	p := principal(c)
	a.build.agentMu.Lock()
	defer a.build.agentMu.Unlock()
	now := fmtAgentTime(a.clock.Now())
	d, err := a.updateAgent(c, func(d *agentDoc) error {
		page := d.Configs[env]
		next := map[string]any{}
		for k, v := range page.Variables {
			next[k] = v
		}
		for k, v := range vars {
			if v == nil {
				delete(next, k)
			} else {
				next[k] = v
			}
		}
		if fields, err := a.validateVariables(page.Schema, next); err != nil {
			return err
		} else if len(fields) > 0 {
			return &Error{Kind: KindInvalid, Code: CodeConfigInvalid, Message: MsgConfigInvalid, Fields: fields}
		}
		page.Variables = next
		page.LastUpdated = &now
		return nil
	})
	if err != nil {
		return err
	}
	a.setRuntimeVariables(p.Region, d.AgentID, env, d.Configs[env].Variables)
	c.JSON(http.StatusOK, d.Configs[env])
	return nil
}

// --- seeding ---

// seedAgents writes an agent per scenario project: the agent block's main
// branch (behavior, topics; the project's variants), its deployments and
// its config pages; then each account's telephony (telephony.go).
func seedAgents(st *store.Store, sc *scenario.Scenario, now time.Time) error {
	for ai := range sc.Accounts {
		acct := &sc.Accounts[ai]
		for pi := range acct.Projects {
			proj := &acct.Projects[pi]
			name := proj.Name
			if name == "" {
				name = proj.Slug
			}
			d := newAgentDoc(acct.ID, proj.ID, name, now)
			main := &d.Branches[0].Content
			for _, v := range proj.Variants {
				main.Variants = append(main.Variants, &variant{ID: v.ID, Name: v.Name, IsDefault: v.Default,
					AttributeValues: attributeValues{Values: map[string]string{}}})
			}
			if ag := proj.Agent; ag != nil {
				main.Behavior = ag.Behavior
				for i, t := range ag.KnowledgeBase {
					main.Topics = append(main.Topics, &topicRec{ID: fmt.Sprintf("TOPICS-%08x", i+1), Name: t.Name, Content: t.Content,
						ExampleQueries: exampleQuries{Queries: []string{}}, IsActive: true})
				}
				if len(ag.Deployed) > 0 {
					version := fmt.Sprintf("%032x", ai<<16|pi+1)
					if err := st.PutDoc(docSnapshot, acct.Region, version, main); err != nil {
						return err
					}
					for i, env := range deployEnvs {
						if !slices.Contains(ag.Deployed, env) {
							continue
						}
						d.Deployments = append(d.Deployments, &deployment{
							ID:        fmt.Sprintf("%012x-0000-7000-8000-%012x", now.UnixMilli(), ai<<16|pi<<4|i),
							AccountID: acct.ID, AgentID: proj.ID, Environment: env, ArtifactVersion: fmtAgentTime(now),
							Version: version, CreatedBy: "scenario", CreatedAt: fmtAgentTime(now),
							Metadata: map[string]any{"deployment_type": "scenario"}})
					}
				}
				for env, cfg := range ag.RealTimeConfigs {
					page := d.Configs[env]
					if cfg.Schema != nil {
						b, err := json.Marshal(cfg.Schema)
						if err != nil {
							return err
						}
						page.Schema = b
					}
					for k, v := range cfg.Variables {
						page.Variables[k] = v
					}
				}
			}
			if err := st.PutDoc(docAgent, acct.Region, proj.ID, d); err != nil {
				return err
			}
		}
	}
	return seedTelephony(st, sc)
}
