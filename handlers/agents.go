package handlers

// Agents API (docs/api.md#agents; docs/fidelity.md G4, G8, G13, D1–D6,
// D21, D22): the HTTP edge of the engine's agents*.go.

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/engine/telephony"
	"github.com/agentplatform/mockplatform/engine/testruns"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
)

// famAgents is the agents API and its sub-resources (docs/api.md#agents).
var famAgents = &Family{
	Name: "agents", Base: "builder", Shape: shapeBuilder,
	Credential: scenario.KindBuilder, Headers: []string{"X-Api-Key"}, Forbid: true,
	Doc:      "Agents, branches, behavior, knowledge-base topics, attributes, variants, deployments, real-time configs and telephony (docs/api.md#agents).",
	Schemes:  builderSchemes,
	Security: [][]string{{"builderKey"}},
	Routes: slices.Concat(agentsRoutes, agentBranchesRoutes, agentTopicsRoutes, agentVariantsRoutes,
		agentDeploymentsRoutes, agentConfigsRoutes, telephonyConnectorsRoutes, telephonyNumbersRoutes,
		agentOutboundRoutes, agentConversationsRoutes, agentTestingRoutes),
	Counts: []Counted{countDocs("agents", engine.DocAgent), countDocs("debug chats", engine.DocDebugChat),
		countDocs("test runs", testruns.DocTestRun)},
	Codes:    agentsCodes,
	Machines: []*Machine{engine.MachineBranch, engine.MachineDeployment},
}

// agentsCodes are the error codes of every agents sub-resource.
var agentsCodes = []ErrorCode{
	{Status: 400, Code: engine.CodeValidation, Body: true},
	{Status: 400, Code: engine.CodeValidation, Ops: []string{"branchDelete", "deploymentList"}},
	{Status: 404, Code: engine.CodeAgentNotFound, In: "/:agent"},
	{Status: 409, Code: engine.CodeAgentExists, Ops: []string{"agentCreate", "agentCreateInAccount", "agentDuplicate"}},
	{Status: 404, Code: engine.CodeBranchNotFound, In: "/:branch"},
	{Status: 400, Code: engine.CodeMergeConflict, Ops: []string{"branchMerge"}},
	{Status: 409, Code: engine.CodeMergeConflict, Ops: []string{"branchMerge"}},
	{Status: 422, Code: engine.CodeMainReadOnly},
	{Status: 404, Code: engine.CodeTopicNotFound, Ops: []string{"topicGet", "topicUpdate", "topicDelete"}},
	{Status: 409, Code: engine.CodeTopicExists, Ops: []string{"topicCreate", "topicUpdate"}},
	{Status: 404, Code: engine.CodeItemNotFound, Ops: []string{"attributeUpdate", "attributeDelete", "variantUpdate", "variantDelete"}},
	{Status: 409, Code: engine.CodeAttributeDuplicate, Ops: []string{"attributeCreate", "attributeUpdate"}},
	{Status: 409, Code: engine.CodeVariantDuplicate, Ops: []string{"variantCreate", "variantUpdate"}},
	{Status: 400, Code: engine.CodeVariantDefault, Ops: []string{"variantUpdate", "variantDelete"}},
	{Status: 400, Code: engine.CodeDeployInvalidEnv, Ops: []string{"deploymentPublish", "deploymentList"}},
	{Status: 409, Code: engine.CodeAlreadyPublished, Ops: []string{"deploymentPublish"}},
	{Status: 404, Code: engine.CodeDeploymentNotFound, In: "/:deployment"},
	{Status: 400, Code: engine.CodeDeployTarget, Ops: []string{"deploymentPromote"}},
	{Status: 412, Code: engine.CodePreReleaseNotReady},
	{Status: 400, Code: engine.CodeConfigUnknownEnv, In: "/:env"},
	{Status: 400, Code: engine.CodeConfigBadSchema, Ops: []string{"realTimeConfigSchema"}},
	{Status: 400, Code: engine.CodeConfigInvalid, Ops: []string{"realTimeConfigVariables"}},
	{Status: 400, Code: telephony.CodeConnectorInvalid, Ops: []string{"connectorBatchGet", "connectorBatchUpdate", "connectorUpdate", "connectorLookup"}},
	{Status: 404, Code: telephony.CodeConnectorNotFound, In: "/:connector"},
	{Status: 404, Code: telephony.CodeConnectorNotFound, Ops: []string{"connectorLookup", "phoneNumberReassign"}},
	{Status: 400, Code: telephony.CodePhoneInvalid, Ops: []string{"connectorLookup", "phoneNumberImport", "phoneNumberBatchGet", "phoneNumberImportOne"}},
	{Status: 409, Code: telephony.CodePhoneExists, Ops: []string{"phoneNumberImport", "phoneNumberImportOne"}},
	{Status: 404, Code: telephony.CodePhoneNotFound, Ops: []string{"connectorLookup", "phoneNumberGet", "phoneNumberDelete", "phoneNumberReassign"}},
	{Status: 400, Code: "VALIDATION_ERROR", Ops: []string{"agentConversationAudio", "agentConversationList", "agentOutboundCallStatus", "testHistoryList", "testRunList"}},
	{Status: 404, Code: "CONVERSATIONS_NOT_FOUND", Ops: []string{"agentConversationGet", "agentConversationAudio", "debugChatRespond"}},
	{Status: 404, Code: "RECORDING_NOT_FOUND", Ops: []string{"agentConversationAudio"}},
	{Status: 400, Code: "OUTBOUND_NOT_ENABLED", Ops: []string{"agentOutboundCall"}},
	{Status: 404, Code: "CONNECTORS_NOT_FOUND", Ops: []string{"agentOutboundCall"}},
	{Status: 400, Code: "CONNECTORS_NOT_FOUND", Ops: []string{"agentOutboundCallStatus"}},
	{Status: 429, Code: "RATE_LIMITED", Ops: []string{"agentOutboundCall"}},
	{Status: 400, Code: "INVALID_CALL_SID", Ops: []string{"agentOutboundCallStatus"}},
	{Status: 400, Code: "INVALID_REQUEST", Ops: []string{"agentOutboundCallStatus"}},
	{Status: 404, Code: "CALL_NOT_FOUND", Ops: []string{"agentOutboundCallStatus"}},
	{Status: 400, Code: "CHAT_DRAFT_NOT_EXIST", Ops: []string{"debugChatCreate"}},
	{Status: 400, Code: "CHAT_INVALID_REQUEST", Ops: []string{"debugChatCreate", "debugChatRespond"}},
	{Status: 400, Code: "CHAT_VARIANT_NOT_FOUND", Ops: []string{"debugChatCreate"}},
	{Status: 400, Code: "CHAT_CONVERSATION_ENDED", Ops: []string{"debugChatRespond"}},
	{Status: 404, Code: "TEST_RUN_NOT_FOUND", Ops: []string{"testRunGet"}},
	{Status: 400, Code: "TEST_CASE_NOT_FOUND", Ops: []string{"testRunTrigger"}},
	{Status: 404, Code: "BRANCH_NOT_FOUND", Ops: []string{"testRunTrigger"}},
}

