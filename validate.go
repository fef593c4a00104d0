package mockplatform

import (
	"github.com/agentplatform/mockplatform/handlers"
	"github.com/agentplatform/mockplatform/scenario"
)

// ValidateScenario checks a scenario built in Go as Parse checks a file:
// presets must name a family's failure mode and settings be within their
// bounds. It returns scenario.Errors, or nil.
func ValidateScenario(sc *Scenario) error {
	var errs scenario.Errors
	if err := scenario.CheckBounds(sc); err != nil {
		errs = append(errs, err.(scenario.Errors)...)
	}
	for i, r := range sc.Faults {
		if r.Action.Preset != "" && !handlers.Vocabulary().Faults.KnownPreset(r.Action.Preset) {
			errs = append(errs, sc.ErrorAt("unknown fault preset "+quote(r.Action.Preset)+" (docs/scenarios.md lists the presets)",
				"faults", i, "action", "preset"))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

func quote(s string) string { return `"` + s + `"` }

// Vocabulary is what scenarios and fault rules may name: the family
// table's credential kinds, families and presets.
func Vocabulary() *scenario.Vocabulary { return handlers.Vocabulary() }
