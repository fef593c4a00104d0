package handlers

// Agents API: agents, branches, deployments, real-time configs
// (docs/api.md#agents; docs/fidelity.md G4, G8, G13, D1–D6, D21, D22). Agent
// ID = project ID (docs/fidelity.md M12.1): every project of the scenario is
// an agent (its chat agent answers from the deployment active in the
// conversation's environment, engine_script.go); agents created through the
// API exist on the build side only.
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
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// famAgents is the agents API and its sub-resources: branches, behavior,
// topics, attributes, variants, deployments, real-time configs and
// telephony (docs/api.md#agents).
var famAgents = &Family{
	Name: "agents", Base: "builder", Shape: shapeBuilder,
	Credential: scenario.KindBuilder, Headers: []string{"X-Api-Key"}, Forbid: true,
	Doc:      "Agents, branches, behavior, knowledge-base topics, attributes, variants, deployments, real-time configs and telephony (docs/api.md#agents).",
	Schemes:  builderSchemes,
	Security: [][]string{{"builderKey"}},
	Routes: slices.Concat(agentsRoutes, agentBranchesRoutes, agentTopicsRoutes, agentVariantsRoutes,
		agentDeploymentsRoutes, agentConfigsRoutes, telephonyConnectorsRoutes, telephonyNumbersRoutes),
	Counts: []Counted{countDocs("agents", docAgent)},
}

// builderSchemes is the credential of the builder families.
var builderSchemes = map[string]Scheme{
	"builderKey": {Type: "apiKey", In: "header", Name: "x-api-key", Doc: "A builder key of the account (credential kind builder)."},
}

// agentsRoutes are its routes.
var agentsRoutes = []Route{
	route("GET /v1/agents", (*API).handleAgentList, opAgentList),
	route("POST /v1/agents", (*API).handleAgentCreate, opAgentCreate),
	route("GET /v1/accounts/:account/agents", (*API).handleAgentList, opAgentListAccount),
	route("POST /v1/accounts/:account/agents", (*API).handleAgentCreate, opAgentCreateAccount),
	route("GET /v1/agents/:agent", (*API).handleAgentGet, opAgentGet),
	route("DELETE /v1/agents/:agent", (*API).handleAgentDelete, opAgentDelete),
	route("POST /v1/agents/:agent/duplicate", (*API).handleAgentDuplicate, opAgentDuplicate),
}

var (
	opAgentList = &Op{ID: "agentList", Summary: "List agents",
		Doc:       "Every agent of the key's account, as a bare array (docs/api.md#agents-agents).",
		Responses: []Response{ok(200, []agentView{})}}
	opAgentCreate = &Op{ID: "agentCreate", Summary: "Create an agent",
		Doc:  "An agent with an empty main branch and empty config pages (docs/api.md#agents-agents).",
		Body: agentCreateBody{},
		Responses: []Response{ok(201, agentCreated{}), {Status: 200, Body: agentView{},
			Doc:      "The real service's answer, with the real body rules (name 1 to 100 characters, responseSettings.greeting required, no other field).",
			Fidelity: &Fidelity{ID: "D2", Switch: switchAgentCreate, Value: "oas", Note: "200 with the agent record"}}},
		Errors: []int{400, 409}}
	opAgentListAccount   = aliasOf(opAgentList, "agentListInAccount", accountScoped)
	opAgentCreateAccount = aliasOf(opAgentCreate, "agentCreateInAccount", accountScoped)
	opAgentGet           = &Op{ID: "agentGet", Summary: "Read an agent", Responses: []Response{ok(200, agentView{})}, Errors: []int{404}}
	opAgentDelete        = &Op{ID: "agentDelete", Summary: "Delete an agent", Doc: "Its telephony goes with it.",
		Responses: []Response{{Status: 204}}, Errors: []int{404}}
	opAgentDuplicate = &Op{ID: "agentDuplicate", Summary: "Duplicate an agent",
		Doc:  "A new agent whose main branch and config pages copy the source's (docs/api.md#agents-agents).",
		Body: agentDuplicateBody{}, Responses: []Response{ok(200, agentView{})}, Errors: []int{400, 404, 409}}

	// accountScoped marks the account-scoped paths of the Agents API.
	accountScoped = &Fidelity{ID: "D1", Note: "the account-scoped path of the same operation; the account segment must be the key's account"}
)

// aliasOf documents a route that serves the same operation as op under
// another path, marked with why it exists.
func aliasOf(op *Op, id string, why *Fidelity) *Op {
	cp := *op
	cp.ID, cp.Fidelity = id, why
	return &cp
}

// agentCreateBody is the body of an agent create; handleAgentCreate reads
// it field by field.
type agentCreateBody struct {
	Name               string         `json:"name"`
	Description        string         `json:"description"`
	AgentID            string         `json:"agentId"`
	ResponseSettings   map[string]any `json:"responseSettings"`
	VoiceSettings      map[string]any `json:"voiceSettings"`
	LLMSettings        map[string]any `json:"llmSettings"`
	ExperimentalConfig map[string]any `json:"experimentalConfig"`
}

func (agentCreateBody) FieldRules() map[string]FieldRule { return agentCreateRules }

var agentCreateRules = map[string]FieldRule{
	"name": {Required: true, MinLen: 1, MaxLen: 128,
		Fidelity: &Fidelity{ID: "D2", Switch: switchAgentCreate, Value: "oas", Note: "1 to 100 characters"}},
	"agentId": {Pattern: agentIDRE, Doc: "The new agent's id (default PROJECT- and 8 letters or digits)."},
	"responseSettings": {Doc: "Accepted; under agent_create: oas required, with greeting.",
		Fidelity: &Fidelity{ID: "D2", Switch: switchAgentCreate, Value: "oas", Note: "required: {greeting, languageCode?}"}},
}

