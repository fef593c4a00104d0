package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestGenerateAndDNIDefaults(t *testing.T) {
	s := mustParse(t, "d.yaml", projectBase+`        dni: {numbers: ["+14155550100"]}
        generate:
          - {count: 10, from: 2026-01-01T00:00:00Z, to: 2026-01-02T00:00:00Z, variants: {Beta: 2}}
`)
	pr := &s.Accounts[0].Projects[0]
	if pr.DNI.Window.D() != DefaultDNIWindow {
		t.Errorf("dni window = %s", pr.DNI.Window)
	}
	g := pr.Generate[0]
	h, o := DefaultGenHandoff, DefaultGenOOD
	want := Generator{Count: 10, From: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
		Channels: map[string]int{"VOICE-SIP": 1}, Variants: map[string]int{"VARIANT-B": 2}, Environments: map[string]int{"live": 1},
		Languages: map[string]int{"en-GB": 1}, Duration: DurationRange{Min: Duration(30 * time.Second), Max: Duration(10 * time.Minute)},
		Turns: IntRange{Min: 2, Max: 8}, Handoff: &h, OOD: &o}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("generator defaults (-want +got):\n%s", diff)
	}
	// Without variants given, every variant of the project equally.
	s = mustParse(t, "d.yaml", projectBase+`        generate: [{count: 1, from: 2026-01-01T00:00:00Z, to: 2026-01-02T00:00:00Z}]
`)
	if diff := cmp.Diff(map[string]int{"VARIANT-A": 1, "VARIANT-B": 1}, s.Accounts[0].Projects[0].Generate[0].Variants); diff != "" {
		t.Errorf("default variants (-want +got):\n%s", diff)
	}
}

func TestGenerateAndDNIErrors(t *testing.T) {
	for _, tc := range []struct {
		name, block string
		want        []string
	}{
		{"dni empty", `        dni: {window: 5m}`, []string{`accounts[0].projects[0].dni.numbers: required: at least one E.164 number`}},
		{"dni bad number", `        dni: {numbers: ["555-0100", "+14155550100", "+14155550100"], window: -1m}`, []string{
			`accounts[0].projects[0].dni.numbers[0]: invalid number "555-0100" (want E.164, e.g. +14155550100)`,
			`accounts[0].projects[0].dni.numbers[2]: duplicate DNI number "+14155550100" (first at line 10)`,
			`accounts[0].projects[0].dni.window: invalid duration "-1m": must not be negative`}},
		{"gen count", `        generate: [{count: 0, from: 2026-01-01T00:00:00Z, to: 2026-01-02T00:00:00Z}]`,
			[]string{`accounts[0].projects[0].generate[0].count: must be 1 to 2000000`}},
		{"gen range", `        generate: [{count: 1, from: 2026-01-02T00:00:00Z, to: 2026-01-01T00:00:00Z}]`,
			[]string{`accounts[0].projects[0].generate[0].to: must be after from`}},
		{"gen required", `        generate: [{count: 1}]`, []string{
			`accounts[0].projects[0].generate[0].from: required`,
			`accounts[0].projects[0].generate[0].to: required`}},
		{"gen weights", `        generate: [{count: 1, from: 2026-01-01T00:00:00Z, to: 2026-01-02T00:00:00Z, environments: {prod: 1}, channels: {X: 0}, variants: {Gamma: 1}}]`, []string{
			`accounts[0].projects[0].generate[0].environments.prod: unknown value "prod" (want live, pre-release or sandbox)`,
			`accounts[0].projects[0].generate[0].channels: weights sum to 0 (give at least one positive weight)`,
			`accounts[0].projects[0].generate[0].variants.Gamma: unknown variant "Gamma" (want VARIANT-A or VARIANT-B)`}},
		{"gen ranges", `        generate: [{count: 1, from: 2026-01-01T00:00:00Z, to: 2026-01-02T00:00:00Z, duration: {min: 5m, max: 1m}, turns: {min: 0, max: 3}, handoff: 1.5}]`, []string{
			`accounts[0].projects[0].generate[0].duration.max: 1m0s is less than min 5m0s`,
			`accounts[0].projects[0].generate[0].turns: want 1 <= min <= max <= 100 (got 0 to 3)`,
			`accounts[0].projects[0].generate[0].handoff: must be a fraction from 0 to 1 (got 1.5)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, p := range problems(t, projectBase+tc.block+"\n") {
				// Every problem is reported on the block's line (10), at its
				// own column.
				rest, ok := strings.CutPrefix(p, "t.yaml:10:")
				_, msg, _ := strings.Cut(rest, ": ")
				if !ok {
					msg = p
				}
				got = append(got, msg)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
