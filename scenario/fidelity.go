package scenario

import (
	"fmt"
	"maps"
	"slices"
	"sort"
)

// Switches are the fidelity switches, each with its values, the default
// first: the spec's behaviour, where the real service differs
// (docs/fidelity.md, section 1.2).
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

// RealValues is every switch's value under the real profile, the real
// service's behaviour (docs/fidelity.md, section 1.2).
var RealValues = map[string]string{
	"builder_errors":        "envelope",
	"initial_message":       "reject",
	"v3_limit":              "oas",
	"initial_alert_state":   "ok",
	"alert_trigger_from":    "any",
	"webhook_url":           "https",
	"merge_conflict_status": "400",
	"main_branch":           "read_only",
	"deploy_response":       "wrapped",
	"promote_skip_stage":    "allow",
	"messaging_host_match":  "subdomain",
	"agent_create":          "oas",
	"merge_deploy":          "sandbox",
}

// ProfileKey is the fidelity key that sets every switch at once; a switch
// the map names keeps its own value (docs/fidelity.md, section 1.1).
const ProfileKey = "profile"

// The profiles: spec (the default: every switch at its default) and real.
const (
	ProfileSpec = "spec"
	ProfileReal = "real"
)

// Profiles are the values of the profile key, the default first.
var Profiles = []string{ProfileSpec, ProfileReal}

// Profile is the fidelity profile of s: ProfileReal or ProfileSpec.
func (s *Scenario) Profile() string {
	if s != nil && s.Fidelity[ProfileKey] == ProfileReal {
		return ProfileReal
	}
	return ProfileSpec
}

// Switch is the value of a switch in s: its own key, else the profile's,
// else the default ("" for an unknown name).
func (s *Scenario) Switch(name string) string {
	if s != nil {
		if v := s.Fidelity[name]; v != "" {
			return v
		}
		if v, ok := RealValues[name]; ok && s.Profile() == ProfileReal {
			return v
		}
	}
	if vals := Switches[name]; len(vals) > 0 {
		return vals[0]
	}
	return ""
}

// fidelity validates the switches (a typo would silently select the
// default) and fills in those the profile sets (v.filled, for Merge).
func (v *validator) fidelity(s *Scenario) {
	names := make([]string, 0, len(Switches)+1)
	for n := range Switches {
		names = append(names, n)
	}
	names = append(names, ProfileKey)
	sort.Strings(names)
	ok := true
	for name, val := range s.Fidelity {
		p := path{"fidelity", name}
		vals, known := Switches[name]
		if name == ProfileKey {
			vals, known = Profiles, true
		}
		switch {
		case !known:
			v.report(p, true, fmt.Sprintf("unknown fidelity switch %q (want %s)", name, oneOf(names)))
			ok = false
		case !slices.Contains(vals, val):
			v.reportf(p, "unknown value %q for %s (want %s)", val, name, oneOf(vals))
			ok = false
		}
	}
	if !ok || s.Profile() != ProfileReal {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(RealValues)) {
		if _, set := s.Fidelity[name]; !set {
			s.Fidelity[name] = RealValues[name]
			v.filled = append(v.filled, name)
		}
	}
}
