package scenario

// The JSON Schema of scenario files (docs/scenario.schema.json, generated
// by internal/docgen), checked against the loader with an independent
// validator.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// schemaFile is the committed schema, relative to this package.
const schemaFile = "../docs/scenario.schema.json"

// schemaComment is the first line of a scenario file that gives editors
// the schema (the yaml-language-server convention), relative to fixtures/
// and scenario/.
const schemaComment = "# yaml-language-server: $schema=../docs/scenario.schema.json"

// compiledSchema compiles the committed schema with santhosh-tekuri's
// validator (independent of the library that generated it).
func compiledSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	const id = "mem:///docs/scenario.schema.json"
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// instance turns a YAML document into the JSON value an editor validates
// (timestamps as RFC 3339 strings, merge keys resolved).
func instance(t *testing.T, doc []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(jsonValue(v))
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func jsonValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = jsonValue(x)
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[fmt.Sprint(k)] = jsonValue(x)
		}
		return m
	case []any:
		for i, x := range v {
			v[i] = jsonValue(x)
		}
		return v
	case time.Time:
		return v.Format(time.RFC3339Nano)
	}
	return v
}

// TestScenarioSchemaAccepts validates every fixture and the embedded
// default scenario against the schema; each names the schema on its first
// line, so that editors find it.
func TestScenarioSchemaAccepts(t *testing.T) {
	sch := compiledSchema(t)
	files, err := filepath.Glob("../fixtures/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	files = append(files, "default.yaml")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			doc, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if first, _, _ := strings.Cut(string(doc), "\n"); first != schemaComment {
				t.Errorf("first line %q, want %q", first, schemaComment)
			}
			if _, err := testVoc.Parse(f, doc); err != nil {
				t.Fatalf("the loader refuses it: %v", err)
			}
			if err := sch.Validate(instance(t, doc)); err != nil {
				t.Errorf("the schema refuses it:\n%v", err)
			}
		})
	}
}

// TestScenarioSchemaRefuses shows documents that both the loader and the
// schema refuse, at the same place.
func TestScenarioSchemaRefuses(t *testing.T) {
	sch := compiledSchema(t)
	const base = `accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
`
	for _, tc := range []struct {
		name, doc string
		loader    string // in the loader's message
		at        string // the schema's instance location
	}{
		{"unknown key", "nmae: x\n", "nmae: unknown field (did you mean name?)", "/"},
		{"unknown nested key", `accounts: [{slug: a, id: "1", regoin: us}]` + "\n", "regoin: unknown field", "/accounts/0"},
		{"region", `accounts: [{slug: a, id: "1", region: mars}]` + "\n", `unknown region "mars"`, "/accounts/0/region"},
		{"slug", `accounts: [{slug: Acme, id: "1"}]` + "\n", `invalid slug "Acme"`, "/accounts/0/slug"},
		{"credential kind", base + "credentials: [{kind: chatt, key: k, account: acme}]\n", `unknown kind "chatt"`, "/credentials/0/kind"},
		{"credential project", base + "credentials: [{kind: chat, key: k, account: acme}]\n", "required for kind chat", "/credentials/0"},
		{"duration as a number", "limits: {session_idle: 5}\n", `invalid duration "5"`, "/limits/session_idle"},
		{"duration words", "limits: {session_idle: 5 minutes}\n", "invalid duration", "/limits/session_idle"},
		{"negative limit", "limits: {journal_size: -1}\n", "must not be negative", "/limits/journal_size"},
		{"seed as a string", `seed: "5"` + "\n", "want an integer", "/seed"},
		{"fraction in an integer", "limits: {max_body_bytes: 1.5}\n", `want an integer, got "1.5"`, "/limits/max_body_bytes"},
		{"fidelity switch", "fidelity: {v3_limt: oas}\n", `unknown fidelity switch "v3_limt"`, "/fidelity"},
		{"fidelity value", "fidelity: {v3_limit: maybe}\n", `unknown value "maybe" for v3_limit`, "/fidelity/v3_limit"},
		{"fault preset", "faults: [{action: {preset: messaging.nope}}]\n", `unknown fault preset "messaging.nope"`, "/faults/0/action/preset"},
		{"fault preset argument", "faults: [{action: {preset: \"outbound.outcome:maybe\"}}]\n", "unknown fault preset", "/faults/0/action/preset"},
		{"fault does nothing", "faults: [{match: {family: chat}, action: {}}]\n", "fault does nothing", "/faults/0/action"},
		{"fault family", "faults: [{match: {family: chatt}, action: {status: 500}}]\n", `unknown family "chatt"`, "/faults/0/match/family"},
		{"fault probability", "faults: [{action: {status: 500}, probability: 2}]\n", "must be between 0 and 1", "/faults/0/probability"},
		{"rule does nothing", base + "        dialogue: {rules: [{name: r, when: {contains: x}}]}\n", "rule does nothing", "/accounts/0/projects/0/dialogue/rules/0"},
		{"alert metric", `accounts: [{slug: a, id: "1", alert_rules: [{name: r, metric: cpu, operator: ">", threshold_value: 1, window_duration: 5m}]}]` + "\n",
			`"cpu" is not one of`, "/accounts/0/alert_rules/0/metric"},
		{"webhook timeout", `accounts: [{slug: a, id: "1", webhook_endpoints: [{name: w, url: "http://127.0.0.1:9/h", signing_secret: s, timeout_ms: 500}]}]` + "\n",
			"must be from 1000 to 30000", "/accounts/0/webhook_endpoints/0/timeout_ms"},
		{"dni number", base + "        dni: {numbers: [\"555-0100\"]}\n", `invalid number "555-0100"`, "/accounts/0/projects/0/dni/numbers/0"},
		{"generator count", base + "        generate: [{count: 0, from: 2026-01-01T00:00:00Z, to: 2026-01-02T00:00:00Z}]\n",
			"must be 1 to", "/accounts/0/projects/0/generate/0/count"},
		{"outbound outcome", base + "        outbound: {enabled: true, destinations: [{match: \"*\", outcome: hangup}]}\n",
			`unknown outcome "hangup"`, "/accounts/0/projects/0/outbound/destinations/0/outcome"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := testVoc.Parse("t.yaml", []byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.loader) {
				t.Errorf("loader: got %v, want a problem containing %q", err, tc.loader)
			}
			err = sch.Validate(instance(t, []byte(tc.doc)))
			if err == nil {
				t.Fatalf("the schema accepts it")
			}
			if !schemaErrorAt(err, tc.at) {
				t.Errorf("schema: no problem at %s:\n%v", tc.at, err)
			}
		})
	}
}

// schemaErrorAt reports whether a validation error has a cause at the
// instance location at (a JSON pointer; "/" is the root).
func schemaErrorAt(err error, at string) bool {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return false
	}
	for _, u := range ve.BasicOutput().Errors {
		loc := u.InstanceLocation
		if loc == "" {
			loc = "/"
		}
		if loc == at {
			return true
		}
	}
	return false
}
