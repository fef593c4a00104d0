package scenario

import (
	"slices"
	"testing"
)

// TestCompose: layers (no accounts) add to the base, or to the built-in
// scenario without one; a list with accounts is merged alone.
func TestCompose(t *testing.T) {
	t.Parallel()
	layer := mustParse(t, "layer.yaml", y(`
		name: flaky
		faults:
		  - {id: f1, match: {family: chat}, action: {status: 504}}
	`))
	full := mustParse(t, "full.yaml", y(`
		name: full
		accounts:
		  - slug: globex
		    id: "2"
	`))
	base := mustParse(t, "base.yaml", y(`
		name: base
		accounts:
		  - slug: initech
		    id: "3"
	`))
	slugs := func(s *Scenario) []string {
		var out []string
		for _, a := range s.Accounts {
			out = append(out, a.Slug)
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		base      *Scenario
		list      []*Scenario
		wantName  string
		wantSlugs []string
		faults    int
	}{
		{"a layer on the built-in scenario", nil, []*Scenario{layer}, "flaky", []string{"acme"}, 1},
		{"a layer on a base", base, []*Scenario{layer}, "flaky", []string{"initech"}, 1},
		{"a full scenario alone", base, []*Scenario{full}, "full", []string{"globex"}, 0},
		{"a layer after a full scenario", nil, []*Scenario{full, layer}, "flaky", []string{"globex"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := testVoc.Compose(tc.base, tc.list...)
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != tc.wantName || len(got.Faults) != tc.faults || !slices.Equal(slugs(got), tc.wantSlugs) {
				t.Errorf("Compose = %q, accounts %v, %d faults; want %q, %v, %d", got.Name, slugs(got), len(got.Faults),
					tc.wantName, tc.wantSlugs, tc.faults)
			}
		})
	}
	if got, err := testVoc.Compose(nil); got != nil || err != nil {
		t.Errorf("Compose() = %v, %v; want nil, nil", got, err)
	}
	if !layer.IsLayer() || full.IsLayer() || (*Scenario)(nil).IsLayer() {
		t.Error("IsLayer: a scenario without accounts is a layer, one with accounts (or nil) is not")
	}
}
