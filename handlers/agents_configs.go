package handlers

// Real-time configs of an agent: per client environment a
// JSON Schema (agents_configs_schema.go) and the variables it validates;
// variables take effect on the runtime at once.

import (
	"net/http"
	"slices"

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
	if !slices.Contains(engine.DeployEnvs, env) {
		return "", engine.Errf(engine.KindInvalid, engine.CodeConfigUnknownEnv, engine.MsgConfigUnknownEnv)
	}
	return env, nil
}

// handleConfigList handles "GET .../real-time-configs" → {"configPages": [...]}.
func (a *API) handleConfigList(c *gin.Context) error {
	pages, err := a.ConfigPages(principal(c), c.Param("agent"))
	if err != nil {
		return err
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
	page, err := a.ConfigPage(principal(c), c.Param("agent"), env)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, page)
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
	page, err := a.SetConfigSchema(principal(c), c.Param("agent"), env, f.raw["schema"])
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, page)
	return nil
}

// handleConfigVariables handles "PATCH .../real-time-configs/{segment}/variables"
// (docs/api.md#agents-configs, docs/fidelity.md M12.5): the given
// variables are set (a null value removes one), validated against the
// page's JSON Schema, and take effect at once (Engine.SetConfigVariables).
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
	page, err := a.SetConfigVariables(principal(c), c.Param("agent"), env, vars)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, page)
	return nil
}
