package scenario

// Fuzz target of the scenario decoder. Without -fuzz, go test runs its
// seeds; scripts/fuzz.sh runs it for a while (docs/security.md#fuzzing).

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzParse: Parse never panics; every problem has a position; what it
// accepts, yaml.v3's strict decoder accepts too (no unknown field slips
// past the walker) and is within the bounds.
func FuzzParse(f *testing.F) {
	f.Add(DefaultYAML())
	files, _ := filepath.Glob("../fixtures/*.yaml")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{"{}", "name: x\nnmae: y\n", "x-a: &a {slug: a}\naccounts: [{<<: *a, id: \"1\"}]\n",
		"limits: {journal_size: 2e9}\n", "accounts: [{slug: a, id: \"1\", webhook_endpoints: [{name: a, url: \"http://169.254.169.254/\", signing_secret: s}]}]\n",
		"a: &a [*a]\n", "faults: [{match: {path: \"/**/x\"}, action: {status: 500}}]\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := testVoc.Parse("f.yaml", data)
		if err != nil {
			var errs Errors
			if !errors.As(err, &errs) || len(errs) == 0 {
				t.Fatalf("Parse error %T without problems: %v", err, err)
			}
			for _, e := range errs {
				if e.File != "f.yaml" || e.Line < 1 || e.Column < 1 {
					t.Fatalf("problem without a position: %#v", e)
				}
			}
			return
		}
		strict := yaml.NewDecoder(bytes.NewReader(data))
		strict.KnownFields(true)
		if serr := strict.Decode(new(Scenario)); serr != nil {
			t.Fatalf("Parse accepts what the strict decoder refuses (%v):\n%s", serr, data)
		}
		if berr := CheckBounds(s); berr != nil {
			t.Fatalf("Parse accepts a scenario out of bounds: %v", berr)
		}
	})
}
