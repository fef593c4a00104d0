package scenario

// The agents block of a project: main branch, deployments, real-time configs.

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
	// TestCases are the agent's test cases, which test runs run
	// (docs/api.md#agents-testing).
	TestCases []TestCase `yaml:"test_cases" json:"test_cases,omitempty"`
}

// TestCase is a test of the agent's dialogue: the user's messages, said
// one a second on the virtual clock, and what the replies must show.
type TestCase struct {
	// ID names the case in test run triggers and results.
	ID string `yaml:"id" json:"id"`
	// Name is the case's display name.
	Name string `yaml:"name" json:"name"`
	// Turns are the user's messages, in order (at least one).
	Turns []string `yaml:"turns" json:"turns"`
	// Assertions must all hold for the case to pass.
	Assertions []TestAssertion `yaml:"assertions" json:"assertions,omitempty"`
}

// TestAssertion is one check of a test case: exactly one of its fields.
type TestAssertion struct {
	// ReplyContains passes when some reply of the agent contains the
	// text (any case).
	ReplyContains string `yaml:"reply_contains" json:"reply_contains,omitempty"`
	// FunctionCall passes when the dialogue rule of this name answered a
	// turn (the mock's dialogue has rules where the real agent has
	// functions).
	FunctionCall string `yaml:"function_call" json:"function_call,omitempty"`
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

// checkSchema reports a schema the agents API could not compile.
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
			v.testCases(p, ag.TestCases)
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

// testCases validates an agent's test cases.
func (v *validator) testCases(p path, cases []TestCase) {
	ids := map[string]path{}
	for k, tc := range cases {
		tp := p.with("test_cases", k)
		if tc.ID == "" {
			v.reportf(tp.with("id"), "required")
		}
		v.unique(ids, tc.ID, tp.with("id"), "test case id")
		if tc.Name == "" {
			v.reportf(tp.with("name"), "required")
		}
		if len(tc.Turns) == 0 {
			v.reportf(tp.with("turns"), "at least one turn is required")
		}
		for j, a := range tc.Assertions {
			if (a.ReplyContains == "") == (a.FunctionCall == "") {
				v.reportf(tp.with("assertions", j), "exactly one of reply_contains and function_call is required")
			}
		}
	}
}
