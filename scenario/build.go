package scenario

// Scenario blocks of the families: agents, deployments, real-time configs, alert rules, webhook endpoints (issue 4).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ScenarioBuild is the top-level block of these families.
type ScenarioBuild struct {
	// Alerts holds instance-wide alert settings.
	Alerts AlertSettings `yaml:"alerts" json:"alerts,omitzero"`
}

// AlertSettings are the instance-wide alert settings.
type AlertSettings struct {
	// EvaluationInterval is the cadence of rule evaluation on the virtual
	// clock (default 1m).
	EvaluationInterval Duration `yaml:"evaluation_interval" json:"evaluation_interval,omitempty"`
}

// AccountBuild is the account-level block of these families.
type AccountBuild struct {
	// AlertRules are seeded alert rules of the account.
	AlertRules []AlertRule `yaml:"alert_rules" json:"alert_rules,omitempty"`
	// WebhookEndpoints are seeded webhook endpoints of the account.
	WebhookEndpoints []WebhookEndpoint `yaml:"webhook_endpoints" json:"webhook_endpoints,omitempty"`
}

// AlertRule is a seeded alert rule (spec 2.3).
type AlertRule struct {
	// ID is ar_ plus letters and digits; empty gives a generated id.
	ID string `yaml:"id" json:"id,omitempty"`
	// Name of the rule.
	Name string `yaml:"name" json:"name"`
	// Project is the monitored project (slug or id); empty is account-wide.
	Project        string `yaml:"project" json:"project,omitempty"`
	Metric         string `yaml:"metric" json:"metric"`
	Operator       string `yaml:"operator" json:"operator"`
	ThresholdValue int64  `yaml:"threshold_value" json:"threshold_value"`
	WindowDuration string `yaml:"window_duration" json:"window_duration"`
	// Enabled defaults to true.
	Enabled *bool `yaml:"enabled" json:"enabled,omitempty"`
	// State is the initial state (default ok, or unknown under the
	// initial_alert_state switch).
	State string `yaml:"state" json:"state,omitempty"`
}

// WebhookEndpoint is a seeded webhook endpoint (spec 2.4; notes §6).
type WebhookEndpoint struct {
	// ID is whe_ plus letters and digits; empty gives a generated id.
	ID   string `yaml:"id" json:"id,omitempty"`
	Name string `yaml:"name" json:"name"`
	URL  string `yaml:"url" json:"url"`
	// EventTypes default to both alert events.
	EventTypes []string          `yaml:"event_types" json:"event_types,omitempty"`
	Headers    map[string]string `yaml:"headers" json:"headers,omitempty"`
	// TimeoutMS is 1000 to 30000 (default 5000).
	TimeoutMS int64 `yaml:"timeout_ms" json:"timeout_ms,omitempty"`
	// Enabled defaults to true.
	Enabled *bool `yaml:"enabled" json:"enabled,omitempty"`
	// SigningSecret is the endpoint's secret (required: a test must know it
	// to verify signatures).
	SigningSecret string `yaml:"signing_secret" json:"-"`
}

// ProjectBuild is the project-level block of these families.
type ProjectBuild struct {
	// Agent is the build side of the project's agent (Agent ID = project
	// id): the content of its main branch, where it is deployed, and its
	// real-time configs.
	Agent *AgentBuild `yaml:"agent" json:"agent,omitempty"`
	// Connectors are the project's telephony connectors (spec 2.8), each
	// with the phone numbers routed to it (spec 2.9: "phone number in
	// E.164 format routed to a connector").
	Connectors []Connector `yaml:"connectors" json:"connectors,omitempty"`
}

// Connector is a seeded telephony connector (spec 2.8): the voice,
// language, variant and environment bundle that answers incoming calls to
// its phone numbers.
type Connector struct {
	// ID is the connectorId (letters, digits, dashes and underscores);
	// required and unique in the scenario.
	ID string `yaml:"id" json:"id"`
	// Name is the display name (required).
	Name string `yaml:"name" json:"name"`
	// ClientEnv is live (default), pre-release or sandbox.
	ClientEnv string `yaml:"client_env" json:"client_env,omitempty"`
	// Variant is a variant of the project (id or name; stored as its id);
	// empty means unassigned (the default variant answers).
	Variant string `yaml:"variant" json:"variant,omitempty"`
	// ASRLangCode is the speech recognition language (default en-US).
	ASRLangCode string `yaml:"asr_lang_code" json:"asr_lang_code,omitempty"`
	// TTSLangCode is the text-to-speech language (default: the prefix of
	// voice_name, else asr_lang_code).
	TTSLangCode string `yaml:"tts_lang_code" json:"tts_lang_code,omitempty"`
	// VoiceName is the synthetic voice, "<lang>-<REGION>-<name>" (default
	// <tts_lang_code>-Standard-A).
	VoiceName string `yaml:"voice_name" json:"voice_name,omitempty"`
	// DisableHandoff disables call handoff.
	DisableHandoff bool `yaml:"disable_handoff" json:"disable_handoff,omitempty"`
	// PhoneNumbers are E.164 numbers routed to the connector (unique in the
	// scenario, and not in any dni pool).
	PhoneNumbers []string `yaml:"phone_numbers" json:"phone_numbers,omitempty"`
}

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

