package scenario

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// docsBase is the account the fragments of docs/scenarios.md are put into.
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

// TestDocsExamples parses every YAML example of docs/scenarios.md, and
// validates it against docs/scenario.schema.json, so that neither the
// documentation nor the schema can drift from the format.
func TestDocsExamples(t *testing.T) {
	sch := compiledSchema(t)
	b, err := os.ReadFile("../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(b), -1)
	if len(blocks) < 10 {
		t.Fatalf("found %d yaml examples", len(blocks))
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
	for i, m := range blocks {
		block := m[1]
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
				t.Errorf("example %d does not load on the default scenario:\n%v\n%s", i, err, block)
			}
			doc = block
		case "dialogue", "conversations", "handoff_states", "data_access", "dni", "generate", "agent":
			doc = docsBase + indent(block, 8)
		case "when":
			doc = docsBase + "        dialogue:\n          rules:\n            - name: x\n" + indent(block, 14) + "              then: {end: true}\n"
		case "then":
			doc = docsBase + "        dialogue:\n          rules:\n            - name: x\n" + indent(block, 14)
		default:
			t.Errorf("example %d: no rule to test a block starting with %q", i, first)
			continue
		}
		if _, err := testVoc.Parse("example", []byte(doc)); err != nil {
			t.Errorf("example %d does not parse:\n%v\n%s", i, err, doc)
		}
		if err := sch.Validate(instance(t, []byte(doc))); err != nil {
			t.Errorf("example %d does not pass the schema:\n%v\n%s", i, err, doc)
		}
		tested++
	}
	if tested < 10 {
		t.Errorf("tested %d examples", tested)
	}
}
