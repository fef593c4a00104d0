package engine

// Real-time configs of an agent: per environment a JSON Schema and the
// variables it validates, live at once.

import (
	"encoding/json"
	"maps"
)

type (
	ConfigPageList struct {
		ConfigPages []*ConfigPage `json:"configPages"`
	}
)

func (ConfigPage) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"clientEnv": {Enum: DeployEnvs}, "schema": {Doc: "A JSON Schema, or null."}}
}

// ConfigPage is an environment's config page (docs/api.md#agents-configs).
type ConfigPage struct {
	ClientEnv   string          `json:"clientEnv"`
	Variables   map[string]any  `json:"variables"`
	Schema      json.RawMessage `json:"schema"`
	LastUpdated *string         `json:"lastUpdated"`
}

// configPage is env's page, or 400 for an environment without one.
func configPage(d *AgentDoc, env string) (*ConfigPage, error) {
	page := d.Configs[env]
	if page == nil {
		return nil, Errf(KindInvalid, CodeConfigUnknownEnv, MsgConfigUnknownEnv)
	}
	return page, nil
}

// ConfigPages lists an agent's config pages, one per environment.
func (a *Engine) ConfigPages(p *Principal, agent string) ([]*ConfigPage, error) {
	d, err := a.Agent(p, agent)
	if err != nil {
		return nil, err
	}
	pages := []*ConfigPage{}
	for _, env := range DeployEnvs {
		pages = append(pages, d.Configs[env])
	}
	return pages, nil
}

// ConfigPage reads an agent's config page of an environment.
func (a *Engine) ConfigPage(p *Principal, agent, env string) (*ConfigPage, error) {
	d, err := a.Agent(p, agent)
	if err != nil {
		return nil, err
	}
	return configPage(d, env)
}

// SetConfigSchema replaces a page's JSON Schema (400 when it does not
// compile).
func (a *Engine) SetConfigSchema(p *Principal, agent, env string, schema json.RawMessage) (*ConfigPage, error) {
	if _, err := a.compileSchema(schema); err != nil {
		return nil, &Error{Kind: KindInvalid, Code: CodeConfigBadSchema, Message: MsgConfigBadSchema,
			Fields: []FieldError{{Field: "schema", Message: err.Error()}}}
	}
	now := FmtAgentTime(a.clock.Now())
	var out *ConfigPage
	if _, err := a.updateAgent(p, agent, func(d *AgentDoc) error {
		page, err := configPage(d, env)
		if err != nil {
			return err
		}
		page.Schema = schema
		page.LastUpdated = &now
		out = page
		return nil
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// SetConfigVariables sets a page's given variables (nil removes one;
// docs/fidelity.md M12.5); the result must pass the page's schema (400)
// and is live at once, without a publish.
func (a *Engine) SetConfigVariables(p *Principal, agent, env string, vars map[string]any) (*ConfigPage, error) {
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
	now := FmtAgentTime(a.clock.Now())
	var out *ConfigPage
	d, err := a.updateAgent(p, agent, func(d *AgentDoc) error {
		page, err := configPage(d, env)
		if err != nil {
			return err
		}
		next := map[string]any{}
		maps.Copy(next, page.Variables)
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
		out = page
		return nil
	})
	if err != nil {
		return nil, err
	}
	a.setRuntimeVariablesLocked(p.Region, d.AgentID, env, out.Variables)
	return out, nil
}
