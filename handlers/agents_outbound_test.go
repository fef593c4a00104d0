package handlers

import (
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"
)

// agentCallScenario: support places calls (a live connector with its
// languages, a sandbox one on the promo variant), sales has a connector
// but no outbound calling, globex is another account.
const agentCallScenario = `
accounts:
  - slug: acme
    id: "1001"
    region: us
    outbound: {rate_limit: {calls: 3, window: 1m}}
    projects:
      - slug: support
        id: "2001"
        outbound: {enabled: true}
        variants:
          - {id: VARIANT-0000DEF0, name: Default, default: true}
          - {id: VARIANT-00000B2B, name: Spring Promo}
        connectors:
          - {id: CONN-LIVE, name: Live, client_env: live, asr_lang_code: en-GB, voice_name: en-GB-Wavenet-B}
          - {id: CONN-SB, name: Sandbox, client_env: sandbox, variant: VARIANT-00000B2B, voice_name: en-US-Neural2-A}
      - slug: sales
        id: "2002"
        connectors: [{id: CONN-SALES, name: Sales, client_env: live}]
  - slug: globex
    id: "3001"
    region: us
    projects: [{slug: help, id: "4001"}]
credentials:
  - {kind: builder, key: test-builder-key, account: acme}
  - {kind: builder, key: globex-builder-key, account: globex}
  - {kind: outbound, key: test-outbound-token, account: acme, project: support}
`

const agentCallBase = agentsBase + "/support/telephony/outbound-calls"

// agentCall places a call through the agents API and returns its sid.
func agentCall(h *harness, body any) string {
	h.t.Helper()
	r := h.do("POST", agentCallBase, body, builderHeaders...)
	mustStatus(h.t, r, 200)
	sid, _ := r.Map(h.t)["callSid"].(string)
	if !callSIDPattern.MatchString(sid) {
		h.t.Fatalf("callSid %q", sid)
	}
	mustBody(h.t, r, map[string]any{"callSid": sid, "status": "QUEUED"})
	return sid
}

// agentCallIs expects the agents API's status of a call.
func agentCallIs(h *harness, sid, env, status, reason string) {
	h.t.Helper()
	r := h.do("GET", agentCallBase+"/"+sid+"/status?environment="+env, nil, builderHeaders...)
	mustStatus(h.t, r, 200)
	mustBody(h.t, r, map[string]any{"callSid": sid, "status": status, "reason": reason})
}

func TestAgentCallLifecycle(t *testing.T) {
	t.Parallel()
	h := newHarness(t, agentCallScenario)
	sid := agentCall(h, map[string]any{"toNumber": "+14155552671", "environment": "sandbox",
		"encryption": "udp_rtp", "metadata": map[string]any{"first_name": "Paul"}})
	agentCallIs(h, sid, "sandbox", "QUEUED", "")
	outStatus(h, sid, "queued", "") // the legacy API reads the same call
	h.advance(5 * time.Second)
	agentCallIs(h, sid, "sandbox", "CALLING", "")
	h.advance(5 * time.Second)
	conv, err := h.store.GetConversation("us", sid)
	if err != nil {
		t.Fatalf("answered call has no conversation: %v", err)
	}
	if conv.Environment != "sandbox" || conv.VariantID != "VARIANT-00000B2B" || conv.TTSLanguage != "en-US" ||
		conv.State["connector_id"] != "CONN-SB" || conv.State["encryption"] != "UDP/RTP" ||
		conv.State["sip_headers"].(map[string]any)["first_name"] != "Paul" || conv.ProjectID != "2001" {
		t.Fatalf("conversation = %+v", conv)
	}
	h.advance(25 * time.Second)
	agentCallIs(h, sid, "sandbox", "SUCCESS", "")
	h.advance(2 * time.Hour)
	r := h.do("GET", agentCallBase+"/"+sid+"/status?environment=sandbox", nil, builderHeaders...)
	mustStatus(t, r, 404)
	mustBody(t, r, map[string]any{"message": engine.MsgOutboundNotFound, "errors": []any{}})
}

