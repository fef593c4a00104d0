package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/faults"
)

// timelineBase is a project with what every timeline kind refers to: a
// connector number, a dni pool, outbound calling and a connector token
// with hosts.
const timelineBase = projectBase + `        outbound: {enabled: true}
        dni: {numbers: ["+14155550100"]}
        connectors: [{id: C1, name: main, phone_numbers: ["+14155550150"]}]
credentials:
  - {kind: connector, key: k, account: acme, project: support, hosts: [localhost]}
`

func dur(d time.Duration) Duration { return Duration(d) }

func f64(x float64) *float64 { return &x }

// TestTimelineParse: every kind parses, references become slugs and the
// defaults are filled in.
func TestTimelineParse(t *testing.T) {
	t.Parallel()
	s := mustParse(t, "t.yaml", timelineBase+y(`
		timeline:
		  - {id: outage, at: 10m, for: 10m, fault: {match: {family: chat}, action: {status: 502}}}
		  - {from: 0m, until: 2h, traffic: {project: "2001", chats_per_minute: 5, ramp_to: 40, channel: webchat, turns: 2-6, variant: Beta}}
		  - {until: 1h, calls: {number: "+14155550150", calls_per_minute: 1.5, turns: 3, think: 5s, arrivals: even}}
		  - {until: 1h, sessions: {project: support, account: "1001", sessions_per_minute: 2, messages: [hi], seed: 9}}
		  - {at: 30m, do: {webhook_receiver: down, for: 15m}}
		  - {every: 1h, until: 5h, do: {outbound_campaign: {project: support, first: "+15550100000", count: 3, pace: 0s}}}
		  - {at: 2h, do: {promote: {agent: PROJECT-2001, to: live}}}
		  - {at: 1h, do: {inbound_call: {number: "+14155550100", from: "+447700900123", say: [hi, ""]}}}
		  - {at: 3h, do: {real_time_config: {agent: support, variables: {hours: "24/7"}}}}
		  - {at: 3h, do: {external_event: {project: support, event_id: order-1, payload: {status: shipped}}}}
		  - {at: 3h, do: {api_errors: {project: support}}}
		  - {at: 4h, do: {publish: {agent: support, message: nightly}}}
		  - {at: 4h, do: {expire_messaging_tokens: true}}
	`))
	zero := Duration(0)
	want := []TimelineEntry{
		{ID: "outage", At: dur(10 * time.Minute), For: dur(10 * time.Minute),
			Fault: &faults.Rule{Match: faults.Match{Family: "chat"}, Action: faults.Action{Status: 502}}},
		{Until: dur(2 * time.Hour), Traffic: &ChatTraffic{Account: "acme", Project: "support", ChatsPerMinute: 5,
			Channel: "webchat", Variant: "VARIANT-B", Environment: "live",
			Flow: Flow{RampTo: f64(40), Arrivals: "poisson", Turns: Range{2, 6}, Think: DefaultThink, Messages: DefaultMessages}}},
		{Until: dur(time.Hour), Calls: &CallTraffic{Number: "+14155550150", CallsPerMinute: 1.5,
			Flow: Flow{Arrivals: "even", Turns: Range{3, 3}, Think: DurationSpan{dur(5 * time.Second), dur(5 * time.Second)}, Messages: DefaultMessages}}},
		{Until: dur(time.Hour), Sessions: &SessionTraffic{Account: "acme", Project: "support", SessionsPerMinute: 2, Environment: "live",
			Flow: Flow{Arrivals: "poisson", Turns: DefaultTurns, Think: DefaultThink, Messages: []string{"hi"}, Seed: 9}}},
		{At: dur(30 * time.Minute), Do: &TimelineAction{WebhookReceiver: "down", For: dur(15 * time.Minute), Status: 503}},
		{Every: dur(time.Hour), Until: dur(5 * time.Hour), Do: &TimelineAction{OutboundCampaign: &OutboundCampaign{
			Account: "acme", Project: "support", First: "+15550100000", Count: 3, Pace: &zero}}},
		{At: dur(2 * time.Hour), Do: &TimelineAction{Promote: &Promote{Account: "acme", Agent: "support", To: "live", From: "pre-release"}}},
		{At: dur(time.Hour), Do: &TimelineAction{InboundCall: &InboundCall{Number: "+14155550100", From: "+447700900123",
			Say: []string{"hi", ""}, Think: DefaultThink}}},
		{At: dur(3 * time.Hour), Do: &TimelineAction{RealTimeConfig: &ConfigChange{Account: "acme", Agent: "support", Environment: "live",
			Variables: map[string]any{"hours": "24/7"}}}},
		{At: dur(3 * time.Hour), Do: &TimelineAction{ExternalEvent: &ExternalEvent{Account: "acme", Project: "support", EventID: "order-1",
			Payload: map[string]any{"status": "shipped"}}}},
		{At: dur(3 * time.Hour), Do: &TimelineAction{APIErrors: &APIErrors{Account: "acme", Project: "support", Count: 1}}},
		{At: dur(4 * time.Hour), Do: &TimelineAction{Publish: &Publish{Account: "acme", Agent: "support", Message: "nightly"}}},
		{At: dur(4 * time.Hour), Do: &TimelineAction{ExpireMessagingTokens: true}},
	}
	if diff := cmp.Diff(want, s.Timeline); diff != "" {
		t.Errorf("timeline (-want +got):\n%s", diff)
	}
	kinds := ""
	for _, e := range s.Timeline {
		kinds += e.Kind() + " "
		if e.Do != nil {
			kinds += e.Do.Name() + " "
		}
	}
	if want := "fault traffic calls sessions do webhook_receiver do outbound_campaign do promote do inbound_call " +
		"do real_time_config do external_event do api_errors do publish do expire_messaging_tokens "; kinds != want {
		t.Errorf("kinds %q, want %q", kinds, want)
	}
	if got := s.Timeline[5].Do.OutboundCampaign.CampaignNumbers(); !cmp.Equal(got, []string{"+15550100000", "+15550100001", "+15550100002"}) {
		t.Errorf("CampaignNumbers = %v", got)
	}
	if id := s.Timeline[0].FaultRuleID(); id != "outage" {
		t.Errorf("FaultRuleID = %q, want the entry's id", id)
	}
}

