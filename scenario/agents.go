package scenario

// The agents block of a project: its main branch (behavior, knowledge-base
// topics), where it is deployed, and its real-time configs.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// AgentBuild is the build side of an agent.
type AgentBuild struct {
	// Behavior is the main branch's behavior text.
	Behavior string `yaml:"behavior" json:"behavior,omitempty"`
	// KnowledgeBase are the main branch's topics.
	KnowledgeBase []Topic `yaml:"knowledge_base" json:"knowledge_base,omitempty"`
	// Deployed lists the environments the main branch is deployed to at
	// start (sandbox, pre-release, live).
	Deployed []string `yaml:"deployed" json:"deployed,omitempty"`
	// RealTimeConfigs are the config pages per environment.
	RealTimeConfigs map[string]RealTimeConfig `yaml:"real_time_configs" json:"real_time_configs,omitempty"`
	// AudioCache is the agent's audio cache (voices.go).
	AudioCache *AudioCache `yaml:"audio_cache" json:"audio_cache,omitempty"`
}

// Topic is a knowledge-base topic: a user message that names it (contains
// its name, case-insensitively) is answered with its content (a template).
type Topic struct {
	Name    string `yaml:"name" json:"name"`
	Content string `yaml:"content" json:"content"`
}

// RealTimeConfig is a real-time config page of an environment.
type RealTimeConfig struct {
	// Schema is a JSON Schema (draft 2020-12 unless $schema says
	// otherwise) the variables are validated against.
	Schema map[string]any `yaml:"schema" json:"schema,omitempty"`
	// Variables are the initial values.
	Variables map[string]any `yaml:"variables" json:"variables,omitempty"`
}

// checkSchema reports a real-time config schema that the agents API could
// not compile when the page's variables change.
func checkSchema(schema map[string]any) error {
	b, err := json.Marshal(schema)
	if err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	const res = "mem:///scenario/real-time-config.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(res, doc); err != nil {
		return fmt.Errorf("not a valid JSON Schema: %v", err)
	}
	if _, err := c.Compile(res); err != nil {
		return fmt.Errorf("not a valid JSON Schema: %s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return nil
}

// agents validates the projects' agent blocks.
func (v *validator) agents(s *Scenario) {
	for i := range s.Accounts {
		a := &s.Accounts[i]
		ap := path{"accounts", i}
		for j := range a.Projects {
			ag := a.Projects[j].Agent
			if ag == nil {
				continue
			}
			p := ap.with("projects", j, "agent")
			names := map[string]path{}
			for k, t := range ag.KnowledgeBase {
				tp := p.with("knowledge_base", k)
				if t.Name == "" {
					v.reportf(tp.with("name"), "required")
				}
				v.unique(names, t.Name, tp.with("name"), "topic name")
				v.template(tp.with("content"), t.Content)
			}
			for k, env := range ag.Deployed {
				v.oneOf(p.with("deployed", k), env, Environments)
			}
			for env, cfg := range ag.RealTimeConfigs {
				cp := p.with("real_time_configs", env)
				if !slices.Contains(Environments, env) {
					v.reportf(cp, "unknown environment %q (want live, pre-release or sandbox)", env)
				}
				if cfg.Schema != nil {
					if err := checkSchema(cfg.Schema); err != nil {
						v.reportf(cp.with("schema"), "%v", err)
					}
				}
			}
		}
	}
}
