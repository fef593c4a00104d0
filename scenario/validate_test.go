package scenario

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// base is a valid account with one project; cases append to it. Its lines:
//
//	1 accounts:
//	2   - slug: acme          (key 2:5, value 2:11)
//	3     id: "1"
//	4     projects:
//	5       - slug: support   (key 5:9, value 5:15)
//	6         id: "2"
const base = `accounts:
  - slug: acme
    id: "1"
    projects:
      - slug: support
        id: "2"
`

func TestValidationErrors(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		// ---- accounts ----
		{"account slug and id required", y(`
			accounts:
			  - region: us
		`), []string{
			"t.yaml:2:5: accounts[0].slug: required",
			"t.yaml:2:5: accounts[0].id: required",
		}},
		{"account slug pattern", y(`
			accounts:
			  - slug: Acme_1
			    id: "1 0"
		`), []string{
			"t.yaml:2:11: accounts[0].slug: invalid slug \"Acme_1\" (want lowercase letters, digits and dashes, not starting with a dash)",
			"t.yaml:3:9: accounts[0].id: invalid id \"1 0\" (want letters, digits and dashes)",
		}},
		{"account duplicate slug and id", y(`
			accounts:
			  - slug: acme
			    id: "1"
			  - slug: acme
			    id: "1"
		`), []string{
			"t.yaml:4:11: accounts[1].slug: duplicate account slug \"acme\" (first at line 2)",
			"t.yaml:5:9: accounts[1].id: duplicate account id \"1\" (first at line 3)",
		}},
		{"account region", y(`
			accounts:
			  - slug: acme
			    id: "1"
			    region: mars
		`), []string{
			"t.yaml:4:13: accounts[0].region: unknown region \"mars\" (want us, uk or eu)",
		}},
		{"account slug is another account's id", y(`
			accounts:
			  - slug: acme
			    id: globex
			  - slug: globex
			    id: "2"
		`), []string{
			"t.yaml:4:11: accounts[1].slug: slug \"globex\" is the id of another account (at line 3)",
		}},
		// ---- projects and variants ----
		{"project slug and id", y(`
			accounts:
			  - slug: acme
			    id: "1"
			    projects:
			      - name: No slug
			      - slug: -bad
			        id: x/y
		`), []string{
			"t.yaml:5:9: accounts[0].projects[0].slug: required",
			"t.yaml:5:9: accounts[0].projects[0].id: required",
			"t.yaml:6:15: accounts[0].projects[1].slug: invalid slug \"-bad\" (want lowercase letters, digits and dashes, not starting with a dash)",
			"t.yaml:7:13: accounts[0].projects[1].id: invalid id \"x/y\" (want letters, digits and dashes)",
		}},
		{"project duplicates within an account", base + y(`
			      - slug: support
			        id: "2"
		`), []string{
			"t.yaml:7:15: accounts[0].projects[1].slug: duplicate project slug \"support\" (first at line 5)",
			"t.yaml:8:13: accounts[0].projects[1].id: duplicate project id \"2\" (first at line 6)",
		}},
		{"conversation ids are unique per region", base + y(`
			        conversations:
			          - {id: C1, channel: CHAT, started_at: 2026-01-01T00:00:00Z}
			  - slug: globex
			    id: "9"
			    region: us
			    projects:
			      - slug: p
			        id: "3"
			        conversations:
			          - {id: C1, channel: CHAT, started_at: 2026-01-01T00:00:00Z}
			  - slug: euro
			    id: "10"
			    region: eu
			    projects:
			      - slug: p
			        id: "3"
			        conversations:
			          - {id: C1, channel: CHAT, started_at: 2026-01-01T00:00:00Z}
		`), []string{
			`t.yaml:16:18: accounts[1].projects[0].conversations[0].id: duplicate conversation id "C1" (first at line 8)`,
		}},
		{"same project slug in two accounts is fine", base + y(`
			  - slug: globex
			    id: "9"
			    projects:
			      - slug: support
			        id: "2"
		`), nil},
		{"variants", base + y(`
			        variants:
			          - name: A
			          - id: V1
			          - id: V2
			            name: A
			            default: true
			          - id: V2
			            name: B
			            default: true
		`), []string{
			"t.yaml:8:13: accounts[0].projects[0].variants[0].id: required",
			"t.yaml:9:13: accounts[0].projects[0].variants[1].name: required",
			"t.yaml:11:19: accounts[0].projects[0].variants[2].name: duplicate variant name \"A\" (first at line 8)",
			"t.yaml:13:17: accounts[0].projects[0].variants[3].id: duplicate variant id \"V2\" (first at line 10)",
			"t.yaml:15:22: accounts[0].projects[0].variants[3].default: more than one default variant (first at line 12)",
		}},
		// ---- credentials ----
		{"credential kind, key, account", base + y(`
			credentials:
			  - key: k1
			    account: acme
			  - kind: chatbot
			    account: acme
			  - kind: builder
			    key: k1
			  - kind: builder
			    key: k3
			    account: nobody
		`), []string{
			"t.yaml:8:5: credentials[0].kind: required (want chat, connector, builder, conversations, outbound, external_events, dni or handoff)",
			"t.yaml:10:5: credentials[1].key: required",
			"t.yaml:10:11: credentials[1].kind: unknown kind \"chatbot\" (want chat, connector, builder, conversations, outbound, external_events, dni or handoff)",
			"t.yaml:12:5: credentials[2].account: required",
			"t.yaml:13:10: credentials[2].key: duplicate key \"k1\" (first at line 8)",
			"t.yaml:16:14: credentials[3].account: unknown account \"nobody\"",
		}},
		{"credential project", base + y(`
			credentials:
			  - {kind: chat, key: k1, account: acme}
			  - {kind: connector, key: k2, account: acme}
			  - {kind: dni, key: k3, account: acme}
			  - {kind: conversations, key: k4, account: acme, project: sales}
			  - {kind: builder, key: k5, account: acme}
		`), []string{
			"t.yaml:8:5: credentials[0].project: required for kind chat",
			"t.yaml:9:5: credentials[1].project: required for kind connector",
			"t.yaml:10:5: credentials[2].project: required for kind dni",
			"t.yaml:11:60: credentials[3].project: unknown project \"sales\" in account acme",
		}},
		{"credential client_env, variant, hosts", base + y(`
			        variants:
			          - {id: V1, name: One}
			credentials:
			  - {kind: connector, key: k1, account: acme, project: support, client_env: prod}
			  - {kind: connector, key: k2, account: acme, project: support, variant: V9}
			  - {kind: builder, key: k3, account: acme, variant: V1}
			  - {kind: chat, key: k4, account: acme, project: support, hosts: [localhost]}
			  - {kind: connector, key: k5, account: acme, project: support, hosts: [localhost, " "]}
		`), []string{
			"t.yaml:10:77: credentials[0].client_env: unknown client environment \"prod\" (want live, pre-release or sandbox)",
			"t.yaml:11:74: credentials[1].variant: unknown variant \"V9\" (want V1)",
			"t.yaml:12:54: credentials[2].variant: needs a project",
			"t.yaml:13:67: credentials[3].hosts: only for kind connector",
			"t.yaml:14:84: credentials[4].hosts[1]: empty host",
		}},
		// ---- dialogue ----
		{"dialogue regex and templates", base + y(`
			        dialogue:
			          greeting: "Hi {{.Attributes.name"
			          fallback: "{{if}}"
			          rules:
			            - when: {regex: "(unclosed"}
			              then: {reply: "{{.Message}}"}
			            - then:
			                reply: "{{nope .Message}}"
			                await_event: "{{end}}"
			                set: {a: "{{.X", b: [ok, "{{"], c: 3}
			                metric: {m: "{{"}
			                handoff:
			                  destination: q
			                  shared_id: "{{"
			                  data: {x: {y: "{{.Z"}}
		`), []string{
			"t.yaml:8:21: accounts[0].projects[0].dialogue.greeting: invalid template: unclosed action",
			"t.yaml:9:21: accounts[0].projects[0].dialogue.fallback: invalid template: missing value for if",
			"t.yaml:11:29: accounts[0].projects[0].dialogue.rules[0].when.regex: invalid regex: missing closing ): `(unclosed`",
			"t.yaml:14:24: accounts[0].projects[0].dialogue.rules[1].then.reply: invalid template: function \"nope\" not defined",
			"t.yaml:15:30: accounts[0].projects[0].dialogue.rules[1].then.await_event: invalid template: unexpected {{end}}",
			"t.yaml:16:26: accounts[0].projects[0].dialogue.rules[1].then.set.a: invalid template: unclosed action",
			"t.yaml:17:29: accounts[0].projects[0].dialogue.rules[1].then.metric.m: invalid template: unclosed action",
			"t.yaml:20:30: accounts[0].projects[0].dialogue.rules[1].then.handoff.shared_id: invalid template: unclosed action",
			"t.yaml:21:33: accounts[0].projects[0].dialogue.rules[1].then.handoff.data.x.y: invalid template: unclosed action",
		}},
		{"dialogue rule does nothing and negative turn", base + y(`
			        dialogue:
			          rules:
			            - name: empty
			              when: {contains: hi}
			            - name: noop
			              when: {turn: -1}
			              then: {latency: 1s}
		`), []string{
			"t.yaml:9:15: accounts[0].projects[0].dialogue.rules[0].then: rule does nothing (want reply, handoff, end, set, metric, function_error, crash or await_event)",
			"t.yaml:12:28: accounts[0].projects[0].dialogue.rules[1].when.turn: must not be negative",
			"t.yaml:13:21: accounts[0].projects[0].dialogue.rules[1].then: rule does nothing (want reply, handoff, end, set, metric, function_error, crash or await_event)",
		}},
		{"dialogue variants", base + y(`
			        variants:
			          - {id: V1, name: One}
			        dialogue:
			          variants:
			            V9:
			              greeting: hi
			            One:
			              variants:
			                V1: {greeting: nested}
			            V1:
			              greeting: "{{"
		`), []string{
			"t.yaml:11:13: accounts[0].projects[0].dialogue.variants.V9: unknown variant \"V9\" (want V1)",
			"t.yaml:14:15: accounts[0].projects[0].dialogue.variants.One.variants: variants cannot be nested",
			"t.yaml:16:13: accounts[0].projects[0].dialogue.variants.V1: variant V1 is given twice (first at line 13)",
			"t.yaml:17:25: accounts[0].projects[0].dialogue.variants.V1.greeting: invalid template: unclosed action",
		}},
		// ---- conversations ----
		{"conversations", base + y(`
			        conversations:
			          - channel: CHAT
			            started_at: 2026-01-01T00:00:00Z
			          - id: C1
			            environment: production
			            started_at: 2026-01-01T00:00:00Z
			            channel: CHAT
			            variant: V9
			          - id: C2
			            environment: live
			          - id: C3
			            channel: CHAT
			            started_at: 2026-01-01T00:00:00Z
			            turns:
			              - {at: 5s}
			              - {at: 10s}
			              - {at: 7s}
			              - {at: 8s}
			      - slug: sales
			        id: "3"
			        conversations:
			          - {id: C1, channel: CHAT, started_at: 2026-01-01T00:00:00Z}
		`), []string{
			"t.yaml:8:13: accounts[0].projects[0].conversations[0].id: required",
			"t.yaml:11:26: accounts[0].projects[0].conversations[1].environment: unknown environment \"production\" (want live, pre-release or sandbox)",
			"t.yaml:14:22: accounts[0].projects[0].conversations[1].variant: unknown variant \"V9\" (the project has no variants)",
			"t.yaml:15:13: accounts[0].projects[0].conversations[2].channel: required (e.g. VOICE-SIP, WEBCHAT or CHAT)",
			"t.yaml:15:13: accounts[0].projects[0].conversations[2].started_at: required",
			"t.yaml:23:22: accounts[0].projects[0].conversations[3].turns[2].at: 7s is before the previous turn's 10s",
			"t.yaml:24:22: accounts[0].projects[0].conversations[3].turns[3].at: 8s is before the previous turn's 10s",
			"t.yaml:28:18: accounts[0].projects[1].conversations[0].id: duplicate conversation id \"C1\" (first at line 10)",
		}},
		// ---- handoff states ----
		{"handoff states", base + y(`
			        handoff_states:
			          - data: {}
			          - id: C1
			            shared_id: s1
			          - id: C1
			            shared_id: s1
			            data: {a: 1}
		`), []string{
			"t.yaml:8:13: accounts[0].projects[0].handoff_states[0].id: required",
			"t.yaml:9:13: accounts[0].projects[0].handoff_states[1].data: required (use {} for no data)",
			"t.yaml:11:17: accounts[0].projects[0].handoff_states[2].id: duplicate handoff state id \"C1\" (first at line 9)",
			"t.yaml:12:24: accounts[0].projects[0].handoff_states[2].shared_id: duplicate shared_id \"s1\" (first at line 10)",
		}},
		// ---- faults ----
		{"fault match", y(`
			faults:
			  - match:
			      family: voice
			      method: TRACE
			      path: v1/chat
			      region: mars
			    action: {status: 500}
			  - match: {path: "/v1/a**b"}
			    action: {status: 500}
		`), []string{
			"t.yaml:3:15: faults[0].match.family: unknown family \"voice\" (want chat, messaging, agents, alerts, webhooks, conversations, concurrency, outbound, external_events, dni or handoff)",
			"t.yaml:4:15: faults[0].match.method: unknown method \"TRACE\" (want GET, POST, PUT, PATCH or DELETE)",
			"t.yaml:5:13: faults[0].match.path: must start with \"/\"",
			"t.yaml:6:15: faults[0].match.region: unknown region \"mars\" (want us, uk, eu, us-1, uk-1 or euw-1)",
			"t.yaml:8:19: faults[1].match.path: \"/v1/a**b\": \"**\" must be a whole segment (in \"a**b\")",
		}},
		{"fault action and counters", y(`
			faults:
			  - id: f1
			    action: {status: 42, delay_clock: later}
			    probability: 1.5
			    times: -1
			    after: -2
			  - id: f1
			    match: {family: chat}
			  - match: {family: chat}
			    action: {code: X}
			    probability: -0.1
		`), []string{
			"t.yaml:3:22: faults[0].action.status: 42 is not an HTTP status (want 100 to 599)",
			"t.yaml:3:39: faults[0].action.delay_clock: unknown delay clock \"later\" (want real or virtual)",
			"t.yaml:4:18: faults[0].probability: must be between 0 and 1",
			"t.yaml:5:12: faults[0].times: must not be negative",
			"t.yaml:6:12: faults[0].after: must not be negative",
			"t.yaml:7:5: faults[1].action: fault does nothing (want status, body, delay, drop or preset)",
			"t.yaml:7:9: faults[1].id: duplicate fault id \"f1\" (first at line 2)",
			"t.yaml:10:13: faults[2].action: fault does nothing (want status, body, delay, drop or preset)",
			"t.yaml:11:18: faults[2].probability: must be between 0 and 1",
		}},
		// ---- limits ----
		{"limits", y(`
			limits:
			  alert_rules: -1
			  webhook_endpoints: -2
			  max_body_bytes: -3
			  journal_size: -4
			  journal_body_bytes: -5
			  session_idle: 10m
			  ws_send_queue_messages: -6
			  ws_send_queue_bytes: -7
		`), []string{
			"t.yaml:2:16: limits.alert_rules: must not be negative",
			"t.yaml:3:22: limits.webhook_endpoints: must not be negative",
			"t.yaml:4:19: limits.max_body_bytes: must not be negative",
			"t.yaml:5:17: limits.journal_size: must not be negative",
			"t.yaml:6:23: limits.journal_body_bytes: must not be negative",
			"t.yaml:8:27: limits.ws_send_queue_messages: must not be negative",
			"t.yaml:9:24: limits.ws_send_queue_bytes: must not be negative",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := problems(t, tt.doc)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s\ndocument:\n%s", diff, tt.doc)
			}
		})
	}
}
