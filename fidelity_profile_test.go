package mockplatform

import (
	"testing"

	"github.com/agentplatform/mockplatform/scenario"
)

// TestFidelityProfileTakesEffect: a scenario layer with profile real gives
// the platform every switch's real value (two are tried: main_branch and
// v3_limit), a switch named beside the profile keeps its value, and the
// spec profile changes nothing.
func TestFidelityProfileTakesEffect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, layer       string
		behaviour, v3List int // statuses of a write to main and of a v3 list with limit=2000
	}{
		{"no profile", "name: none\n", 200, 200},
		{"spec", "fidelity: {profile: spec}\n", 200, 200},
		{"real", "fidelity: {profile: real}\n", 422, 400},
		{"real, v3_limit kept", "fidelity: {profile: real, v3_limit: spec}\n", 422, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := Start(t, WithoutListener(), WithScenarioYAML([]byte(tc.layer)))
			r := send(t, p.Client(), "PATCH", p.BuilderURL("us")+"/v1/agents/support/branches/main/behavior",
				map[string]any{"behavior": "Be brief."}, "x-api-key", "test-builder-key")
			if r.Status != tc.behaviour {
				t.Errorf("write to main: %d, want %d: %s", r.Status, tc.behaviour, r.Body)
			}
			r = send(t, p.Client(), "GET", p.RuntimeURL("us-1")+"/v3/acme/support/conversations?limit=2000", nil,
				"x-api-key", "test-conversations-key")
			if r.Status != tc.v3List {
				t.Errorf("v3 list with limit=2000: %d, want %d: %s", r.Status, tc.v3List, r.Body)
			}
			sc := p.Scenario()
			for name := range scenario.Switches {
				if got, want := sc.Fidelity[name], sc.Switch(name); got != want && got != "" {
					t.Errorf("%s: the map says %q, Switch %q", name, got, want)
				}
			}
		})
	}
}
