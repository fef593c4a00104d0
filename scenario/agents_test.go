package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const builderBase = `accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
`

func TestBuilderBlocksValid(t *testing.T) {
	s := mustParse(t, "b.yaml", `alerts: {evaluation_interval: 30s}
accounts:
  - slug: acme
    id: "1001"
    alert_rules:
      - {id: ar_seed1, name: Busy, project: support, metric: call_volume, operator: ">=", threshold_value: 5, window_duration: 5m}
      - {name: Errors, metric: api_errors, operator: ">", threshold_value: 0, window_duration: 60m, enabled: false, state: alert}
    webhook_endpoints:
      - {id: whe_seed1, name: ops, url: "http://127.0.0.1:9/hook", signing_secret: whsec_x, timeout_ms: 1000, headers: {X-A: b}}
    projects:
      - slug: support
        id: "2001"
        agent:
          behavior: Be kind.
          deployed: [sandbox, live]
          knowledge_base:
            - {name: hours, content: "Open {{.Variables.hours}}."}
          real_time_configs:
            live:
              schema: {type: object}
              variables: {hours: 24/7}
`)
	if s.Alerts.EvaluationInterval.D() != 30*time.Second || len(s.Accounts[0].AlertRules) != 2 ||
		s.Accounts[0].WebhookEndpoints[0].SigningSecret != "whsec_x" || s.Accounts[0].Projects[0].Agent.Deployed[1] != "live" {
		t.Fatalf("parsed: %+v", s)
	}
	// Merge keeps the later evaluation interval.
	m, err := testVoc.Merge(s, mustParse(t, "c.yaml", "alerts: {evaluation_interval: 2m}\n"))
	if err != nil || m.Alerts.EvaluationInterval.D() != 2*time.Minute {
		t.Fatalf("merge: %v %v", m.Alerts, err)
	}
}

func TestBuilderBlocksInvalid(t *testing.T) {
	cases := map[string]struct{ doc, want string }{
		"rule id":      {"    alert_rules: [{id: rule1, name: a, metric: call_volume, operator: '>', threshold_value: 1, window_duration: 5m}]\n", "invalid alert rule id"},
		"rule metric":  {"    alert_rules: [{name: a, metric: cpu, operator: '>', threshold_value: 1, window_duration: 5m}]\n", `"cpu" is not one of`},
		"rule window":  {"    alert_rules: [{name: a, metric: call_volume, operator: '>', threshold_value: 1, window_duration: 15m}]\n", `"15m" is not one of`},
		"rule neg":     {"    alert_rules: [{name: a, metric: call_volume, operator: '>', threshold_value: -1, window_duration: 5m}]\n", "non-negative"},
		"rule proj":    {"    alert_rules: [{name: a, project: nope, metric: call_volume, operator: '>', threshold_value: 1, window_duration: 5m}]\n", `unknown project "nope"`},
		"rule name":    {"    alert_rules: [{metric: call_volume, operator: '>', threshold_value: 1, window_duration: 5m}]\n", "name: required"},
		"hook url":     {"    webhook_endpoints: [{name: a, url: 'ftp://x', signing_secret: s}]\n", "want an absolute http or https URL"},
		"hook secret":  {"    webhook_endpoints: [{name: a, url: 'https://x.io'}]\n", "signing_secret: required"},
		"hook events":  {"    webhook_endpoints: [{name: a, url: 'https://x.io', signing_secret: s, event_types: [alerts.fired]}]\n", `"alerts.fired" is not one of`},
		"hook timeout": {"    webhook_endpoints: [{name: a, url: 'https://x.io', signing_secret: s, timeout_ms: 10}]\n", "1000 to 30000"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			doc := strings.Replace(builderBase, "    projects:\n", tc.doc+"    projects:\n", 1)
			got := problems(t, doc)
			if len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("problems %q, want one containing %q", got, tc.want)
			}
		})
	}
	agent := map[string]struct{ doc, want string }{
		"deployed":  {"agent: {deployed: [prod]}", `"prod" is not one of`},
		"topic":     {"agent: {knowledge_base: [{content: x}]}", "name: required"},
		"duplicate": {"agent: {knowledge_base: [{name: a, content: x}, {name: a, content: y}]}", "duplicate topic name"},
		"template":  {"agent: {knowledge_base: [{name: a, content: \"{{ .X \"}]}", "content"},
		"env":       {"agent: {real_time_configs: {staging: {variables: {a: 1}}}}", `unknown environment "staging"`},
		"schema":    {"agent: {real_time_configs: {live: {schema: {type: 12}}}}", "schema: not a valid JSON Schema"},
		"case id":   {"agent: {test_cases: [{name: a, turns: [hi]}]}", "test_cases[0].id: required"},
		"case dup":  {"agent: {test_cases: [{id: t1, name: a, turns: [hi]}, {id: t1, name: b, turns: [hi]}]}", "duplicate test case id"},
		"case name": {"agent: {test_cases: [{id: t1, turns: [hi]}]}", "test_cases[0].name: required"},
		"case turn": {"agent: {test_cases: [{id: t1, name: a}]}", "at least one turn"},
		"case both": {"agent: {test_cases: [{id: t1, name: a, turns: [hi], assertions: [{reply_contains: x, function_call: y}]}]}", "exactly one of"},
		"case none": {"agent: {test_cases: [{id: t1, name: a, turns: [hi], assertions: [{}]}]}", "exactly one of"},
	}
	for name, tc := range agent {
		t.Run(name, func(t *testing.T) {
			got := problems(t, builderBase+"        "+tc.doc+"\n")
			if len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("problems %q, want one containing %q", got, tc.want)
			}
		})
	}
	got := problems(t, "alerts: {evaluation_interval: soon}\n"+builderBase)
	if diff := cmp.Diff(1, len(got)); diff != "" || !strings.Contains(got[0], "invalid duration") {
		t.Fatalf("%q", got)
	}
}
