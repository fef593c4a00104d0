package mockplatform

import (
	"github.com/agentplatform/mockplatform/handlers"
	"github.com/agentplatform/mockplatform/scenario"
)

// ValidateScenario makes the checks of a parsed scenario that need the
// families (scenario.Load already made every check of the format): today,
// that each fault rule's preset names a failure mode a family knows. It
// returns scenario.Errors with file:line:column positions, or nil.
func ValidateScenario(sc *Scenario) error {
	var errs scenario.Errors
	for i, r := range sc.Faults {
		if r.Action.Preset != "" && !handlers.KnownPreset(r.Action.Preset) {
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
