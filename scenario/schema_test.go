package scenario

// The JSON Schema of scenario files (docs/scenario.schema.json): generated
// here from the Go types of this package and of faults, with the rules of
// the validator attached (the same variables and constants the validator
// reads), and checked against the loader with an independent validator.
//
// Regenerate it after changing a scenario type or rule:
//
//	go generate ./scenario   (or: go test ./scenario -run TestScenarioSchema -update)

//go:generate go test -run ^TestScenarioSchemaInSync$ -update .

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/internal/schemagen"
)

var update = flag.Bool("update", false, "rewrite the generated documents (docs/scenario.schema.json)")

// schemaFile is the committed schema, relative to this package.
const schemaFile = "../docs/scenario.schema.json"

// SchemaComment is the first line of a scenario file that gives editors
// the schema (the yaml-language-server convention), relative to fixtures/
// and scenario/.
const schemaComment = "# yaml-language-server: $schema=../docs/scenario.schema.json"

// generateSchema reflects the scenario types and attaches the validator's
// rules.
func generateSchema() ([]byte, error) {
	r, err := schemagen.NewReflector(schemagen.Options{
		Tag: "yaml",
		Comments: []schemagen.Package{
			{ImportPath: "github.com/agentplatform/mockplatform/scenario", Dir: "."},
			{ImportPath: "github.com/agentplatform/mockplatform/faults", Dir: "../faults"},
		},
		Names: map[string]string{"faults.Rule": "FaultRule", "faults.Match": "FaultMatch", "faults.Action": "FaultAction"},
	})
	if err != nil {
		return nil, err
	}
	s := r.Reflect(&Scenario{})
	// Draft-07 is what editors' YAML support (yaml-language-server,
	// JetBrains) reads best; the keywords used here are all draft-07.
	s.Version = "http://json-schema.org/draft-07/schema#"
	s.Title = "mockplatform scenario"
	s.Description = "A scenario file of mockplatform: the world a mock instance starts from (docs/scenarios.md). " +
		"The loader (mockd validate) also checks what a schema cannot: references between entries, unique ids and templates."
	applyRules(s)
	return schemagen.Marshal(s)
}

