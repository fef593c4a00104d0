package scenario

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFidelitySwitches(t *testing.T) {
	t.Parallel()
	doc := "name: f\nfidelity:\n  v3_limit: oas\n  builder_errrors: envelope\n  main_branch: readonly\n  profile: live\n"
	_, err := testVoc.Parse("f.yaml", []byte(doc))
	var got []string
	if es, ok := err.(Errors); ok {
		for _, e := range es {
			got = append(got, e.Error())
		}
	}
	want := []string{
		`f.yaml:4:3: fidelity.builder_errrors: unknown fidelity switch "builder_errrors" (want ` + oneOf(fidelityKeys()) + `)`,
		`f.yaml:5:16: fidelity.main_branch: unknown value "readonly" for main_branch (want writable or read_only)`,
		`f.yaml:6:12: fidelity.profile: unknown value "live" for profile (want spec or real)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	for name, vals := range Switches {
		for _, v := range vals {
			if _, err := testVoc.Parse("ok.yaml", []byte("name: ok\nfidelity:\n  "+name+": \""+v+"\"\n")); err != nil {
				t.Errorf("%s: %s refused: %v", name, v, err)
			}
		}
	}
}

// fidelityKeys are the names a fidelity map may hold, sorted.
func fidelityKeys() []string {
	return slices.Sorted(slices.Values(append(slices.Collect(maps.Keys(Switches)), ProfileKey)))
}

// Every switch has a real value, one of its values.
func TestRealValues(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff(slices.Sorted(maps.Keys(Switches)), slices.Sorted(maps.Keys(RealValues))); diff != "" {
		t.Errorf("switches without a real value, or real values without a switch (-switches +real):\n%s", diff)
	}
	for name, val := range RealValues {
		if !slices.Contains(Switches[name], val) {
			t.Errorf("%s: real value %q is not one of %v", name, val, Switches[name])
		}
	}
}

// realWith is the map of the real profile with the given keys changed.
func realWith(kv ...string) map[string]string {
	m := maps.Clone(RealValues)
	m[ProfileKey] = ProfileReal
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// TestFidelityProfile: profile real sets every switch to its real value,
// a key of the map wins over it, and the spec profile (or none) changes
// nothing.
func TestFidelityProfile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, doc string
		want      map[string]string
		profile   string
	}{
		{"none", "name: n\n", nil, ProfileSpec},
		{"spec", "fidelity: {profile: spec}\n", map[string]string{"profile": "spec"}, ProfileSpec},
		{"spec with a switch", "fidelity: {profile: spec, v3_limit: oas}\n", map[string]string{"profile": "spec", "v3_limit": "oas"}, ProfileSpec},
		{"real", "fidelity: {profile: real}\n", realWith(), ProfileReal},
		{"real, one switch overridden", "fidelity: {profile: real, v3_limit: spec, merge_conflict_status: \"409\"}\n",
			realWith("v3_limit", "spec", "merge_conflict_status", "409"), ProfileReal},
		{"real, a switch at its real value", "fidelity: {profile: real, builder_errors: envelope}\n", realWith(), ProfileReal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := mustParse(t, "f.yaml", tc.doc)
			if diff := cmp.Diff(tc.want, s.Fidelity); diff != "" {
				t.Errorf("fidelity (-want +got):\n%s", diff)
			}
			if got := s.Profile(); got != tc.profile {
				t.Errorf("Profile() = %q, want %q", got, tc.profile)
			}
			for name := range Switches {
				want := Switches[name][0]
				if v, ok := tc.want[name]; ok {
					want = v
				}
				if got := s.Switch(name); got != want {
					t.Errorf("Switch(%s) = %q, want %q", name, got, want)
				}
			}
		})
	}
}

// TestFidelityProfileMerge: merging combines the keys each scenario set
// itself (a later one wins); the merged profile then fills in the rest.
func TestFidelityProfileMerge(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		docs []string
		want map[string]string
	}{
		{"real base, a layer sets one switch", []string{"fidelity: {profile: real}\n", "fidelity: {v3_limit: spec}\n"},
			realWith("v3_limit", "spec")},
		{"a base switch survives a real layer", []string{"fidelity: {v3_limit: spec}\n", "fidelity: {profile: real}\n"},
			realWith("v3_limit", "spec")},
		{"a spec layer undoes the real base's profile", []string{"fidelity: {profile: real, main_branch: writable}\n", "fidelity: {profile: spec}\n"},
			map[string]string{"profile": "spec", "main_branch": "writable"}},
		{"a key set to the real value by hand stays", []string{"fidelity: {profile: real, deploy_response: wrapped}\n", "fidelity: {profile: spec}\n"},
			map[string]string{"profile": "spec", "deploy_response": "wrapped"}},
		{"spec on both", []string{"fidelity: {builder_errors: envelope}\n", "fidelity: {v3_limit: oas}\n"},
			map[string]string{"builder_errors": "envelope", "v3_limit": "oas"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var list []*Scenario
			var before []map[string]string
			for i, d := range tc.docs {
				s := mustParse(t, []string{"a.yaml", "b.yaml"}[i], d)
				list = append(list, s)
				before = append(before, maps.Clone(s.Fidelity))
			}
			m, err := testVoc.Merge(list...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, m.Fidelity); diff != "" {
				t.Errorf("merged fidelity (-want +got):\n%s", diff)
			}
			for i, s := range list {
				if diff := cmp.Diff(before[i], s.Fidelity); diff != "" {
					t.Errorf("Merge modified input %d:\n%s", i, diff)
				}
			}
			// Merging the result again changes nothing.
			again, err := testVoc.Merge(m)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, again.Fidelity); diff != "" {
				t.Errorf("merged again (-want +got):\n%s", diff)
			}
		})
	}
}

// A switch changed in Go on a parsed real-profile scenario is kept by
// Merge, like any key of the map.
func TestFidelityProfileChangedInGo(t *testing.T) {
	t.Parallel()
	s := mustParse(t, "a.yaml", "fidelity: {profile: real}\n")
	s.Fidelity["v3_limit"] = "spec"
	m, err := testVoc.Merge(s, mustParse(t, "b.yaml", "name: b\n"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(realWith("v3_limit", "spec"), m.Fidelity); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Switch resolves the profile of a scenario built in Go, which no parse
// filled in.
func TestSwitchOfAScenarioBuiltInGo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		s    *Scenario
		key  string
		want string
	}{
		{"nil scenario: the default", nil, "v3_limit", "spec"},
		{"no map: the default", &Scenario{}, "main_branch", "writable"},
		{"real profile", &Scenario{Fidelity: map[string]string{"profile": "real"}}, "main_branch", "read_only"},
		{"real profile, own key wins", &Scenario{Fidelity: map[string]string{"profile": "real", "main_branch": "writable"}}, "main_branch", "writable"},
		{"real profile, real value is the default", &Scenario{Fidelity: map[string]string{"profile": "real"}}, "promote_skip_stage", "allow"},
		{"spec profile", &Scenario{Fidelity: map[string]string{"profile": "spec"}}, "deploy_response", "spec"},
		{"unknown name", &Scenario{Fidelity: map[string]string{"profile": "real"}}, "no_such_switch", ""},
	} {
		if got := tc.s.Switch(tc.key); got != tc.want {
			t.Errorf("%s: Switch(%s) = %q, want %q", tc.name, tc.key, got, tc.want)
		}
	}
}
