package docgen

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/internal/schemagen"
	"github.com/agentplatform/mockplatform/scenario"
)

// ScenarioSchema is the JSON Schema of scenario files
// (docs/scenario.schema.json): the scenario types reflected (their doc
// comments read from the sources under root), with the validator's rules
// and the platform's vocabulary attached.
func ScenarioSchema(root string, voc *scenario.Vocabulary) ([]byte, error) {
	r, err := schemagen.NewReflector(schemagen.Options{
		Tag: "yaml",
		Comments: []schemagen.Package{
			{ImportPath: "github.com/agentplatform/mockplatform/scenario", Dir: filepath.Join(root, "scenario")},
			{ImportPath: "github.com/agentplatform/mockplatform/faults", Dir: filepath.Join(root, "faults")},
		},
		Names:  map[string]string{"faults.Rule": "FaultRule", "faults.Match": "FaultMatch", "faults.Action": "FaultAction"},
		Mapper: timelineTypes,
	})
	if err != nil {
		return nil, err
	}
	s := r.Reflect(&scenario.Scenario{})
	// Draft-07 is what editors' YAML support (yaml-language-server,
	// JetBrains) reads best; the keywords used here are all draft-07.
	s.Version = "http://json-schema.org/draft-07/schema#"
	s.Title = "mockplatform scenario"
	s.Description = "A scenario file of mockplatform: the world a mock instance starts from (docs/scenarios.md). " +
		"The loader (mockd validate) also checks what a schema cannot: references between entries, unique ids and templates."
	applyRules(s, voc)
	return schemagen.Marshal(s)
}

