package handlers

// Real-time configs of an agent: per client environment a
// JSON Schema (agents_configs_schema.go) and the variables it validates;
// variables take effect on the runtime at once.

import (
	"encoding/json"
	"net/http"

	"github.com/gin-gonic/gin"
)

func (a *API) registerAgentConfigs(rt gin.IRoutes) {
	rt.GET("/v1/agents/:agent/real-time-configs", a.wrap(famAgents, a.handleConfigList))
	rt.GET("/v1/agents/:agent/real-time-configs/:env", a.wrap(famAgents, a.handleConfigGet))
	rt.PUT("/v1/agents/:agent/real-time-configs/:env/schema", a.wrap(famAgents, a.handleConfigSchema))
	rt.PATCH("/v1/agents/:agent/real-time-configs/:env/variables", a.wrap(famAgents, a.handleConfigVariables))
}

// configPage is a real-time config page of an environment (notes §4).
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
