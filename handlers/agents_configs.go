package handlers

// Real-time configs of an agent: per client environment a
// JSON Schema (agents_configs_schema.go) and the variables it validates;
// variables take effect on the runtime at once.

import (
	"encoding/json"
	"net/http"

	"github.com/gin-gonic/gin"
)

// agentConfigsRoutes are the routes of AgentConfigs.
var agentConfigsRoutes = []Route{
	route("GET /v1/agents/:agent/real-time-configs", (*API).handleConfigList, opConfigList),
	route("GET /v1/agents/:agent/real-time-configs/:env", (*API).handleConfigGet, opConfigGet),
	route("PUT /v1/agents/:agent/real-time-configs/:env/schema", (*API).handleConfigSchema, opConfigSchema),
	route("PATCH /v1/agents/:agent/real-time-configs/:env/variables", (*API).handleConfigVariables, opConfigVariables),
}

var (
	opConfigList = &Op{ID: "realTimeConfigList", Summary: "List real-time config pages",
		Doc: "One page per environment (docs/api.md#agents-configs).", Responses: []Response{ok(200, configPageList{})}, Errors: []int{404}}
	opConfigGet = &Op{ID: "realTimeConfigGet", Summary: "Read an environment's config page",
		Path: configPath, Responses: []Response{ok(200, configPage{})}, Errors: []int{400, 404}}
	opConfigSchema = &Op{ID: "realTimeConfigSchema", Summary: "Set an environment's config schema",
		Path: configPath, Body: configSchemaBody{}, Responses: []Response{ok(200, configPage{})}, Errors: []int{400, 404}}
	opConfigVariables = &Op{ID: "realTimeConfigVariables", Summary: "Change an environment's config variables",
		Doc:  "Merges the variables given (null removes one); the result must pass the page's schema.",
		Path: configPath, Body: configVariablesBody{}, Responses: []Response{ok(200, configPage{})}, Errors: []int{400, 404}}

	configPath = []Param{{Name: "env", Enum: deployEnvs, Doc: "The client environment."}}
)

type (
	configPageList struct {
		ConfigPages []*configPage `json:"configPages"`
	}
	configSchemaBody struct {
		Schema map[string]any `json:"schema"`
	}
	configVariablesBody struct {
		Variables map[string]any `json:"variables"`
	}
)

func (configSchemaBody) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"schema": {Required: true, Doc: "A JSON Schema (draft 2020-12 unless $schema says otherwise)."}}
}

func (configVariablesBody) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"variables": {Required: true}}
}

func (configPage) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"clientEnv": {Enum: deployEnvs}, "schema": {Doc: "A JSON Schema, or null."}}
}

// configPage is a real-time config page of an environment
// (docs/api.md#agents-configs).
type configPage struct {
	ClientEnv   string          `json:"clientEnv"`
	Variables   map[string]any  `json:"variables"`
	Schema      json.RawMessage `json:"schema"`
	LastUpdated *string         `json:"lastUpdated"`
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
	c.JSON(http.StatusOK, configPageList{ConfigPages: pages})
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
	f, err := readFields(c, false, bodyFields(configSchemaBody{})...)
	if err != nil {
		return err
	}
	f.requireAll(configSchemaBody{})
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
// (docs/api.md#agents-configs, docs/fidelity.md M12.5): the given variables
// are set (a null value removes one), the result is validated against the page's JSON Schema (per-field
// errors) and takes effect at once, without a publish.
func (a *API) handleConfigVariables(c *gin.Context) error {
	env, err := configEnv(c)
	if err != nil {
		return err
	}
	f, err := readFields(c, false, bodyFields(configVariablesBody{})...)
	if err != nil {
		return err
	}
	f.requireAll(configVariablesBody{})
	var vars map[string]any
	f.object("variables", &vars, "must be an object")
	if err := f.err(); err != nil {
		return err
	}
	p := principal(c)
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
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
	a.setRuntimeVariablesLocked(p.Region, d.AgentID, env, d.Configs[env].Variables)
	c.JSON(http.StatusOK, d.Configs[env])
	return nil
}
