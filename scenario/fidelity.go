package scenario

import (
	"fmt"
	"slices"
	"sort"
)

// Switches are the fidelity switches a scenario may set (docs/fidelity.md,
// section 1.2), each with its values; the first value is the default.
// Where the spec and the real service differ, the spec's behaviour is the
// default and the switch selects the real one.
var Switches = map[string][]string{
	"builder_errors":        {"spec", "envelope"},
	"initial_message":       {"accept", "reject"},
	"v3_limit":              {"spec", "oas"},
	"initial_alert_state":   {"ok", "unknown"},
	"alert_trigger_from":    {"any", "ok"},
	"webhook_url":           {"any", "https"},
	"merge_conflict_status": {"409", "400"},
	"main_branch":           {"writable", "read_only"},
	"deploy_response":       {"spec", "wrapped"},
	"promote_skip_stage":    {"allow", "reject"},
	"messaging_host_match":  {"subdomain", "exact"},
	"agent_create":          {"spec", "oas"},
	"merge_deploy":          {"off", "sandbox"},
}

// fidelity validates the switches: an unknown name or value is an error (a
// typo would otherwise silently select the default).
func (v *validator) fidelity(s *Scenario) {
	names := make([]string, 0, len(Switches))
	for n := range Switches {
		names = append(names, n)
	}
	sort.Strings(names)
	for name, val := range s.Fidelity {
		p := path{"fidelity", name}
		vals, ok := Switches[name]
		switch {
		case !ok:
			v.report(p, true, fmt.Sprintf("unknown fidelity switch %q (want %s)", name, oneOf(names)))
		case !slices.Contains(vals, val):
			v.reportf(p, "unknown value %q for %s (want %s)", val, name, oneOf(vals))
		}
	}
}