// applyRules attaches the validator's rules to the reflected properties.
func applyRules(root *schemagen.Schema) {
	def := func(name string) *schemagen.Schema { return schemagen.Def(root, name) }
	prop := func(typ, name string) *schemagen.Schema { return schemagen.Prop(def(typ), name) }
	enum := func(list []string) []any { return schemagen.Strings(list) }
	num := schemagen.Number[int64]
	pattern := func(re *regexp.Regexp) string { return re.String() }
	required := func(typ string, names ...string) { def(typ).Required = names }
	nonNegative := func(typ string, names ...string) {
		for _, n := range names {
			prop(typ, n).Minimum = num(0)
		}
	}
	anyRequired := func(names ...string) []*schemagen.Schema {
		var out []*schemagen.Schema
		for _, n := range names {
			out = append(out, &schemagen.Schema{Required: []string{n}})
		}
		return out
	}
	one := uint64(1)

	// Fidelity switches: a known name with one of its values.
	fid := prop("", "fidelity")
	fid.AdditionalProperties = schemagen.FalseSchema
	names := make([]string, 0, len(Switches))
	for n := range Switches {
		names = append(names, n)
	}
	sort.Strings(names)
	fid.Properties = schemagen.NewProperties()
	for _, n := range names {
		fid.Properties.Set(n, &schemagen.Schema{Type: "string", Enum: enum(Switches[n]),
			Description: fmt.Sprintf("%s (default) or %s; see docs/fidelity.md.", Switches[n][0], oneOf(Switches[n][1:]))})
	}

	required("Account", "slug", "id")
	prop("Account", "slug").Pattern = pattern(slugRE)
	prop("Account", "id").Pattern = pattern(idRE)
	prop("Account", "region").Enum = enum(Regions)
	required("Project", "slug", "id")
	prop("Project", "slug").Pattern = pattern(slugRE)
	prop("Project", "id").Pattern = pattern(idRE)
	required("Variant", "id", "name")

	required("Rule", "then")
	prop("Match", "turn").Minimum = num(0)
	def("Actions").MinProperties = &one

	required("Conversation", "id", "channel", "started_at")
	prop("Conversation", "environment").Enum = enum(Environments)
	required("HandoffState", "id", "data")

	required("Credential", "kind", "key", "account")
	prop("Credential", "kind").Enum = enum(Kinds)
	prop("Credential", "client_env").Enum = enum(Environments)
	prop("Credential", "hosts").Items.Pattern = `\S`
	def("Credential").If = &schemagen.Schema{Required: []string{"kind"},
		Properties: props("kind", &schemagen.Schema{Enum: enum(projectKinds)})}
	def("Credential").Then = &schemagen.Schema{Required: []string{"project"}}

	nonNegative("Limits", "alert_rules", "webhook_endpoints", "max_body_bytes", "journal_size", "journal_body_bytes",
		"ws_send_queue_messages", "ws_send_queue_bytes")
	// Bounds (bounds.go).
	prop("Limits", "alert_rules").Maximum = num(MaxAlertRules)
	prop("Limits", "webhook_endpoints").Maximum = num(MaxWebhookEndpoints)
	prop("Limits", "max_body_bytes").Maximum = num(MaxBodyBytes)
	prop("Limits", "journal_size").Maximum = num(MaxJournalSize)
	prop("Limits", "journal_body_bytes").Maximum = num(MaxJournalBodyBytes)
	prop("Limits", "ws_send_queue_messages").Maximum = num(MaxWSSendQueueMessages)
	prop("Limits", "ws_send_queue_bytes").Maximum = num(MaxWSSendQueueBytes)
	maxItems := func(n uint64) *uint64 { return &n }
	prop("", "accounts").MaxItems = maxItems(MaxAccounts)
	prop("", "credentials").MaxItems = maxItems(MaxCredentials)
	prop("", "faults").MaxItems = maxItems(MaxFaults)

	// Fault rules: the rule table of faults and the validator's lists.
	prop("FaultMatch", "family").Enum = enum(faults.Families)
	prop("FaultMatch", "method").Enum = enum(append(slices.Clone(faultMethods), lower(faultMethods)...))
	prop("FaultMatch", "method").Description += " Upper or lower case."
	prop("FaultMatch", "path").Pattern = "^/"
	prop("FaultMatch", "region").Enum = enum(faultRegions)
	prop("FaultAction", "status").Minimum = num(100)
	prop("FaultAction", "status").Maximum = num(599)
	prop("FaultAction", "delay_clock").Enum = enum(delayClocks)
	prop("FaultAction", "preset").AnyOf = presetSchemas()
	def("FaultAction").AnyOf = anyRequired("status", "body", "delay", "drop", "preset")
	prop("FaultRule", "probability").Minimum = num(0)
	prop("FaultRule", "probability").Maximum = num(1)
	nonNegative("FaultRule", "times", "after")

	// Generators.
	required("Generator", "count", "from", "to")
	prop("Generator", "count").Minimum = num(1)
	prop("Generator", "count").Maximum = num(MaxGeneratedConversations)
	for _, w := range []string{"channels", "variants", "environments", "languages"} {
		prop("Generator", w).AdditionalProperties.Minimum = num(0)
	}
	prop("Generator", "environments").PropertyNames = &schemagen.Schema{Enum: enum(Environments)}
	for _, f := range []string{"handoff", "ood"} {
		prop("Generator", f).Minimum = num(0)
		prop("Generator", f).Maximum = num(1)
	}
	prop("IntRange", "min").Minimum = num(1)
	prop("IntRange", "max").Minimum = num(1)
	prop("IntRange", "max").Maximum = num(MaxGeneratedTurns)

	// Agents, telephony and number reservation.
	required("Topic", "name")
	prop("AgentBuild", "deployed").Items.Enum = enum(Environments)
	prop("AgentBuild", "real_time_configs").PropertyNames = &schemagen.Schema{Enum: enum(Environments)}
	required("Connector", "id", "name")
	prop("Connector", "id").Pattern = pattern(connectorIDRE)
	prop("Connector", "client_env").Enum = enum(Environments)
	prop("Connector", "asr_lang_code").Pattern = pattern(LangCodeRE)
	prop("Connector", "tts_lang_code").Pattern = pattern(LangCodeRE)
	prop("Connector", "voice_name").Pattern = pattern(VoiceNameRE)
	prop("Connector", "phone_numbers").Items.Pattern = pattern(e164RE)
	required("DNIPool", "numbers")
	prop("DNIPool", "numbers").MinItems = &one
	prop("DNIPool", "numbers").Items.Pattern = pattern(e164RE)

	// Alerts and webhooks.
	required("AlertRule", "name", "metric", "operator", "threshold_value", "window_duration")
	prop("AlertRule", "id").Pattern = pattern(alertRuleIDRE)
	prop("AlertRule", "metric").Enum = enum(AlertMetrics)
	prop("AlertRule", "operator").Enum = enum(AlertOperators)
	prop("AlertRule", "window_duration").Enum = enum(AlertWindows)
	prop("AlertRule", "threshold_value").Minimum = num(0)
	prop("AlertRule", "state").Enum = enum(AlertStates)
	required("WebhookEndpoint", "name", "url", "signing_secret")
	prop("WebhookEndpoint", "id").Pattern = pattern(webhookIDRE)
	prop("WebhookEndpoint", "url").Pattern = "^https?://[^/?#]"
	prop("WebhookEndpoint", "event_types").Items.Enum = enum(WebhookEvents)
	prop("WebhookEndpoint", "timeout_ms").Minimum = num(WebhookTimeoutMinMS)
	prop("WebhookEndpoint", "timeout_ms").Maximum = num(WebhookTimeoutMaxMS)

	// Messaging and outbound.
	nonNegative("MessagingSettings", "max_connections", "max_message_bytes", "chunk_words")
	prop("MessagingSettings", "max_connections").Maximum = num(MaxSessionConnections)
	prop("MessagingSettings", "max_message_bytes").Maximum = num(MaxMessageBytes)
	prop("MessagingSettings", "chunk_words").Maximum = num(MaxChunkWords)
	prop("MessagingSettings", "signing_key").MinLength = maxItems(MinSigningKeyBytes)
	required("RateLimit", "calls")
	prop("RateLimit", "calls").Minimum = num(1)
	prop("RateLimit", "calls").Maximum = num(MaxRateLimitCalls)
	required("OutboundDestination", "match")
	prop("OutboundDestination", "outcome").Enum = enum(Outcomes)
}