// applyRules attaches the validator's rules to the reflected properties.
func applyRules(root *schemagen.Schema, voc *scenario.Vocabulary) {
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

	// Fidelity switches: a known name with one of its values, and the
	// profile that sets them all.
	fid := prop("", "fidelity")
	fid.AdditionalProperties = schemagen.FalseSchema
	names := make([]string, 0, len(scenario.Switches))
	for n := range scenario.Switches {
		names = append(names, n)
	}
	sort.Strings(names)
	fid.Properties = schemagen.NewProperties()
	fid.Properties.Set(scenario.ProfileKey, &schemagen.Schema{Type: "string", Enum: enum(scenario.Profiles),
		Description: fmt.Sprintf("%s (default: every switch at its default) or %s (every switch at the real service's value; a switch given here keeps its own value); see docs/fidelity.md.",
			scenario.Profiles[0], oneOf(scenario.Profiles[1:]))})
	for _, n := range names {
		fid.Properties.Set(n, &schemagen.Schema{Type: "string", Enum: enum(scenario.Switches[n]),
			Description: fmt.Sprintf("%s (default) or %s; %s under profile real; see docs/fidelity.md.",
				scenario.Switches[n][0], oneOf(scenario.Switches[n][1:]), scenario.RealValues[n])})
	}

	required("Account", "slug", "id")
	prop("Account", "slug").Pattern = pattern(scenario.SlugRE)
	prop("Account", "id").Pattern = pattern(scenario.IDRE)
	prop("Account", "region").Enum = enum(scenario.Regions)
	required("Project", "slug", "id")
	prop("Project", "slug").Pattern = pattern(scenario.SlugRE)
	prop("Project", "id").Pattern = pattern(scenario.IDRE)
	required("Variant", "id", "name")

	required("Rule", "then")
	prop("Match", "turn").Minimum = num(0)
	def("Actions").MinProperties = &one

	required("Conversation", "id", "channel", "started_at")
	prop("Conversation", "environment").Enum = enum(scenario.Environments)
	required("HandoffState", "id", "data")

	required("Credential", "kind", "key", "account")
	prop("Credential", "kind").Enum = enum(voc.Kinds)
	prop("Credential", "client_env").Enum = enum(scenario.Environments)
	prop("Credential", "hosts").Items.Pattern = `\S`
	def("Credential").If = &schemagen.Schema{Required: []string{"kind"},
		Properties: props("kind", &schemagen.Schema{Enum: enum(voc.ProjectKinds)})}
	def("Credential").Then = &schemagen.Schema{Required: []string{"project"}}

	nonNegative("Limits", "alert_rules", "webhook_endpoints", "max_body_bytes", "journal_size", "journal_body_bytes",
		"ws_send_queue_messages", "ws_send_queue_bytes")
	// Bounds (bounds.go).
	prop("Limits", "alert_rules").Maximum = num(scenario.MaxAlertRules)
	prop("Limits", "webhook_endpoints").Maximum = num(scenario.MaxWebhookEndpoints)
	prop("Limits", "max_body_bytes").Maximum = num(scenario.MaxBodyBytes)
	prop("Limits", "journal_size").Maximum = num(scenario.MaxJournalSize)
	prop("Limits", "journal_body_bytes").Maximum = num(scenario.MaxJournalBodyBytes)
	prop("Limits", "ws_send_queue_messages").Maximum = num(scenario.MaxWSSendQueueMessages)
	prop("Limits", "ws_send_queue_bytes").Maximum = num(scenario.MaxWSSendQueueBytes)
	maxItems := func(n uint64) *uint64 { return &n }
	prop("", "accounts").MaxItems = maxItems(scenario.MaxAccounts)
	prop("", "credentials").MaxItems = maxItems(scenario.MaxCredentials)
	prop("", "faults").MaxItems = maxItems(scenario.MaxFaults)
	prop("", "timeline").MaxItems = maxItems(scenario.MaxTimelineEntries)

	// Fault rules: the rule table of faults and the validator's lists.
	prop("FaultMatch", "family").Enum = enum(voc.Faults.Families)
	prop("FaultMatch", "method").Enum = enum(append(slices.Clone(scenario.FaultMethods), lower(scenario.FaultMethods)...))
	prop("FaultMatch", "method").Description += " Upper or lower case."
	prop("FaultMatch", "path").Pattern = "^/"
	prop("FaultMatch", "region").Enum = enum(scenario.FaultRegions)
	prop("FaultAction", "status").Minimum = num(100)
	prop("FaultAction", "status").Maximum = num(599)
	prop("FaultAction", "delay_clock").Enum = enum(scenario.DelayClocks)
	prop("FaultAction", "preset").AnyOf = presetSchemas(voc)
	def("FaultAction").AnyOf = anyRequired("status", "body", "delay", "drop", "preset")
	prop("FaultRule", "probability").Minimum = num(0)
	prop("FaultRule", "probability").Maximum = num(1)
	nonNegative("FaultRule", "times", "after")

	// Generators.
	required("Generator", "count", "from", "to")
	prop("Generator", "count").Minimum = num(1)
	prop("Generator", "count").Maximum = num(scenario.MaxGeneratedConversations)
	for _, w := range []string{"channels", "variants", "environments", "languages"} {
		prop("Generator", w).AdditionalProperties.Minimum = num(0)
	}
	prop("Generator", "environments").PropertyNames = &schemagen.Schema{Enum: enum(scenario.Environments)}
	for _, f := range []string{"handoff", "ood"} {
		prop("Generator", f).Minimum = num(0)
		prop("Generator", f).Maximum = num(1)
	}
	prop("IntRange", "min").Minimum = num(1)
	prop("IntRange", "max").Minimum = num(1)
	prop("IntRange", "max").Maximum = num(scenario.MaxGeneratedTurns)

	// Agents, telephony and number reservation.
	required("Topic", "name")
	prop("AgentBuild", "deployed").Items.Enum = enum(scenario.Environments)
	prop("AgentBuild", "real_time_configs").PropertyNames = &schemagen.Schema{Enum: enum(scenario.Environments)}
	required("Connector", "id", "name")
	prop("Connector", "id").Pattern = pattern(scenario.ConnectorIDRE)
	prop("Connector", "client_env").Enum = enum(scenario.Environments)
	prop("Connector", "asr_lang_code").Pattern = pattern(scenario.LangCodeRE)
	prop("Connector", "tts_lang_code").Pattern = pattern(scenario.LangCodeRE)
	prop("Connector", "voice_name").Pattern = pattern(scenario.VoiceNameRE)
	prop("Connector", "phone_numbers").Items.Pattern = pattern(scenario.E164RE)
	required("Voice", "name", "provider", "provider_voice_id")
	prop("Voice", "id").Pattern = pattern(scenario.VoiceIDRE)
	for _, f := range []string{"name", "provider", "provider_voice_id"} {
		prop("Voice", f).MinLength = &one
	}
	prop("Voice", "name").MaxLength = maxItems(100)
	prop("Voice", "provider").MaxLength = maxItems(100)
	prop("Voice", "provider_voice_id").MaxLength = maxItems(200)
	prop("Account", "voices").MaxItems = maxItems(scenario.MaxVoices)
	prop("AudioCache", "entries").MaxItems = maxItems(scenario.MaxAudioCacheEntries)
	required("AudioCacheEntry", "transcript")
	prop("AudioCacheEntry", "transcript").MinLength = &one
	prop("AudioCacheEntry", "transcript").MaxLength = maxItems(scenario.MaxTranscript)
	prop("AudioCacheEntry", "language").Pattern = pattern(scenario.LangCodeRE)
	prop("AudioCacheEntry", "hit_count").Minimum = num(0)
	required("DNIPool", "numbers")
	prop("DNIPool", "numbers").MinItems = &one
	prop("DNIPool", "numbers").Items.Pattern = pattern(scenario.E164RE)

	// Alerts and webhooks.
	required("AlertRule", "name", "metric", "operator", "threshold_value", "window_duration")
	prop("AlertRule", "id").Pattern = pattern(scenario.AlertRuleIDRE)
	prop("AlertRule", "metric").Enum = enum(scenario.AlertMetrics)
	prop("AlertRule", "operator").Enum = enum(scenario.AlertOperators)
	prop("AlertRule", "window_duration").Enum = enum(scenario.AlertWindows)
	prop("AlertRule", "threshold_value").Minimum = num(0)
	prop("AlertRule", "state").Enum = enum(scenario.AlertStates)
	required("WebhookEndpoint", "name", "url", "signing_secret")
	prop("WebhookEndpoint", "id").Pattern = pattern(scenario.WebhookIDRE)
	prop("WebhookEndpoint", "url").Pattern = "^https?://[^/?#]"
	prop("WebhookEndpoint", "event_types").Items.Enum = enum(scenario.WebhookEvents)
	prop("WebhookEndpoint", "timeout_ms").Minimum = num(scenario.WebhookTimeoutMinMS)
	prop("WebhookEndpoint", "timeout_ms").Maximum = num(scenario.WebhookTimeoutMaxMS)

	// Messaging and outbound.
	nonNegative("MessagingSettings", "max_connections", "max_message_bytes", "chunk_words")
	prop("MessagingSettings", "max_connections").Maximum = num(scenario.MaxSessionConnections)
	prop("MessagingSettings", "max_message_bytes").Maximum = num(scenario.MaxMessageBytes)
	prop("MessagingSettings", "chunk_words").Maximum = num(scenario.MaxChunkWords)
	prop("MessagingSettings", "signing_key").MinLength = maxItems(scenario.MinSigningKeyBytes)
	required("RateLimit", "calls")
	prop("RateLimit", "calls").Minimum = num(1)
	prop("RateLimit", "calls").Maximum = num(scenario.MaxRateLimitCalls)
	required("OutboundDestination", "match")
	prop("OutboundDestination", "outcome").Enum = enum(scenario.Outcomes)

	applyTimelineRules(root)
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
func presetSchemas(voc *scenario.Vocabulary) []*schemagen.Schema {
	plain := []any{""}
	var out []*schemagen.Schema
	for _, p := range voc.Faults.Presets {
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

// oneOf formats a list as "a, b or c".
func oneOf(list []string) string {
	if len(list) < 2 {
		return strings.Join(list, "")
	}
	return strings.Join(list[:len(list)-1], ", ") + " or " + list[len(list)-1]
}