// TestTimelineProblems: every check of the timeline, at its position.
func TestTimelineProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, timeline string
		want           []string
	}{
		{"nothing", `- {at: 1m}`,
			[]string{"t.yaml:16:5: timeline[0]: entry does nothing (want fault, traffic, calls, sessions or do)"}},
		{"two kinds", `- {fault: {action: {status: 500}}, do: {evaluate_alerts: true}}`,
			[]string{"t.yaml:16:38: timeline[0].do: an entry is one of fault, traffic, calls, sessions or do (this one is fault already)"}},
		{"duplicate id", "- {id: a, do: {evaluate_alerts: true}}\n- {id: a, at: 1m, do: {evaluate_alerts: true}}",
			[]string{`t.yaml:17:10: timeline[1].id: duplicate timeline id "a" (first at line 16)`}},
		{"fault id taken", "- {fault: {id: f1, action: {status: 500}}}\n- {id: f1, fault: {action: {status: 500}}}",
			[]string{`t.yaml:17:10: timeline[1].id: duplicate fault id "f1" (first at line 16)`}},
		{"fault rule checked", `- {fault: {match: {family: chatt}, action: {status: 42}}}`,
			[]string{`t.yaml:16:30: timeline[0].fault.match.family: unknown family "chatt" (want chat, messaging, agents, alerts, webhooks, conversations, concurrency, outbound, external_events, dni or handoff)`,
				"t.yaml:16:55: timeline[0].fault.action.status: 42 is not an HTTP status (want 100 to 599)"}},
		{"for not shorter than every", `- {every: 10m, for: 10m, fault: {action: {status: 500}}}`,
			[]string{"t.yaml:16:23: timeline[0].for: must be shorter than every (10m0s)"}},
		{"every without for", `- {every: 10m, fault: {action: {status: 500}}}`,
			[]string{"t.yaml:16:13: timeline[0].every: a repeated window needs for (how long it stays open)"}},
		{"every too short", `- {every: 10ms, for: 1ms, fault: {action: {status: 500}}}`,
			[]string{"t.yaml:16:13: timeline[0].every: must be from 1s to 8760h (a year); leave it out for no repetition",
				"t.yaml:16:24: timeline[0].for: must be from 1s to 8760h (a year); leave it out for a window without end"}},
		{"at beyond a year", `- {at: 9000h, do: {evaluate_alerts: true}}`,
			[]string{"t.yaml:16:10: timeline[0].at: must be at most 8760h (a year)"}},
		{"until without every", `- {at: 1m, until: 1h, do: {evaluate_alerts: true}}`,
			[]string{"t.yaml:16:21: timeline[0].until: only with every (it ends the repetitions)"}},
		{"until before at", `- {at: 2h, every: 1h, until: 1h, do: {evaluate_alerts: true}}`,
			[]string{"t.yaml:16:32: timeline[0].until: must be after at (2h0m0s)"}},
		{"traffic timing", `- {at: 1m, for: 1m, traffic: {project: support, chats_per_minute: 1}}`,
			[]string{"t.yaml:16:5: timeline[0].until: required (traffic stops at until)",
				"t.yaml:16:6: timeline[0].at: at is not for traffic (they take from, until)",
				"t.yaml:16:14: timeline[0].for: for is not for traffic (they take from, until)"}},
		{"traffic until before from", `- {from: 1h, until: 1h, calls: {number: "+14155550150", calls_per_minute: 1}}`,
			[]string{"t.yaml:16:23: timeline[0].until: must be after from (1h0m0s)"}},
		{"traffic settings", `- {until: 1h, traffic: {project: sales, chats_per_minute: -1, ramp_to: 700, channel: fax, environment: prod, turns: 0-2, arrivals: burst, think: 2h}}`,
			[]string{`t.yaml:16:36: timeline[0].traffic.project: unknown project "sales"`,
				"t.yaml:16:61: timeline[0].traffic.chats_per_minute: must be a number of conversations per minute, 0 or more",
				"t.yaml:16:74: timeline[0].traffic.ramp_to: must be at most 600 per minute (it is 700)",
				`t.yaml:16:88: timeline[0].traffic.channel: unknown value "fax" (want webchat, whatsapp, sms or api)`,
				`t.yaml:16:106: timeline[0].traffic.environment: unknown value "prod" (want live, pre-release or sandbox)`,
				"t.yaml:16:119: timeline[0].traffic.turns: want at least 1 message (got 0-2)",
				`t.yaml:16:134: timeline[0].traffic.arrivals: unknown value "burst" (want poisson or even)`,
				"t.yaml:16:148: timeline[0].traffic.think: must be at most 1h0m0s (it is 2h0m0s)"}},
		{"no traffic", `- {until: 1h, sessions: {project: support, sessions_per_minute: 0, ramp_to: 0}}`,
			[]string{"t.yaml:16:67: timeline[0].sessions.sessions_per_minute: no traffic: the rate is 0 from start to end (set it, or ramp_to)"}},
		{"bad turns and think", `- {until: 1h, traffic: {project: support, chats_per_minute: 1, turns: 6-2, think: 5}}`,
			[]string{`t.yaml:16:73: timeline[0].traffic.turns: invalid range "6-2" (want e.g. 2-6 or 3)`,
				`t.yaml:16:85: timeline[0].traffic.think: invalid duration range "5" (want e.g. 10s-30s or 20s)`}},
		{"unknown variant", `- {until: 1h, traffic: {project: support, chats_per_minute: 1, variant: Gamma}}`,
			[]string{`t.yaml:16:75: timeline[0].traffic.variant: unknown variant "Gamma" (want VARIANT-A or VARIANT-B)`}},
		{"calls to unrouted numbers", `- {until: 1h, calls: {number: "+14155559999", from: "44", calls_per_minute: 1}}`,
			[]string{"t.yaml:16:33: timeline[0].calls.number: no connector routes +14155559999 and no dni pool has it",
				`t.yaml:16:55: timeline[0].calls.from: invalid number "44" (want E.164, e.g. +447700900123)`}},
		{"sessions without a token", `- {until: 1h, sessions: {project: support, environment: sandbox, sessions_per_minute: 1}}`,
			[]string{"t.yaml:16:37: timeline[0].sessions.project: sessions need a connector credential of project support (client_env sandbox) with hosts"}},
		{"no action", `- {do: {}}`,
			[]string{"t.yaml:16:10: timeline[0].do: no action (want inbound_call, webhook_receiver, outbound_campaign, publish, promote, real_time_config, external_event, api_errors, evaluate_alerts, expire_messaging_sessions or expire_messaging_tokens)"}},
		{"two actions", `- {do: {evaluate_alerts: true, expire_messaging_tokens: true}}`,
			[]string{"t.yaml:16:34: timeline[0].do.expire_messaging_tokens: one action per entry (this one has evaluate_alerts already)"}},
		{"receiver keys elsewhere", `- {do: {evaluate_alerts: true, for: 1m, endpoint: x}}`,
			[]string{"t.yaml:16:34: timeline[0].do.for: for is only for webhook_receiver",
				"t.yaml:16:43: timeline[0].do.endpoint: endpoint is only for webhook_receiver"}},
		{"receiver values", "- {do: {webhook_receiver: sideways}}\n- {do: {webhook_receiver: up, status: 503}}\n- {do: {webhook_receiver: down, status: 200, for: 0s}}",
			[]string{`t.yaml:16:29: timeline[0].do.webhook_receiver: unknown value "sideways" (want down or up)`,
				"t.yaml:17:33: timeline[1].do.status: status is only for webhook_receiver: down",
				"t.yaml:18:43: timeline[2].do.status: must be from 400 to 599 (an answer that fails the delivery)",
				"t.yaml:18:53: timeline[2].do.for: must be from 1s to 8760h (a year); leave it out for down until up"}},
		{"repeated down without for", `- {every: 1h, do: {webhook_receiver: down}}`,
			[]string{"t.yaml:16:21: timeline[0].do.for: a repeated webhook_receiver: down needs for (how long it stays down)"}},
		{"inbound call", `- {every: 30s, do: {inbound_call: {number: "+1", say: [a, b]}}}`,
			[]string{"t.yaml:16:37: timeline[0].do.inbound_call: a call lasts up to 1m30s, not shorter than every (30s): calls would overlap",
				`t.yaml:16:46: timeline[0].do.inbound_call.number: invalid number "+1" (want E.164, e.g. +14155550150)`}},
		{"campaign", `- {do: {outbound_campaign: {project: support, numbers: ["+15550100000", "555"], first: "+15550100000"}}}`,
			[]string{"t.yaml:16:83: timeline[0].do.outbound_campaign.first: give numbers, or first and count, not both"}},
		{"campaign numbers", `- {do: {outbound_campaign: {project: support, numbers: ["+15550100000", "555"]}}}`,
			[]string{`t.yaml:16:75: timeline[0].do.outbound_campaign.numbers[1]: invalid number "555" (want E.164, e.g. +15550100000)`}},
		{"campaign without numbers", `- {do: {outbound_campaign: {project: support}}}`,
			[]string{"t.yaml:16:30: timeline[0].do.outbound_campaign: no numbers to call (give numbers, or first and count)"}},
		{"campaign count", "- {do: {outbound_campaign: {project: support, first: \"+15550100000\", count: 0}}}\n" +
			"- {do: {outbound_campaign: {project: support, first: \"+999999999999999\", count: 2}}}\n" +
			"- {do: {outbound_campaign: {project: support, first: \"+15550100000\", count: 20000}}}",
			[]string{"t.yaml:16:79: timeline[0].do.outbound_campaign.count: must be at least 1",
				"t.yaml:17:83: timeline[1].do.outbound_campaign.count: the numbers from +999999999999999 run past E.164's 15 digits",
				"t.yaml:18:79: timeline[2].do.outbound_campaign.count: must be at most 10000 (it is 20000)"}},
		{"campaign overlaps itself", `- {every: 1m, do: {outbound_campaign: {project: support, first: "+15550100000", count: 100}}}`,
			[]string{"t.yaml:16:41: timeline[0].do.outbound_campaign.pace: the campaign's calls take 1m39s, not shorter than every (1m0s): runs would overlap"}},
		{"campaign rate", `- {every: 10s, do: {outbound_campaign: {project: support, first: "+15550100000", count: 200, pace: 0s}}}`,
			[]string{"t.yaml:16:42: timeline[0].do.outbound_campaign: places 1200 calls a minute on average, more than 600"}},
		{"promote", "- {do: {promote: {agent: billing, to: prod}}}\n- {do: {promote: {agent: support}}}\n- {do: {promote: {agent: support, to: pre-release, from: live}}}",
			[]string{`t.yaml:16:28: timeline[0].do.promote.agent: unknown project "billing"`,
				`t.yaml:16:41: timeline[0].do.promote.to: unknown environment "prod" (want pre-release or live)`,
				"t.yaml:17:20: timeline[1].do.promote.to: required (pre-release or live)",
				"t.yaml:18:60: timeline[2].do.promote.from: want an environment before pre-release (sandbox)"}},
		{"agent required", `- {do: {publish: {}}}`,
			[]string{"t.yaml:16:20: timeline[0].do.publish.agent: required"}},
		{"account unknown", `- {do: {publish: {account: globex, agent: support}}}`,
			[]string{`t.yaml:16:30: timeline[0].do.publish.account: unknown account "globex"`}},
		{"config", `- {do: {real_time_config: {agent: support, environment: prod}}}`,
			[]string{"t.yaml:16:29: timeline[0].do.real_time_config.variables: required: at least one variable",
				`t.yaml:16:59: timeline[0].do.real_time_config.environment: unknown value "prod" (want live, pre-release or sandbox)`}},
		{"event id", `- {do: {external_event: {project: support, event_id: "a b"}}}`,
			[]string{"t.yaml:16:56: timeline[0].do.external_event.event_id: want 1 to 256 characters without whitespace"}},
		{"api errors", "- {do: {api_errors: {project: support, count: 0}}}\n- {do: {api_errors: {project: support, count: 20000}}}",
			[]string{"t.yaml:16:49: timeline[0].do.api_errors.count: must be at least 1",
				"t.yaml:17:49: timeline[1].do.api_errors.count: must be at most 10000 (it is 20000)"}},
		{"unknown key", `- {do: {promote: {agent: support, to: live, env: live}}}`,
			[]string{"t.yaml:16:47: timeline[0].do.promote.env: unknown field (want account, agent, to, from or message)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := timelineBase + "timeline:\n" + indentLines(tt.timeline, "  ")
			got := problems(t, doc)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s\ndocument:\n%s", diff, doc)
			}
		})
	}
}

func indentLines(s, pad string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = pad + l
	}
	return strings.Join(lines, "\n") + "\n"
}
