package scenario

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFidelitySwitches(t *testing.T) {
	doc := "name: f\nfidelity:\n  v3_limit: oas\n  builder_errrors: envelope\n  main_branch: readonly\n"
	_, err := testVoc.Parse("f.yaml", []byte(doc))
	var got []string
	if es, ok := err.(Errors); ok {
		for _, e := range es {
			got = append(got, e.Error())
		}
	}
	want := []string{
		`f.yaml:4:3: fidelity.builder_errrors: unknown fidelity switch "builder_errrors" (want ` + oneOf(sortedSwitches()) + `)`,
		`f.yaml:5:16: fidelity.main_branch: unknown value "readonly" for main_branch (want writable or read_only)`,
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

func sortedSwitches() []string {
	var out []string
	for n := range Switches {
		out = append(out, n)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
