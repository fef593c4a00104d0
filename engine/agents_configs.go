package engine

// Real-time configs of an agent: per client environment a
// JSON Schema (agents_configs_schema.go) and the variables it validates;
// variables take effect on the runtime at once.

import (
	"encoding/json"
)

type (
	ConfigPageList struct {
		ConfigPages []*ConfigPage `json:"configPages"`
	}
)

func (ConfigPage) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"clientEnv": {Enum: DeployEnvs}, "schema": {Doc: "A JSON Schema, or null."}}
}

// configPage is a real-time config page of an environment
// (docs/api.md#agents-configs).
type ConfigPage struct {
	ClientEnv   string          `json:"clientEnv"`
	Variables   map[string]any  `json:"variables"`
	Schema      json.RawMessage `json:"schema"`
	LastUpdated *string         `json:"lastUpdated"`
}