// agentCreated is the spec's create answer: the agent and its main branch.
type agentCreated struct {
	agentView
	Branch branchView `json:"branch"`
}

// agentDuplicateBody is the body of a duplicate.
type agentDuplicateBody struct {
	NewAgentName string `json:"newAgentName"`
	NewAgentID   string `json:"newAgentId"`
}

func (agentDuplicateBody) FieldRules() map[string]FieldRule { return agentDuplicateRules }

var agentDuplicateRules = map[string]FieldRule{
	"newAgentName": {Required: true, MinLen: 1, MaxLen: 100},
	"newAgentId":   {Pattern: agentIDRE},
}

// agentsState is the agents family's in-memory state: the runtime index,
// what the runtime answers from of the build side (engine_script.go).
type agentsState struct {
	// mu serialises the writes of the Agents API (telephony included)
	// that change what the runtime answers from; it is held across store
	// calls. The index is replaced whole under mu and read without it: script
	// runs inside store transactions and must not wait for a writer that
	// waits for the store.
	mu  sync.Mutex
	idx atomic.Pointer[runtimeIndex]
}

// resetAgents rebuilds the runtime index from the restored store.
func (a *API) resetAgents() { a.rebuildRuntimeIndex() }

// Agents error codes (docs/api.md#agents-errors; docs/fidelity.md G13) and
// messages that tests compare. Under the default body (builder_errors:
// spec, docs/fidelity.md D10) the code is not shown; the message is.
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

// envOrder ranks the environments along the deployment path
// (docs/api.md#agents-deployments).
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

// branchContent is what a branch holds (docs/api.md#agents).
type branchContent struct {
	Behavior   string       `json:"behavior"`
	Topics     []*topicRec  `json:"topics"`
	Attributes []*attribute `json:"attributes"`
	Variants   []*variant   `json:"variants"`
}

// agentView is the agent record (docs/api.md#agents-agents; docs/fidelity.md G4).
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
// "GET {builder}/v1/accounts/{accountId}/agents": a bare array
// (docs/api.md#agents-agents; docs/fidelity.md D1).
func (a *API) handleAgentList(c *gin.Context) error {
	p := principal(c)
	list := []agentView{}
	err := store.ListDocs(a.store, docAgent, p.Region, func(_ string, d *agentDoc) bool {
		if d.AccountID == p.Account.ID {
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
// path): name 1-128 characters and description
// (docs/api.md#agents-agents); the real fields responseSettings and agentId
// are accepted too (docs/fidelity.md D2). Under agent_create: oas the real
// body rules apply instead (createAgentOAS).
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
		f, err := readFields(c, false, bodyFields(agentCreateBody{})...)
		if err != nil {
			return err
		}
		f.requireAll(agentCreateBody{})
		name, _ = f.text("name", agentCreateRules["name"])
		desc, _ = f.str("description")
		id, hasID = f.str("agentId")
		if hasID && !agentIDRE.MatchString(id) {
			f.fail("agentId", "must match ^[a-zA-Z0-9-]+$")
		}
		if err := f.err(); err != nil {
			return err
		}
	}
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
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
	v := d.view()
	v.CreatedAt, v.UpdatedAt, v.BranchCount = now, now, 1
	c.JSON(http.StatusCreated, agentCreated{agentView: v, Branch: d.Branches[0].view()})
	return nil
}

// insertAgent stores a new agent of the principal's account named name,
// with the given id (hasID) or a fresh PROJECT-XXXXXXXX one; fill sets the
// rest. A given id that is taken is 409 AGENT_ALREADY_EXISTS.
// a.agents.mu must be held.
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
	known := []string{"name", "agentId", "responseSettings", "voiceSettings", "llmSettings", "experimentalConfig"}
	// The unknown keys are errors here, not warnings.
	raw, err := readObject(c, false, CodeValidation)
	if err != nil {
		return "", "", false, err
	}
	f := &fieldBody{raw: raw}
	all := slices.Sorted(maps.Keys(raw))
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
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
	d, err := a.loadAgent(c)
	if err != nil {
		return err
	}
	p := principal(c)
	if err := a.store.DeleteDoc(docAgent, p.Region, d.AgentID); err != nil {
		return err
	}
	if err := a.dropTelephonyLocked(p.Region, p.Account.ID, d.AgentID); err != nil {
		return err
	}
	a.setRuntimeLocked(p.Region, d.AgentID, nil, nil)
	c.Status(http.StatusNoContent)
	return nil
}

// handleAgentDuplicate handles "POST {builder}/v1/agents/{agentId}/duplicate"
// {newAgentName (1-100), newAgentId?} (docs/fidelity.md G13, OAS
// DuplicateAgentBody): a new agent whose main branch is a copy of the
// source's main branch, with its real-time config pages (schemas and
// variables); branches other than main, deployments and telephony are not
// copied. 200 with the CreateAgentResponse fields.
func (a *API) handleAgentDuplicate(c *gin.Context) error {
	f, err := readFields(c, false, bodyFields(agentDuplicateBody{})...)
	if err != nil {
		return err
	}
	f.requireAll(agentDuplicateBody{})
	name, _ := f.text("newAgentName", agentDuplicateRules["newAgentName"])
	id, hasID := f.str("newAgentId")
	if hasID && !agentIDRE.MatchString(id) {
		f.fail("newAgentId", "must match ^[a-zA-Z0-9-]+$")
	}
	if err := f.err(); err != nil {
		return err
	}
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
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