// builderSchemes is the credential of the builder families.
var builderSchemes = map[string]Scheme{
	"builderKey": {Type: "apiKey", In: "header", Name: "x-api-key", Doc: "A builder key of the account (credential kind builder)."},
}

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
		Responses: []Response{ok(200, []engine.AgentView{})}}
	opAgentCreate = &Op{ID: "agentCreate", Summary: "Create an agent",
		Doc:  "An agent with an empty main branch and empty config pages (docs/api.md#agents-agents).",
		Body: agentCreateBody{},
		Responses: []Response{ok(201, engine.AgentCreated{}), {Status: 200, Body: engine.AgentView{},
			Doc:      "The real service's answer, with the real body rules (name 1 to 100 characters, responseSettings.greeting required, no other field).",
			Fidelity: &engine.Fidelity{ID: "D2", Switch: engine.SwitchAgentCreate, Value: "oas", Note: "200 with the agent record"}}},
		Errors: []int{400, 409}}
	opAgentListAccount   = aliasOf(opAgentList, "agentListInAccount", engine.AccountScoped)
	opAgentCreateAccount = aliasOf(opAgentCreate, "agentCreateInAccount", engine.AccountScoped)
	opAgentGet           = &Op{ID: "agentGet", Summary: "Read an agent", Responses: []Response{ok(200, engine.AgentView{})}, Errors: []int{404}}
	opAgentDelete        = &Op{ID: "agentDelete", Summary: "Delete an agent", Doc: "Its telephony goes with it.",
		Responses: []Response{{Status: 204}}, Errors: []int{404}}
	opAgentDuplicate = &Op{ID: "agentDuplicate", Summary: "Duplicate an agent",
		Doc:  "A new agent whose main branch and config pages copy the source's (docs/api.md#agents-agents).",
		Body: agentDuplicateBody{}, Responses: []Response{ok(200, engine.AgentView{})}, Errors: []int{400, 404, 409}}
)

// aliasOf documents a route serving op under another path, and why.
func aliasOf(op *Op, id string, why *engine.Fidelity) *Op {
	cp := *op
	cp.ID, cp.Fidelity = id, why
	return &cp
}

// agentCreateBody documents an agent create; handleAgentCreate reads it
// field by field.
type agentCreateBody struct {
	Name               string         `json:"name"`
	Description        string         `json:"description"`
	AgentID            string         `json:"agentId"`
	ResponseSettings   map[string]any `json:"responseSettings"`
	VoiceSettings      map[string]any `json:"voiceSettings"`
	LLMSettings        map[string]any `json:"llmSettings"`
	ExperimentalConfig map[string]any `json:"experimentalConfig"`
}