func TestAgentCallSharedWithLegacy(t *testing.T) {
	t.Parallel()
	h := newHarness(t, agentCallScenario)
	legacy := outCall(h, map[string]any{"to_number": "+14155552671"})
	agentCallIs(h, legacy, "live", "QUEUED", "") // a legacy call is a live one
	r := h.do("GET", agentCallBase+"/"+legacy+"/status?environment=sandbox", nil, builderHeaders...)
	mustStatus(t, r, 400)
	mustBody(t, r, map[string]any{"message": engine.MsgAgentCallOtherEnv, "errors": []any{}})
	// The variant given wins over the connector's; the live connector's
	// languages go to the conversation.
	sid := agentCall(h, map[string]any{"toNumber": "+14155552672", "environment": "live", "variantId": "Spring Promo"})
	h.advance(10 * time.Second)
	conv, err := h.store.GetConversation("us", sid)
	if err != nil || conv.VariantID != "VARIANT-00000B2B" || conv.Language != "en-GB" || conv.State["encryption"] != "TLS/SRTP" {
		t.Fatalf("conversation = %+v, %v", conv, err)
	}
}

func TestAgentCallRateLimitShared(t *testing.T) {
	t.Parallel()
	h := newHarness(t, agentCallScenario)
	outCall(h, map[string]any{"to_number": "+14155552671"})
	agentCall(h, map[string]any{"toNumber": "+14155552672", "environment": "live"})
	outCall(h, map[string]any{"to_number": "+14155552673"})
	h.unchanged(t, func() {
		r := h.do("POST", agentCallBase, map[string]any{"toNumber": "+14155552674", "environment": "live"}, builderHeaders...)
		mustStatus(t, r, 429)
		if r.Header.Get("Retry-After") != "60" {
			t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
		}
	})
}

func TestAgentCallPreset(t *testing.T) {
	t.Parallel()
	h := newHarness(t, agentCallScenario)
	if _, err := h.faults.Add(faultRule("agents", "/v1/agents/support/telephony/outbound-calls", engine.PresetOutboundOutcome+":busy")); err != nil {
		t.Fatal(err)
	}
	sid := agentCall(h, map[string]any{"toNumber": "+14155552671", "environment": "live"})
	h.advance(10 * time.Second)
	agentCallIs(h, sid, "live", "FAILURE", "busy")
}

func TestAgentCallRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, agentCallScenario)
	valid := func(field, msg string) map[string]any {
		return map[string]any{"message": engine.MsgValidationFailed, "errors": []any{map[string]any{"field": field, "message": msg}}}
	}
	big := strings.Repeat("x", 20*1024)
	for _, tc := range []struct {
		name    string
		path    string
		body    any
		headers []string
		status  int
		want    any
	}{
		{"no body", "", nil, nil, 400, map[string]any{"message": MsgBodyRequired, "errors": []any{}}},
		{"no fields", "", map[string]any{}, nil, 400, map[string]any{"message": engine.MsgValidationFailed, "errors": []any{
			map[string]any{"field": "toNumber", "message": "is required"}, map[string]any{"field": "environment", "message": "is required"}}}},
		{"bad number", "", map[string]any{"toNumber": "555", "environment": "live"}, nil, 400,
			valid("toNumber", "must be a phone number in E.164 format (e.g. +14155552671), or a national number with countryCode")},
		{"bad country", "", map[string]any{"toNumber": "020 7946 0000", "countryCode": "ZZ", "environment": "live"}, nil, 400,
			valid("countryCode", "must be a supported ISO 3166-1 alpha-2 code")},
		{"bad environment", "", map[string]any{"toNumber": "+14155552671", "environment": "prod"}, nil, 400,
			valid("environment", "must be one of: sandbox, pre-release, live")},
		{"bad encryption", "", map[string]any{"toNumber": "+14155552671", "environment": "live", "encryption": "TLS/SRTP"}, nil, 400,
			valid("encryption", "must be one of: tls_srtp, udp_rtp, udp_srtp, tls_rtp")},
		{"metadata not string", "", map[string]any{"toNumber": "+14155552671", "environment": "live", "metadata": map[string]any{"n": 1}}, nil, 400,
			valid("metadata/n", "must be a string")},
		{"metadata too large", "", map[string]any{"toNumber": "+14155552671", "environment": "live", "metadata": map[string]any{"a": big}}, nil, 400,
			valid("metadata", "its base64 form must be under 26 KB")},
		{"toNumber not string", "", map[string]any{"toNumber": 7, "environment": "live"}, nil, 400,
			map[string]any{"message": `Field "toNumber" must be a string.`, "errors": []any{map[string]any{"field": "toNumber", "message": "must be a string"}}}},
		{"unknown agent", "/nope", map[string]any{"toNumber": "+14155552671", "environment": "live"}, nil, 404,
			map[string]any{"message": engine.MsgAgentNotFound, "errors": []any{}}},
		{"another account's agent", "/2001", map[string]any{"toNumber": "+14155552671", "environment": "live"},
			[]string{"x-api-key", "globex-builder-key"}, 403, map[string]any{"message": engine.MsgNoPermission, "errors": []any{}}},
		{"not configured", "/sales", map[string]any{"toNumber": "+14155552671", "environment": "live"}, nil, 400,
			map[string]any{"message": engine.MsgAgentCallNotConfigured, "errors": []any{}}},
		{"no connector", "/support", map[string]any{"toNumber": "+14155552671", "environment": "pre-release"}, nil, 404,
			map[string]any{"message": engine.MsgAgentCallNoConnector, "errors": []any{}}},
		{"unknown variant", "/support", map[string]any{"toNumber": "+14155552671", "environment": "live", "variantId": "VARIANT-X"}, nil, 400,
			valid("variantId", "not a variant of agent 2001")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := agentCallBase
			if tc.path != "" {
				path = agentsBase + tc.path + "/telephony/outbound-calls"
			}
			headers := builderHeaders
			if tc.headers != nil {
				headers = tc.headers
			}
			h.unchanged(t, func() {
				r := h.do("POST", path, tc.body, headers...)
				mustStatus(t, r, tc.status)
				mustBody(t, r, tc.want)
			})
		})
	}
}

func TestAgentCallStatusRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, agentCallScenario)
	sid := agentCall(h, map[string]any{"toNumber": "+14155552671", "environment": "live"})
	msg := func(m string) map[string]any { return map[string]any{"message": m, "errors": []any{}} }
	for _, tc := range []struct {
		name, path string
		status     int
		want       any
	}{
		{"no environment", "/support/telephony/outbound-calls/" + sid + "/status", 400, map[string]any{"message": engine.MsgValidationFailed,
			"errors": []any{map[string]any{"field": "environment", "message": "is required"}}}},
		{"bad environment", "/support/telephony/outbound-calls/" + sid + "/status?environment=prod", 400, map[string]any{"message": engine.MsgValidationFailed,
			"errors": []any{map[string]any{"field": "environment", "message": "must be one of: sandbox, pre-release, live"}}}},
		{"bad sid", "/support/telephony/outbound-calls/CA123/status?environment=live", 400, msg(engine.MsgOutboundCallSID)},
		{"no connector", "/support/telephony/outbound-calls/" + sid + "/status?environment=pre-release", 400, msg(engine.MsgAgentCallNoConnector)},
		{"unknown call", "/support/telephony/outbound-calls/OUT-550e8400-e29b-41d4-a716-446655440000/status?environment=live", 404, msg(engine.MsgOutboundNotFound)},
		{"another agent's call", "/sales/telephony/outbound-calls/" + sid + "/status?environment=live", 404, msg(engine.MsgOutboundNotFound)},
		{"unknown agent", "/nope/telephony/outbound-calls/" + sid + "/status?environment=live", 404, msg(engine.MsgAgentNotFound)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.do("GET", agentsBase+tc.path, nil, builderHeaders...)
			mustStatus(t, r, tc.status)
			mustBody(t, r, tc.want)
		})
	}
}
