package mockplatform

import (
	"github.com/agentplatform/mockplatform/handlers"
	"github.com/agentplatform/mockplatform/scenario"
)

// ValidateScenario checks a scenario built in Go (Vocabulary().Load and
// Parse already made these checks, with the rest of the format's): each
// fault rule's preset must name a failure mode of a family (Vocabulary),
// and every setting and list is within its bound
// (scenario.CheckBounds). It returns scenario.Errors with file:line:column
// positions when the scenario came from a file, or nil.
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

// Vocabulary is what scenarios and fault rules may name: the credential
// kinds, families and presets of the platform's family table. Scenario
// files are parsed, loaded and merged in it.
func Vocabulary() *scenario.Vocabulary { return handlers.Vocabulary() }
