package scenario

// The alerts blocks: instance-wide settings and seeded alert rules.

import "regexp"

// AlertSettings are the instance-wide alert settings.
type AlertSettings struct {
	// EvaluationInterval is the cadence of rule evaluation on the virtual
	// clock (default 1m; 1s to 8760h).
	EvaluationInterval Duration `yaml:"evaluation_interval" json:"evaluation_interval,omitempty"`
}

// AlertRule is a seeded alert rule (docs/api.md#alert-rules).
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

var AlertRuleIDRE = regexp.MustCompile(`^ar_[A-Za-z0-9]+$`)

var (
	// AlertMetrics, AlertOperators, AlertWindows and AlertStates are the
	// enums of alert rules.
	AlertMetrics   = []string{"turn_latency_p50", "turn_latency_p95", "api_errors", "function_errors", "call_crashes", "call_volume"}
	AlertOperators = []string{">", "<", ">=", "<="}
	AlertWindows   = []string{"5m", "10m", "60m"}
	AlertStates    = []string{"ok", "alert", "no_data", "unknown"}
)

// mergeAlerts merges a later scenario's alerts block (zero values do not
// override).
func mergeAlerts(dst *Scenario, src *Scenario) {
	if src.Alerts.EvaluationInterval != 0 {
		dst.Alerts.EvaluationInterval = src.Alerts.EvaluationInterval
	}
}

// alertRules validates the alert rules; ids are unique across the scenario.
func (v *validator) alertRules(s *Scenario) {
	v.clockSetting(path{"alerts", "evaluation_interval"}, s.Alerts.EvaluationInterval)
	ruleIDs := map[string]path{}
	for i := range s.Accounts {
		a := &s.Accounts[i]
		ap := path{"accounts", i}
		for j := range a.AlertRules {
			r := &a.AlertRules[j]
			p := ap.with("alert_rules", j)
			if r.ID != "" && !AlertRuleIDRE.MatchString(r.ID) {
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
	}
}