func props(kv ...any) *schemagen.Properties {
	p := schemagen.NewProperties()
	for i := 0; i+1 < len(kv); i += 2 {
		p.Set(kv[i].(string), kv[i+1].(*schemagen.Schema))
	}
	return p
}

func lower(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strings.ToLower(s)
	}
	return out
}

// presetSchemas are the fault presets: a name, or a name with its
// argument ("" is no preset, as in the reference of docs/scenarios.md).
func presetSchemas() []*schemagen.Schema {
	plain := []any{""}
	var out []*schemagen.Schema
	for _, p := range faults.Presets() {
		name := regexp.QuoteMeta(p.Name)
		switch p.Arg {
		case faults.ArgNone:
			plain = append(plain, p.Name)
		case faults.ArgCount:
			out = append(out, &schemagen.Schema{Pattern: "^" + name + ":[0-9]+$", Description: p.Name + ":<count>"})
		case faults.ArgDuration:
			d := strings.TrimPrefix(schemagen.DurationPattern, "^")
			out = append(out, &schemagen.Schema{Pattern: "^" + name + ":" + d, Description: p.Name + ":<duration>"})
		case faults.ArgOneOf:
			var vals []string
			for _, v := range p.Values {
				vals = append(vals, regexp.QuoteMeta(v))
			}
			out = append(out, &schemagen.Schema{Pattern: "^" + name + ":(" + strings.Join(vals, "|") + ")$",
				Description: p.Name + ":<" + strings.Join(p.Values, "|") + ">"})
		}
	}
	return append([]*schemagen.Schema{{Enum: plain}}, out...)
}

// TestScenarioSchemaInSync keeps docs/scenario.schema.json equal to what
// the types and rules generate (-update rewrites it).
func TestScenarioSchemaInSync(t *testing.T) {
	got, err := generateSchema()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(schemaFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatalf("%v (run go generate ./scenario)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is out of date: run go generate ./scenario (or go test ./scenario -run TestScenarioSchemaInSync -update)", schemaFile)
	}
}

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
			if _, err := Parse(f, doc); err != nil {
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
			_, err := Parse("t.yaml", []byte(tc.doc))
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