func (agentCreateBody) FieldRules() map[string]engine.FieldRule { return engine.AgentCreateRules }

type agentDuplicateBody struct {
	NewAgentName string `json:"newAgentName"`
	NewAgentID   string `json:"newAgentId"`
}

func (agentDuplicateBody) FieldRules() map[string]engine.FieldRule { return engine.AgentDuplicateRules }

// --- agents ---

// handleAgentList handles "GET {builder}/v1/agents" and
// "GET {builder}/v1/accounts/{accountId}/agents": a bare array
// (docs/api.md#agents-agents; docs/fidelity.md D1).
func (a *API) handleAgentList(c *gin.Context) error {
	list, err := a.Agents(principal(c))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, list)
	return nil
}

// handleAgentCreate handles "POST {builder}/v1/agents" (and the account
// path; docs/api.md#agents-agents, docs/fidelity.md D2). Under
// agent_create: oas the real body rules apply (readCreateAgentOAS).
func (a *API) handleAgentCreate(c *gin.Context) error {
	oas := a.View().Fidelity(engine.SwitchAgentCreate) == "oas"
	var name, desc, id string
	if oas {
		var err error
		if name, id, err = readCreateAgentOAS(c); err != nil {
			return err
		}
	} else {
		f, err := readFields(c, false, engine.BodyFields(agentCreateBody{})...)
		if err != nil {
			return err
		}
		f.requireAll(agentCreateBody{})
		name, _ = f.text("name", engine.AgentCreateRules["name"])
		desc, _ = f.str("description")
		id = readAgentID(f, "agentId")
		if err := f.err(); err != nil {
			return err
		}
	}
	d, err := a.CreateAgent(principal(c), engine.AgentInput{ID: id, Name: name, Description: desc})
	if err != nil {
		return err
	}
	if oas {
		// OAS CreateAgentResponse: 200, these six fields only.
		c.JSON(http.StatusOK, d.View())
		return nil
	}
	now := engine.FmtAgentTime(d.CreatedAt)
	v := d.View()
	v.CreatedAt, v.UpdatedAt, v.BranchCount = now, now, 1
	c.JSON(http.StatusCreated, engine.AgentCreated{AgentView: v, Branch: d.Branches[0].View()})
	return nil
}

// readCreateAgentOAS validates a create-agent body by the real rules (D2,
// OAS CreateAgentBody): unknown fields at any level give 400.
func readCreateAgentOAS(c *gin.Context) (name, id string, err error) {
	known := []string{"name", "agentId", "responseSettings", "voiceSettings", "llmSettings", "experimentalConfig"}
	raw, err := readObject(c, false, engine.CodeValidation)
	if err != nil {
		return "", "", err
	}
	f := &fieldBody{raw: raw}
	all := slices.Sorted(maps.Keys(raw))
	for _, k := range all {
		if !slices.Contains(known, k) {
			f.fail(k, "is not allowed")
		}
	}
	f.require("name")
	name, _ = f.strLen("name", 1, 100)
	id = readAgentID(f, "agentId")
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
	return name, id, f.err()
}

// readAgentID reads an agent id field: letters, digits and dashes; ""
// when not given (a fresh id).
func readAgentID(f *fieldBody, name string) string {
	id, ok := f.str(name)
	if ok && !engine.AgentIDRE.MatchString(id) {
		f.fail(name, "must match ^[a-zA-Z0-9-]+$")
	}
	return id
}

// closedObject checks an object field of string properties: props maps
// each allowed one to whether it must be non-empty; need lists required ones.
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
	d, err := a.Agent(principal(c), c.Param("agent"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, d.View())
	return nil
}

// handleAgentDelete handles "DELETE {builder}/v1/agents/{agentId}" (204).
func (a *API) handleAgentDelete(c *gin.Context) error {
	if err := a.DeleteAgent(principal(c), c.Param("agent")); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// handleAgentDuplicate handles "POST {builder}/v1/agents/{agentId}/duplicate"
// (docs/fidelity.md G13): a new agent with a copy of the source's main
// branch and real-time config pages only.
func (a *API) handleAgentDuplicate(c *gin.Context) error {
	f, err := readFields(c, false, engine.BodyFields(agentDuplicateBody{})...)
	if err != nil {
		return err
	}
	f.requireAll(agentDuplicateBody{})
	name, _ := f.text("newAgentName", engine.AgentDuplicateRules["newAgentName"])
	id := readAgentID(f, "newAgentId")
	if err := f.err(); err != nil {
		return err
	}
	d, err := a.DuplicateAgent(principal(c), c.Param("agent"), id, name)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, d.View())
	return nil
}
