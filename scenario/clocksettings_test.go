package scenario

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestClockSettingsBounds: every clock-driven duration must be from 1s to
// 8760h, or left out; each problem names its setting with its position.
func TestClockSettingsBounds(t *testing.T) {
	const project = `accounts:
  - slug: acme
    id: "1"
    outbound: {rate_limit: {calls: 1, window: %s}}
    projects:
      - slug: p
        id: "2"
        dni: {numbers: ["+14155550100"], window: %s}
        outbound:
          enabled: true
          queue: %s
          ring: %s
          talk: %s
          destinations: [{match: "*", queue: %s, ring: %s, talk: %s}]
`
	const msg = "must be from 1s to 8760h (a year); leave it out for the default"
	for _, tc := range []struct {
		name, value string
		ok          bool
	}{
		{"one nanosecond", "1ns", false},
		{"just under a second", "999ms", false},
		{"one second", "1s", true},
		{"a year", "8760h", true},
		{"over a year", "8761h", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.value
			doc := "alerts: {evaluation_interval: " + v + "}\n" +
				"limits: {session_idle: " + v + "}\n" +
				"messaging: {token_ttl: " + v + "}\n" +
				"outbound: {retention: " + v + "}\n" +
				strings.NewReplacer("%s", v).Replace(project)
			got := problems(t, doc)
			if tc.ok {
				if len(got) > 0 {
					t.Errorf("problems for %s: %q", v, got)
				}
				return
			}
			var want []string
			for _, setting := range []string{
				"alerts.evaluation_interval",
				"limits.session_idle",
				"messaging.token_ttl",
				"outbound.retention",
				"accounts[0].outbound.rate_limit.window",
				"accounts[0].projects[0].dni.window",
				"accounts[0].projects[0].outbound.queue",
				"accounts[0].projects[0].outbound.ring",
				"accounts[0].projects[0].outbound.talk",
				"accounts[0].projects[0].outbound.destinations[0].queue",
				"accounts[0].projects[0].outbound.destinations[0].ring",
				"accounts[0].projects[0].outbound.destinations[0].talk",
			} {
				want = append(want, setting+": "+msg)
			}
			if diff := cmp.Diff(want, names(got)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			// The problem points at the value.
			if want := "t.yaml:1:31: alerts.evaluation_interval: " + msg; got[0] != want {
				t.Errorf("first problem %q, want %q", got[0], want)
			}
		})
	}
}

// names strips the positions of problems ("file:line:col: ").
func names(problems []string) []string {
	out := make([]string, 0, len(problems))
	for _, p := range problems {
		if i := strings.Index(p, ": "); i >= 0 && strings.Count(p[:i], ":") == 2 {
			p = p[i+2:]
		}
		out = append(out, p)
	}
	return out
}
