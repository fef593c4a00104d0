package docgen

// The timeline's rules in the scenario schema: one kind per entry, the
// timing keys each kind takes, one action per do, and the ranges and
// enums of the validator (scenario/timeline_validate.go) and its bounds.

import (
	"reflect"
	"strings"

	"github.com/agentplatform/mockplatform/internal/schemagen"
	"github.com/agentplatform/mockplatform/scenario"
)

var (
	rangeType = reflect.TypeFor[scenario.Range]()
	spanType  = reflect.TypeFor[scenario.DurationSpan]()
)

// timelineTypes gives the schemas of the timeline's text types: a range
// of turns ("2-6", "3" or 3) and a range of durations ("10s-30s", "20s").
func timelineTypes(t reflect.Type) *schemagen.Schema {
	switch t {
	case rangeType:
		return &schemagen.Schema{AnyOf: []*schemagen.Schema{
			{Type: "string", Pattern: `^\s*[1-9][0-9]*\s*(-\s*[0-9]+\s*)?$`},
			{Type: "integer", Minimum: schemagen.Number(1)},
		}}
	case spanType:
		d := strings.TrimSuffix(strings.TrimPrefix(schemagen.DurationPattern, "^"), "$")
		return &schemagen.Schema{Type: "string", Pattern: `^\s*` + d + `\s*(-\s*` + d + `\s*)?$`}
	}
	return nil
}

// applyTimelineRules attaches the timeline's rules to the reflected
// definitions.
func applyTimelineRules(root *schemagen.Schema) {
	def := func(name string) *schemagen.Schema { return schemagen.Def(root, name) }
	prop := func(typ, name string) *schemagen.Schema { return schemagen.Prop(def(typ), name) }
	enum := func(list ...string) []any { return schemagen.Strings(list) }
	num := schemagen.Number[int64]
	has := func(keys ...string) *schemagen.Schema { return &schemagen.Schema{Required: keys} }
	anyOf := func(keys ...string) *schemagen.Schema {
		s := &schemagen.Schema{}
		for _, k := range keys {
			s.AnyOf = append(s.AnyOf, has(k))
		}
		return s
	}
	none := func(keys ...string) *schemagen.Schema { return &schemagen.Schema{Not: anyOf(keys...)} }
	ifThen := func(cond, then *schemagen.Schema) *schemagen.Schema { return &schemagen.Schema{If: cond, Then: then} }
	uint := func(n uint64) *uint64 { return &n }
	e164 := scenario.E164RE.String()

	// One kind per entry, and the timing keys of each kind.
	entry := def("TimelineEntry")
	for _, k := range scenario.EntryKinds {
		entry.OneOf = append(entry.OneOf, has(k))
	}
	var rules []*schemagen.Schema
	for _, k := range []string{scenario.EntryTraffic, scenario.EntryCalls, scenario.EntrySessions} {
		rules = append(rules, ifThen(has(k), &schemagen.Schema{Required: []string{"until"}, Not: anyOf("at", "for", "every")}))
	}
	rules = append(rules,
		ifThen(has(scenario.EntryFault), none("from")),
		ifThen(has(scenario.EntryAction), none("for", "from")),
		ifThen(has("every"), none("from")),
		ifThen(has(scenario.EntryFault, "every"), has("for")),
	)
	entry.AllOf = rules

	// Background traffic.
	for typ, rate := range map[string]string{"ChatTraffic": "chats_per_minute", "CallTraffic": "calls_per_minute", "SessionTraffic": "sessions_per_minute"} {
		for _, r := range []string{rate, "ramp_to"} {
			prop(typ, r).Minimum = num(0)
			prop(typ, r).Maximum = num(scenario.MaxTrafficRate)
		}
		prop(typ, "arrivals").Enum = enum(scenario.ArrivalsPoisson, scenario.ArrivalsEven)
		prop(typ, "messages").MaxItems = uint(scenario.MaxTrafficMessages)
	}
	def("ChatTraffic").Required = []string{"project"}
	prop("ChatTraffic", "channel").Enum = enum(scenario.ChatChannels...)
	prop("ChatTraffic", "environment").Enum = enum(scenario.Environments...)
	def("CallTraffic").Required = []string{"number"}
	prop("CallTraffic", "number").Pattern = e164
	prop("CallTraffic", "from").Pattern = e164
	def("SessionTraffic").Required = []string{"project"}
	prop("SessionTraffic", "environment").Enum = enum(scenario.Environments...)

	// Actions: one per do; the receiver's keys only with it.
	action := def("TimelineAction")
	for _, a := range scenario.ActionNames {
		action.OneOf = append(action.OneOf, has(a))
	}
	for _, b := range []string{scenario.ActionEvaluateAlerts, scenario.ActionExpireMessagingSessions, scenario.ActionExpireMessagingTokens} {
		prop("TimelineAction", b).Enum = []any{true}
		prop("TimelineAction", b).Description += " Only true."
	}
	prop("TimelineAction", "webhook_receiver").Enum = enum(scenario.ReceiverDown, scenario.ReceiverUp)
	prop("TimelineAction", "status").Minimum = num(400)
	prop("TimelineAction", "status").Maximum = num(599)
	action.AllOf = []*schemagen.Schema{
		ifThen(none(scenario.ActionWebhookReceiver), none("for", "status", "endpoint")),
	}
	def("InboundCall").Required = []string{"number"}
	prop("InboundCall", "number").Pattern = e164
	prop("InboundCall", "from").Pattern = e164
	prop("InboundCall", "say").MaxItems = uint(scenario.MaxCallLines)
	campaign := def("OutboundCampaign")
	campaign.Required = []string{"project"}
	campaign.OneOf = []*schemagen.Schema{
		{Required: []string{"numbers"}, Not: anyOf("first", "count")},
		{Required: []string{"first", "count"}, Not: has("numbers")},
	}
	prop("OutboundCampaign", "numbers").Items.Pattern = e164
	prop("OutboundCampaign", "numbers").MaxItems = uint(scenario.MaxCampaignCalls)
	prop("OutboundCampaign", "first").Pattern = e164
	prop("OutboundCampaign", "count").Minimum = num(1)
	prop("OutboundCampaign", "count").Maximum = num(scenario.MaxCampaignCalls)
	def("Publish").Required = []string{"agent"}
	def("Promote").Required = []string{"agent", "to"}
	prop("Promote", "to").Enum = enum("pre-release", "live")
	prop("Promote", "from").Enum = enum("sandbox", "pre-release")
	def("ConfigChange").Required = []string{"agent", "variables"}
	prop("ConfigChange", "environment").Enum = enum(scenario.Environments...)
	prop("ConfigChange", "variables").MinProperties = uint(1)
	def("ExternalEvent").Required = []string{"project", "event_id"}
	prop("ExternalEvent", "event_id").Pattern = `^\S{1,256}$`
	def("APIErrors").Required = []string{"project"}
	prop("APIErrors", "count").Minimum = num(1)
	prop("APIErrors", "count").Maximum = num(scenario.MaxAPIErrors)
}
