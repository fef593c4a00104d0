package scenario

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// docsPages are the documents of the scenario format whose YAML examples
// are tested.
var docsPages = []string{"scenarios.md", "build-side.md", "timeline.md"}

// docsBase is the account the fragments of the scenario documents are put
// into.
const docsBase = `accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
        variants:
          - {id: VARIANT-0000DEF0, name: Default, default: true}
          - {id: VARIANT-00000B2B, name: Spring Promo}
`

// TestDocsExamples parses every YAML example of docs/scenarios.md,
// docs/build-side.md and docs/timeline.md, and validates it against
// docs/scenario.schema.json, so that neither the documentation nor the
// schema can drift from the format.
func TestDocsExamples(t *testing.T) {
	sch := compiledSchema(t)
	yamlBlock := regexp.MustCompile("(?s)```yaml\n(.*?)```")
	type example struct {
		name  string // the page and the example's place in it
		block string
	}
	var examples []example
	for _, page := range docsPages {
		b, err := os.ReadFile("../docs/" + page)
		if err != nil {
			t.Fatal(err)
		}
		found := yamlBlock.FindAllStringSubmatch(string(b), -1)
		if len(found) < 3 {
			t.Fatalf("found %d yaml examples in %s", len(found), page)
		}
		for i, m := range found {
			examples = append(examples, example{fmt.Sprintf("%s example %d", page, i), m[1]})
		}
	}
	indent := func(s string, n int) string {
		pad := strings.Repeat(" ", n)
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		for i, l := range lines {
			if l != "" {
				lines[i] = pad + l
			}
		}
		return strings.Join(lines, "\n") + "\n"
	}
	tested := 0
	for _, ex := range examples {
		block := ex.block
		if strings.Contains(block, "[...]") || strings.Contains(block, "{...}") {
			continue // an outline, not an example
		}
		// The first key, after any comment lines.
		var first string
		for _, l := range strings.Split(block, "\n") {
			if l != "" && !strings.HasPrefix(l, "#") {
				first, _, _ = strings.Cut(l, ":")
				break
			}
		}
		var doc string
		switch first {
		case "name", "seed", "clock", "limits", "faults", "fidelity", "credentials",
			"alerts", "messaging", "outbound", "webhooks":
			doc = block
			if !strings.Contains(block, "\naccounts:") {
				doc = docsBase + block
			}
		case "accounts":
			doc = block
		case "timeline":
			// A layer on the built-in scenario, whose names the examples
			// use (acme, support, its connector number).
			layer, err := testVoc.Parse("example", []byte(block))
			if err == nil {
				_, err = testVoc.Compose(nil, layer)
			}
			if err != nil {
				t.Errorf("%s does not load on the default scenario:\n%v\n%s", ex.name, err, block)
			}
			doc = block
		case "dialogue", "conversations", "handoff_states", "data_access", "dni", "generate", "agent":
			doc = docsBase + indent(block, 8)
		case "when":
			doc = docsBase + "        dialogue:\n          rules:\n            - name: x\n" + indent(block, 14) + "              then: {end: true}\n"
		case "then":
			doc = docsBase + "        dialogue:\n          rules:\n            - name: x\n" + indent(block, 14)
		default:
			t.Errorf("%s: no rule to test a block starting with %q", ex.name, first)
			continue
		}
		if _, err := testVoc.Parse("example", []byte(doc)); err != nil {
			t.Errorf("%s does not parse:\n%v\n%s", ex.name, err, doc)
		}
		if err := sch.Validate(instance(t, []byte(doc))); err != nil {
			t.Errorf("%s does not pass the schema:\n%v\n%s", ex.name, err, doc)
		}
		tested++
	}
	if tested < 10 {
		t.Errorf("tested %d examples", tested)
	}
}