var (
	alertRuleIDRE = regexp.MustCompile(`^ar_[A-Za-z0-9]+$`)
	webhookIDRE   = regexp.MustCompile(`^whe_[A-Za-z0-9]+$`)
	// AlertMetrics, AlertOperators, AlertWindows and AlertStates are the
	// enums of spec 2.3 (the alerts API validates by them too).
	AlertMetrics   = []string{"turn_latency_p50", "turn_latency_p95", "api_errors", "function_errors", "call_crashes", "call_volume"}
	AlertOperators = []string{">", "<", ">=", "<="}
	AlertWindows   = []string{"5m", "10m", "60m"}
	AlertStates    = []string{"ok", "alert", "no_data", "unknown"}
	webhookEvents  = []string{"alerts.triggered", "alerts.resolved"}

	connectorIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	// LangCodeRE is a language code such as en-US (ASR and TTS codes).
	LangCodeRE = regexp.MustCompile(`^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$`)
	// VoiceNameRE is a voice name such as en-US-Neural2-A; its first
	// group is the TTS language code it implies.
	VoiceNameRE = regexp.MustCompile(`^([a-z]{2,3}-[A-Z]{2})-[A-Za-z0-9-]+$`)
)

// buildPlane validates these families' blocks and fills in their defaults.
func (v *validator) buildPlane(s *Scenario) {
	ruleIDs, hookIDs := map[string]path{}, map[string]path{}
	connIDs, numbers := map[string]path{}, map[string]path{}
	dniNumbers := map[string]bool{}
	for i := range s.Accounts {
		for j := range s.Accounts[i].Projects {
			if d := s.Accounts[i].Projects[j].DNI; d != nil {
				for _, n := range d.Numbers {
					dniNumbers[n] = true
				}
			}
		}
	}
	defer func() {
		// A number both routed to a connector and in a dni pool would be
		// ambiguous to dial.
		for _, n := range slices.Sorted(maps.Keys(numbers)) {
			if dniNumbers[n] {
				v.reportf(numbers[n], "number %q is also in a dni pool", n)
			}
		}
	}()
	for i := range s.Accounts {
		a := &s.Accounts[i]
		ap := path{"accounts", i}
		for j := range a.AlertRules {
			r := &a.AlertRules[j]
			p := ap.with("alert_rules", j)
			if r.ID != "" && !alertRuleIDRE.MatchString(r.ID) {
				v.reportf(p.with("id"), "invalid alert rule id %q (want ar_ followed by letters and digits)", r.ID)
			}
			v.unique(ruleIDs, r.ID, p.with("id"), "alert rule id")
			if r.Name == "" {
				v.reportf(p.with("name"), "required")
			}
			if r.Project != "" && a.Project(r.Project) == nil {
				v.reportf(p.with("project"), "unknown project %q", r.Project)
			}
			v.oneOf(p.with("metric"), r.Metric, AlertMetrics)
			v.oneOf(p.with("operator"), r.Operator, AlertOperators)
			v.oneOf(p.with("window_duration"), r.WindowDuration, AlertWindows)
			if r.ThresholdValue < 0 {
				v.reportf(p.with("threshold_value"), "must be a non-negative integer")
			}
			if r.State != "" {
				v.oneOf(p.with("state"), r.State, AlertStates)
			}
		}
		for j := range a.WebhookEndpoints {
			e := &a.WebhookEndpoints[j]
			p := ap.with("webhook_endpoints", j)
			if e.ID != "" && !webhookIDRE.MatchString(e.ID) {
				v.reportf(p.with("id"), "invalid webhook endpoint id %q (want whe_ followed by letters and digits)", e.ID)
			}
			v.unique(hookIDs, e.ID, p.with("id"), "webhook endpoint id")
			if e.Name == "" {
				v.reportf(p.with("name"), "required")
			}
			if u, err := url.Parse(e.URL); e.URL == "" || err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
				v.reportf(p.with("url"), "want an absolute http or https URL")
			}
			for k, t := range e.EventTypes {
				v.oneOf(p.with("event_types", k), t, webhookEvents)
			}
			if e.TimeoutMS != 0 && (e.TimeoutMS < 1000 || e.TimeoutMS > 30000) {
				v.reportf(p.with("timeout_ms"), "must be from 1000 to 30000")
			}
			if e.SigningSecret == "" {
				v.reportf(p.with("signing_secret"), "required")
			}
		}
		for j := range a.Projects {
			v.connectors(&a.Projects[j], ap.with("projects", j), connIDs, numbers)
		}
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

// connectors validates a project's connectors and fills in their
// defaults; ids and numbers are unique across the scenario.
func (v *validator) connectors(proj *Project, pp path, ids, numbers map[string]path) {
	for k := range proj.Connectors {
		cn := &proj.Connectors[k]
		p := pp.with("connectors", k)
		switch {
		case cn.ID == "":
			v.reportf(p.with("id"), "required")
		case !connectorIDRE.MatchString(cn.ID):
			v.reportf(p.with("id"), "invalid connector id %q (want letters, digits, dashes and underscores)", cn.ID)
		}
		v.unique(ids, cn.ID, p.with("id"), "connector id")
		if cn.Name == "" {
			v.reportf(p.with("name"), "required")
		}
		if cn.ClientEnv == "" {
			cn.ClientEnv = "live"
		}
		v.oneOf(p.with("client_env"), cn.ClientEnv, Environments)
		if cn.Variant != "" {
			found := false
			for _, vr := range proj.Variants {
				if vr.ID == cn.Variant || vr.Name == cn.Variant {
					cn.Variant, found = vr.ID, true
					break
				}
			}
			if !found {
				v.reportf(p.with("variant"), "unknown variant %q of project %q", cn.Variant, proj.Slug)
			}
		}
		if cn.ASRLangCode == "" {
			cn.ASRLangCode = "en-US"
		}
		if !LangCodeRE.MatchString(cn.ASRLangCode) {
			v.reportf(p.with("asr_lang_code"), "invalid language code %q (want e.g. en-US)", cn.ASRLangCode)
		}
		implied := ""
		if cn.VoiceName != "" {
			m := VoiceNameRE.FindStringSubmatch(cn.VoiceName)
			if m == nil {
				v.reportf(p.with("voice_name"), "invalid voice name %q (want e.g. en-US-Neural2-A)", cn.VoiceName)
			} else {
				implied = m[1]
			}
		}
		switch {
		case cn.TTSLangCode == "" && implied != "":
			cn.TTSLangCode = implied
		case cn.TTSLangCode == "":
			cn.TTSLangCode = cn.ASRLangCode
		case !LangCodeRE.MatchString(cn.TTSLangCode):
			v.reportf(p.with("tts_lang_code"), "invalid language code %q (want e.g. en-US)", cn.TTSLangCode)
		case implied != "" && implied != cn.TTSLangCode:
			v.reportf(p.with("tts_lang_code"), "%q disagrees with voice_name %q (the voice implies %s)", cn.TTSLangCode, cn.VoiceName, implied)
		}
		if cn.VoiceName == "" {
			cn.VoiceName = cn.TTSLangCode + "-Standard-A"
		}
		v.numberList(p.with("phone_numbers"), cn.PhoneNumbers, numbers, "phone number")
	}
}

// numberList reports the numbers of a list (at p) that are not E.164 or
// were seen before (what names them in the duplicate report).
func (v *validator) numberList(p path, list []string, seen map[string]path, what string) {
	for k, n := range list {
		np := p.with(k)
		if !e164RE.MatchString(n) {
			v.reportf(np, "invalid number %q (want E.164, e.g. +14155550100)", n)
			continue
		}
		v.unique(seen, n, np, what)
	}
}

// oneOf reports a value outside a list.
func (v *validator) oneOf(p path, val string, list []string) {
	if !slices.Contains(list, val) {
		v.reportf(p, "%q is not one of %s", val, strings.Join(list, ", "))
	}
}

// mergeBuild merges the top-level block of a later scenario over an
// earlier one (zero values do not override).
func mergeBuild(dst *ScenarioBuild, src ScenarioBuild) {
	if src.Alerts.EvaluationInterval != 0 {
		dst.Alerts.EvaluationInterval = src.Alerts.EvaluationInterval
	}
}
