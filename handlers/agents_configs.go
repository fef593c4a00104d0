package handlers

// Real-time configs of an agent: per client environment a
// JSON Schema (agents_configs_schema.go) and the variables it validates;
// variables take effect on the runtime at once.

import (
	"net/http"

	"github.com/agentplatform/mockplatform/engine"

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
		Doc: "One page per environment (docs/api.md#agents-configs).", Responses: []Response{ok(200, engine.ConfigPageList{})}, Errors: []int{404}}
	opConfigGet = &Op{ID: "realTimeConfigGet", Summary: "Read an environment's config page",
		Path: configPath, Responses: []Response{ok(200, engine.ConfigPage{})}, Errors: []int{400, 404}}
	opConfigSchema = &Op{ID: "realTimeConfigSchema", Summary: "Set an environment's config schema",
		Path: configPath, Body: configSchemaBody{}, Responses: []Response{ok(200, engine.ConfigPage{})}, Errors: []int{400, 404}}
	opConfigVariables = &Op{ID: "realTimeConfigVariables", Summary: "Change an environment's config variables",
		Doc:  "Merges the variables given (null removes one); the result must pass the page's schema.",
		Path: configPath, Body: configVariablesBody{}, Responses: []Response{ok(200, engine.ConfigPage{})}, Errors: []int{400, 404}}

	configPath = []Param{{Name: "env", Enum: engine.DeployEnvs, Doc: "The client environment."}}
)

type (
	configSchemaBody struct {
		Schema map[string]any `json:"schema"`
	}
	configVariablesBody struct {
		Variables map[string]any `json:"variables"`
	}
)

func (configSchemaBody) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{"schema": {Required: true, Doc: "A JSON Schema (draft 2020-12 unless $schema says otherwise)."}}
}

func (configVariablesBody) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{"variables": {Required: true}}
}

// --- real-time configs ---

func configEnv(c *gin.Context) (string, error) {
	env := c.Param("env")
	if !engine.ContainsStr(engine.DeployEnvs, env) {
		return "", engine.Errf(engine.KindInvalid, engine.CodeConfigUnknownEnv, engine.MsgConfigUnknownEnv)
	}
	return env, nil
}

// handleConfigList handles "GET .../real-time-configs" → {"configPages": [...]}.
func (a *API) handleConfigList(c *gin.Context) error {
	d, err := a.loadAgent(c)
	if err != nil {
		return err
	}
	pages := []*engine.ConfigPage{}
	for _, env := range engine.DeployEnvs {
		pages = append(pages, d.Configs[env])
	}
	c.JSON(http.StatusOK, engine.ConfigPageList{ConfigPages: pages})
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
	f, err := readFields(c, false, engine.BodyFields(configSchemaBody{})...)
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
	if _, err := a.CompileSchema(raw); err != nil {
		return &engine.Error{Kind: engine.KindInvalid, Code: engine.CodeConfigBadSchema, Message: engine.MsgConfigBadSchema,
			Fields: []engine.FieldError{{Field: "schema", Message: err.Error()}}}
	}
	now := engine.FmtAgentTime(a.Clock().Now())
	d, err := a.updateAgent(c, func(d *engine.AgentDoc) error {
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
	f, err := readFields(c, false, engine.BodyFields(configVariablesBody{})...)
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
	a.Agents.Mu.Lock()
	defer a.Agents.Mu.Unlock()
	now := engine.FmtAgentTime(a.Clock().Now())
	d, err := a.updateAgent(c, func(d *engine.AgentDoc) error {
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
		if fields, err := a.ValidateVariables(page.Schema, next); err != nil {
			return err
		} else if len(fields) > 0 {
			return &engine.Error{Kind: engine.KindInvalid, Code: engine.CodeConfigInvalid, Message: engine.MsgConfigInvalid, Fields: fields}
		}
		page.Variables = next
		page.LastUpdated = &now
		return nil
	})
	if err != nil {
		return err
	}
	a.SetRuntimeVariablesLocked(p.Region, d.AgentID, env, d.Configs[env].Variables)
	c.JSON(http.StatusOK, d.Configs[env])
	return nil
}
