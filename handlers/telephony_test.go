package handlers

import (
	"errors"
	"regexp"
	"testing"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/engine/telephony"
)

const telBase = agentsBase + "/support/telephony"

// telDefaultConnector is the default scenario's connector, every field of
// docs/api.md#agents-connectors.
var telDefaultConnector = map[string]any{"connectorId": "CONNECTOR-00000001", "name": "Main line", "accountId": "1001",
	"projectId": "2001", "clientEnv": "live", "variantId": "", "asrLangCode": "en-US", "ttsLangCode": "en-US",
	"voiceName": "en-US-Neural2-A", "disableHandoff": false}

// telDo sends a builder request under .../agents/support/telephony and
// checks the status.
func (h *harness) telDo(method, path string, body any, status int) response {
	h.t.Helper()
	r := h.do(method, telBase+path, body, builderHeaders...)
	mustStatus(h.t, r, status)
	return r
}

func telNumber(n, env, conn string) map[string]any {
	m := map[string]any{"number": n, "projectId": "2001", "accountId": "1001", "clientEnv": env}
	if conn != "" {
		m["connectorId"] = conn
	}
	return m
}

// telScenario has two connectors (live with the default variant
// unassigned, sandbox on the promo variant), a second agent and a second
// account holding a number.
const telScenario = `
accounts:
  - slug: acme
    id: "1001"
    region: us
    projects:
      - slug: support
        id: "2001"
        variants:
          - {id: VARIANT-0000DEF0, name: Default, default: true}
          - {id: VARIANT-00000B2B, name: Spring Promo}
        dialogue:
          greeting: Hello from support.
          variants:
            VARIANT-00000B2B: {greeting: Spring promo line.}
        dni: {numbers: ["+14155550100"]}
        connectors:
          - id: CONN-LIVE
            name: Live line
            asr_lang_code: en-GB
            voice_name: en-GB-Wavenet-B
            phone_numbers: ["+14155550150", "+14155550151"]
          - id: CONN-SANDBOX
            name: Test line
            client_env: sandbox
            variant: Spring Promo
            disable_handoff: true
            phone_numbers: ["+14155550160"]
      - slug: sales
        id: "2002"
        variants: [{id: VARIANT-0000SA1E, name: Sales, default: true}]
  - slug: globex
    id: "3001"
    region: us
    projects:
      - slug: help
        id: "4001"
        connectors:
          - {id: CONN-GLOBEX, name: Globex, phone_numbers: ["+14155550170"]}
credentials:
  - {kind: builder, key: test-builder-key, account: acme}
  - {kind: builder, key: globex-builder-key, account: globex}
`

func TestTelephonyConnectorGet(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// GET /v1/agents/{agentId}/telephony/connectors/{connectorId} answers
	// the connector with every field (docs/api.md#agents-connectors).
	mustBody(t, h.telDo("GET", "/connectors/CONNECTOR-00000001", nil, 200), telDefaultConnector)
	// The agent id, PROJECT-<id> and the slug name the same agent.
	for _, ref := range []string{"2001", "PROJECT-2001"} {
		r := h.do("GET", agentsBase+"/"+ref+"/telephony/connectors/CONNECTOR-00000001", nil, builderHeaders...)
		mustStatus(t, r, 200)
		mustBody(t, r, telDefaultConnector)
	}
	mustBody(t, h.telDo("GET", "/connectors", nil, 200), map[string]any{"connectors": []any{telDefaultConnector}})
	mustBody(t, h.telDo("GET", "/connectors/CONNECTOR-NOPE", nil, 404),
		builderError{Message: telephony.MsgConnectorNotFound, Errors: []engine.FieldError{}})
	// "batch" and "lookup" are no connector ids for GET.
	h.telDo("GET", "/connectors/batch", nil, 404)
	r := h.do("GET", agentsBase+"/nope/telephony/connectors/CONNECTOR-00000001", nil, builderHeaders...)
	mustStatus(t, r, 404)
	mustBody(t, r, builderError{Message: engine.MsgAgentNotFound, Errors: []engine.FieldError{}})
	mustStatus(t, h.do("GET", telBase+"/connectors/CONNECTOR-00000001", nil), 401)
	mustBody(t, h.telDo("GET", "/phone-numbers", nil, 200),
		map[string]any{"phoneNumbers": []any{telNumber("+14155550150", "live", "CONNECTOR-00000001")}})
}

func TestTelephonyEnvelopeErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t, string(scenarioDefaultYAML())+"\nfidelity: {builder_errors: envelope}\n")
	r := h.telDo("GET", "/connectors/CONNECTOR-NOPE", nil, 404)
	// The OAS example, with error_id = the correlation id.
	mustBody(t, r, envelopeBody(r, telephony.CodeConnectorNotFound, telephony.MsgConnectorNotFound))
	r = h.telDo("POST", "/phone-numbers", map[string]any{"phoneNumbers": []string{"555-0100"}}, 400)
	mustBody(t, r, envelopeBody(r, telephony.CodePhoneInvalid, telephony.MsgPhoneInvalid))
	r = h.telDo("GET", "/phone-numbers/+14155559999", nil, 404)
	mustBody(t, r, envelopeBody(r, telephony.CodePhoneNotFound, telephony.MsgPhoneNotFound))
	r = h.telDo("POST", "/phone-numbers/+14155550150", nil, 409)
	mustBody(t, r, envelopeBody(r, telephony.CodePhoneExists, telephony.MsgPhoneExists))
}

func TestTelephonyConnectorBatchGet(t *testing.T) {
	t.Parallel()
	h := newHarness(t, telScenario)
	r := h.telDo("POST", "/connectors/batch", map[string]any{"connectorIds": []string{"CONN-SANDBOX", "CONN-GLOBEX", "x"}}, 200)
	got := r.Map(t)
	found, _ := got["found"].([]any)
	if len(found) != 1 || found[0].(map[string]any)["connectorId"] != "CONN-SANDBOX" {
		t.Fatalf("found %v", got)
	}
	// Another account's connector is not found.
	mustBody(t, r, map[string]any{"found": found, "notFound": []any{"CONN-GLOBEX", "x"}})
	for _, tc := range []struct {
		body any
		want engine.FieldError
	}{
		{map[string]any{}, engine.FieldError{Field: "connectorIds", Message: "is required"}},
		{map[string]any{"connectorIds": []string{}}, engine.FieldError{Field: "connectorIds", Message: "must have at least 1 item"}},
		{map[string]any{"connectorIds": "CONN-LIVE"}, engine.FieldError{Field: "connectorIds", Message: "must be an array of strings"}},
		{map[string]any{"connectorIds": []any{1}}, engine.FieldError{Field: "connectorIds", Message: "must be an array of strings"}},
	} {
		mustBody(t, h.telDo("POST", "/connectors/batch", tc.body, 400),
			builderError{Message: telephony.MsgConnectorInvalid, Errors: []engine.FieldError{tc.want}})
	}
}

func TestTelephonyConnectorSeeded(t *testing.T) {
	t.Parallel()
	h := newHarness(t, telScenario)
	mustBody(t, h.telDo("GET", "/connectors/CONN-SANDBOX", nil, 200), map[string]any{"connectorId": "CONN-SANDBOX",
		"name": "Test line", "accountId": "1001", "projectId": "2001", "clientEnv": "sandbox", "variantId": "VARIANT-00000B2B",
		"asrLangCode": "en-US", "ttsLangCode": "en-US", "voiceName": "en-US-Standard-A", "disableHandoff": true})
	mustBody(t, h.telDo("GET", "/connectors/CONN-LIVE", nil, 200), map[string]any{"connectorId": "CONN-LIVE",
		"name": "Live line", "accountId": "1001", "projectId": "2001", "clientEnv": "live", "variantId": "",
		"asrLangCode": "en-GB", "ttsLangCode": "en-GB", "voiceName": "en-GB-Wavenet-B", "disableHandoff": false})
	mustBody(t, h.telDo("GET", "/phone-numbers?connectorId=CONN-LIVE", nil, 200), map[string]any{"phoneNumbers": []any{
		telNumber("+14155550150", "live", "CONN-LIVE"), telNumber("+14155550151", "live", "CONN-LIVE")}})
	mustBody(t, h.telDo("GET", "/phone-numbers?connectorId=nope", nil, 200), map[string]any{"phoneNumbers": []any{}})
	// The other account's connector is invisible here, visible to its key.
	h.telDo("GET", "/connectors/CONN-GLOBEX", nil, 404)
	r := h.do("GET", agentsBase+"/help/telephony/connectors/CONN-GLOBEX", nil, "x-api-key", "globex-builder-key")
	mustStatus(t, r, 200)
	// An agent of another account: 403, as the rest of the Agents API.
	mustStatus(t, h.do("GET", agentsBase+"/4001/telephony/connectors", nil, builderHeaders...), 403)
	// The sales agent has none.
	r = h.do("GET", agentsBase+"/sales/telephony/connectors", nil, builderHeaders...)
	mustStatus(t, r, 200)
	mustBody(t, r, map[string]any{"connectors": []any{}})
}

func TestTelephonyConnectorUpdate(t *testing.T) {
	t.Parallel()
	h := newHarness(t, telScenario)
	// Only the given fields change; ttsLangCode follows the voice name.
	r := h.telDo("PATCH", "/connectors/CONN-LIVE", map[string]any{"voiceName": "fr-FR-Neural2-A", "variantId": "VARIANT-00000B2B"}, 200)
	want := map[string]any{"connectorId": "CONN-LIVE", "name": "Live line", "accountId": "1001", "projectId": "2001",
		"clientEnv": "live", "variantId": "VARIANT-00000B2B", "asrLangCode": "en-GB", "ttsLangCode": "fr-FR",
		"voiceName": "fr-FR-Neural2-A", "disableHandoff": false}
	mustBody(t, r, want)
	mustBody(t, h.telDo("GET", "/connectors/CONN-LIVE", nil, 200), want)
	// null unassigns the variant.
	want["variantId"], want["asrLangCode"] = "", "fr-FR"
	mustBody(t, h.telDo("PATCH", "/connectors/CONN-LIVE", map[string]any{"variantId": nil, "asrLangCode": "fr-FR"}, 200), want)

	for _, tc := range []struct {
		name string
		body any
		want []engine.FieldError
	}{
		{"unknown variant", map[string]any{"variantId": "VARIANT-NOPE"}, []engine.FieldError{{Field: "variantId", Message: "not a variant of agent 2001"}}},
		{"bad voice", map[string]any{"voiceName": "robot"}, []engine.FieldError{{Field: "voiceName", Message: "must be a voice name such as en-US-Neural2-A"}}},
		{"bad asr", map[string]any{"asrLangCode": "English"}, []engine.FieldError{{Field: "asrLangCode", Message: "must be a language code such as en-US"}}},
		{"wrong types", map[string]any{"asrLangCode": 1, "variantId": true}, []engine.FieldError{{Field: "variantId", Message: "must be a string"}, {Field: "asrLangCode", Message: "must be a string"}}},
		{"other account's project", map[string]any{"projectId": "help"}, []engine.FieldError{{Field: "projectId", Message: "no agent with this id in the account"}}},
		{"unknown project", map[string]any{"projectId": "nope"}, []engine.FieldError{{Field: "projectId", Message: "no agent with this id in the account"}}},
		{"variant of the source agent on a move", map[string]any{"projectId": "sales", "variantId": "VARIANT-00000B2B"}, []engine.FieldError{{Field: "variantId", Message: "not a variant of agent 2002"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.unchanged(t, func() {
				mustBody(t, h.telDo("PATCH", "/connectors/CONN-LIVE", tc.body, 400), builderError{Message: telephony.MsgConnectorInvalid, Errors: tc.want})
			})
		})
	}
	h.unchanged(t, func() {
		mustBody(t, h.telDo("PATCH", "/connectors/CONN-NOPE", map[string]any{"asrLangCode": "en-US"}, 404),
			builderError{Message: telephony.MsgConnectorNotFound, Errors: []engine.FieldError{}})
		h.telDo("PATCH", "/connectors/CONN-LIVE", "[]", 400)
	})

	// Moving to another agent of the account: the numbers move along, the
	// variant of the old agent is dropped.
	h.telDo("PATCH", "/connectors/CONN-SANDBOX", map[string]any{"projectId": "sales"}, 200)
	h.telDo("GET", "/connectors/CONN-SANDBOX", nil, 404)
	mustBody(t, h.telDo("GET", "/phone-numbers?connectorId=CONN-SANDBOX", nil, 200), map[string]any{"phoneNumbers": []any{}})
	r = h.do("GET", agentsBase+"/sales/telephony/phone-numbers", nil, builderHeaders...)
	mustStatus(t, r, 200)
	mustBody(t, r, map[string]any{"phoneNumbers": []any{map[string]any{"number": "+14155550160", "projectId": "2002",
		"accountId": "1001", "clientEnv": "sandbox", "connectorId": "CONN-SANDBOX"}}})
	r = h.do("GET", agentsBase+"/sales/telephony/connectors/CONN-SANDBOX", nil, builderHeaders...)
	mustStatus(t, r, 200)
	if got := r.Map(t); got["projectId"] != "2002" || got["variantId"] != "" {
		t.Fatalf("moved connector %v", got)
	}
}

func TestTelephonyConnectorBatchUpdate(t *testing.T) {
	t.Parallel()
	h := newHarness(t, telScenario)
	r := h.telDo("PATCH", "/connectors/batch", map[string]any{"updates": []any{
		map[string]any{"connectorId": "CONN-LIVE", "asrLangCode": "de-DE"},
		map[string]any{"connectorId": "CONN-NOPE", "asrLangCode": "de-DE"},
		map[string]any{"connectorId": "CONN-SANDBOX", "voiceName": "bad"},
		map[string]any{"connectorId": "CONN-SANDBOX", "variantId": "VARIANT-NOPE"},
		map[string]any{"connectorId": "CONN-SANDBOX", "projectId": "help"},
	}}, 200)
	live := map[string]any{"connectorId": "CONN-LIVE", "name": "Live line", "accountId": "1001", "projectId": "2001",
		"clientEnv": "live", "variantId": "", "asrLangCode": "de-DE", "ttsLangCode": "en-GB", "voiceName": "en-GB-Wavenet-B", "disableHandoff": false}
	mustBody(t, r, map[string]any{"results": []any{
		map[string]any{"connectorId": "CONN-LIVE", "success": true, "data": live},
		map[string]any{"connectorId": "CONN-NOPE", "success": false, "error": telephony.MsgConnectorNotFound},
		map[string]any{"connectorId": "CONN-SANDBOX", "success": false, "error": "voiceName: must be a voice name such as en-US-Neural2-A"},
		map[string]any{"connectorId": "CONN-SANDBOX", "success": false, "error": "variantId: not a variant of agent 2001"},
		map[string]any{"connectorId": "CONN-SANDBOX", "success": false, "error": "projectId: no agent with this id in the account"},
	}})
	// Partial success: the first update is stored, the failed ones are not.
	mustBody(t, h.telDo("GET", "/connectors/CONN-LIVE", nil, 200), live)
	if got := h.telDo("GET", "/connectors/CONN-SANDBOX", nil, 200).Map(t); got["variantId"] != "VARIANT-00000B2B" || got["voiceName"] != "en-US-Standard-A" {
		t.Fatalf("sandbox connector changed: %v", got)
	}
	for _, tc := range []struct {
		body any
		want engine.FieldError
	}{
		{map[string]any{}, engine.FieldError{Field: "updates", Message: "is required"}},
		{map[string]any{"updates": []any{}}, engine.FieldError{Field: "updates", Message: "must have at least 1 item"}},
		{map[string]any{"updates": "x"}, engine.FieldError{Field: "updates", Message: "must be an array of objects"}},
		{map[string]any{"updates": []any{map[string]any{"asrLangCode": "en-US"}}}, engine.FieldError{Field: "updates/0/connectorId", Message: "is required"}},
	} {
		h.unchanged(t, func() {
			mustBody(t, h.telDo("PATCH", "/connectors/batch", tc.body, 400), builderError{Message: telephony.MsgConnectorInvalid, Errors: []engine.FieldError{tc.want}})
		})
	}
}

func TestTelephonyLookup(t *testing.T) {
	t.Parallel()
	h := newHarness(t, telScenario)
	r := h.telDo("POST", "/connectors/lookup", map[string]any{"phoneNumber": "+14155550160"}, 200)
	if r.Map(t)["connectorId"] != "CONN-SANDBOX" {
		t.Fatalf("lookup %s", r.Body)
	}
	mustBody(t, h.telDo("POST", "/connectors/lookup", map[string]any{"phoneNumber": "4155550160"}, 400),
		builderError{Message: telephony.MsgPhoneInvalid, Errors: []engine.FieldError{{Field: "phoneNumber", Message: "must be an E.164 number, e.g. +14155550100"}}})
	mustBody(t, h.telDo("POST", "/connectors/lookup", map[string]any{}, 400),
		builderError{Message: telephony.MsgConnectorInvalid, Errors: []engine.FieldError{{Field: "phoneNumber", Message: "is required"}}})
	// Another account's number is not found here.
	mustBody(t, h.telDo("POST", "/connectors/lookup", map[string]any{"phoneNumber": "+14155550170"}, 404),
		builderError{Message: telephony.MsgPhoneNotFound, Errors: []engine.FieldError{}})
	h.telDo("POST", "/phone-numbers/+14155550180", nil, 201)
	mustBody(t, h.telDo("POST", "/connectors/lookup", map[string]any{"phoneNumber": "+14155550180"}, 404),
		builderError{Message: telephony.MsgPhoneNoConnector, Errors: []engine.FieldError{}})
}

func TestTelephonyPhoneNumbers(t *testing.T) {
	t.Parallel()
	h := newHarness(t, telScenario)
	// Import: clientEnv defaults to live; a repeated number is imported once.
	mustBody(t, h.telDo("POST", "/phone-numbers", map[string]any{"phoneNumbers": []string{"+442071234567", "+442071234568", "+442071234567"}}, 201),
		map[string]any{"imported": []any{"+442071234567", "+442071234568"}})
	mustBody(t, h.telDo("POST", "/phone-numbers/+442071234569", map[string]any{"clientEnv": "sandbox"}, 201),
		map[string]any{"imported": "+442071234569"})
	mustBody(t, h.telDo("GET", "/phone-numbers/+442071234569", nil, 200), telNumber("+442071234569", "sandbox", ""))
	mustBody(t, h.telDo("GET", "/phone-numbers/+442071234567", nil, 200), telNumber("+442071234567", "live", ""))
	// A percent-encoded plus names the same number.
	mustBody(t, h.telDo("GET", "/phone-numbers/%2B442071234567", nil, 200), telNumber("+442071234567", "live", ""))
	// connectorId= (empty) lists the numbers routed to no connector.
	mustBody(t, h.telDo("GET", "/phone-numbers?connectorId=", nil, 200), map[string]any{"phoneNumbers": []any{
		telNumber("+442071234567", "live", ""), telNumber("+442071234568", "live", ""), telNumber("+442071234569", "sandbox", "")}})

	for _, tc := range []struct {
		name   string
		path   string
		body   any
		status int
		want   builderError
	}{
		{"not E.164", "", map[string]any{"phoneNumbers": []string{"+442071234570", "020 7123 4567"}}, 400,
			builderError{telephony.MsgPhoneInvalid, []engine.FieldError{{Field: "phoneNumbers/1", Message: "must be an E.164 number, e.g. +14155550100"}}}},
		{"single not E.164", "/0207", nil, 400,
			builderError{telephony.MsgPhoneInvalid, []engine.FieldError{{Field: "phoneNumber", Message: "must be an E.164 number, e.g. +14155550100"}}}},
		{"already here", "", map[string]any{"phoneNumbers": []string{"+442071234570", "+14155550150"}}, 409,
			builderError{telephony.MsgPhoneExists, []engine.FieldError{{Field: "phoneNumbers", Message: "+14155550150 already exists"}}}},
		{"another account's", "/+14155550170", nil, 409,
			builderError{telephony.MsgPhoneExists, []engine.FieldError{{Field: "phoneNumber", Message: "+14155550170 already exists"}}}},
		{"a dni pool number", "/+14155550100", nil, 409,
			builderError{telephony.MsgPhoneExists, []engine.FieldError{{Field: "phoneNumber", Message: "+14155550100 already exists"}}}},
		{"missing", "", map[string]any{}, 400, builderError{engine.MsgValidationFailed, []engine.FieldError{{Field: "phoneNumbers", Message: "is required"}}}},
		{"empty", "", map[string]any{"phoneNumbers": []string{}}, 400, builderError{engine.MsgValidationFailed, []engine.FieldError{{Field: "phoneNumbers", Message: "must have at least 1 item"}}}},
		{"bad env", "", map[string]any{"phoneNumbers": []string{"+442071234570"}, "clientEnv": "prod"}, 400,
			builderError{engine.MsgValidationFailed, []engine.FieldError{{Field: "clientEnv", Message: "must be one of: sandbox, pre-release, live"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.unchanged(t, func() {
				mustBody(t, h.telDo("POST", "/phone-numbers"+tc.path, tc.body, tc.status), tc.want)
			})
		})
	}

	// Batch get.
	mustBody(t, h.telDo("POST", "/phone-numbers/batch", map[string]any{"phoneNumbers": []string{"+14155550150", "+14155550170"}}, 200),
		map[string]any{"found": []any{telNumber("+14155550150", "live", "CONN-LIVE")}, "notFound": []any{"+14155550170"}})
	h.telDo("POST", "/phone-numbers/batch", map[string]any{"phoneNumbers": []string{"x"}}, 400)

	// Reassign to a connector.
	mustBody(t, h.telDo("PATCH", "/phone-numbers/+442071234567", map[string]any{"connectorId": "CONN-SANDBOX"}, 200),
		telNumber("+442071234567", "live", "CONN-SANDBOX"))
	h.unchanged(t, func() {
		mustBody(t, h.telDo("PATCH", "/phone-numbers/+442071234567", map[string]any{"connectorId": "CONN-GLOBEX"}, 404),
			builderError{telephony.MsgConnectorNotFound, []engine.FieldError{}})
		mustBody(t, h.telDo("PATCH", "/phone-numbers/+449999999999", map[string]any{"connectorId": "CONN-LIVE"}, 404),
			builderError{telephony.MsgPhoneNotFound, []engine.FieldError{}})
		mustBody(t, h.telDo("PATCH", "/phone-numbers/+442071234567", map[string]any{}, 400),
			builderError{engine.MsgValidationFailed, []engine.FieldError{{Field: "connectorId", Message: "is required"}}})
		h.telDo("GET", "/phone-numbers/+14155550170", nil, 404) // another account's
	})
	if got := h.telDo("POST", "/connectors/lookup", map[string]any{"phoneNumber": "+442071234567"}, 200).Map(t)["connectorId"]; got != "CONN-SANDBOX" {
		t.Fatalf("lookup after reassign: %v", got)
	}

	// Delete: single, then several with per-number errors.
	mustBody(t, h.telDo("DELETE", "/phone-numbers/+442071234569", nil, 200), map[string]any{"deleted": "+442071234569"})
	h.telDo("DELETE", "/phone-numbers/+442071234569", nil, 404)
	mustBody(t, h.telDo("DELETE", "/phone-numbers", map[string]any{"phoneNumbers": []string{"+442071234568", "+449999999999", "bad"}}, 200),
		map[string]any{"deleted": []any{"+442071234568"}, "errors": []any{
			map[string]any{"phoneNumber": "+449999999999", "error": telephony.MsgPhoneNotFound},
			map[string]any{"phoneNumber": "bad", "error": telephony.MsgPhoneInvalid}}})
	mustBody(t, h.telDo("DELETE", "/phone-numbers", map[string]any{"phoneNumbers": []string{"+442071234567"}}, 200),
		map[string]any{"deleted": []any{"+442071234567"}})
	h.telDo("DELETE", "/phone-numbers", map[string]any{}, 400)
	mustBody(t, h.telDo("GET", "/phone-numbers", nil, 200), map[string]any{"phoneNumbers": []any{
		telNumber("+14155550150", "live", "CONN-LIVE"), telNumber("+14155550151", "live", "CONN-LIVE"),
		telNumber("+14155550160", "sandbox", "CONN-SANDBOX")}})
}

func TestTelephonyConnectorDelete(t *testing.T) {
	t.Parallel()
	h := newHarness(t, telScenario)
	h.telDo("POST", "/phone-numbers/+14155550152", nil, 201)
	h.telDo("PATCH", "/phone-numbers/+14155550152", map[string]any{"connectorId": "CONN-LIVE"}, 200)
	mustBody(t, h.telDo("DELETE", "/connectors/CONN-LIVE", nil, 200),
		map[string]any{"deletedConnector": "CONN-LIVE", "deletedPhoneNumbers": []any{"+14155550150", "+14155550151", "+14155550152"}})
	h.telDo("GET", "/connectors/CONN-LIVE", nil, 404)
	h.telDo("DELETE", "/connectors/CONN-LIVE", nil, 404)
	mustBody(t, h.telDo("GET", "/phone-numbers", nil, 200), map[string]any{"phoneNumbers": []any{telNumber("+14155550160", "sandbox", "CONN-SANDBOX")}})
	// The numbers are free again.
	h.telDo("POST", "/phone-numbers/+14155550150", nil, 201)
	// Deleting the agent drops its telephony: its numbers are free for
	// another agent.
	h.agentDo("DELETE", "/support", nil, 204)
	r := h.do("POST", agentsBase+"/sales/telephony/phone-numbers", map[string]any{"phoneNumbers": []string{"+14155550150", "+14155550160"}}, builderHeaders...)
	mustStatus(t, r, 201)
}

// TestTelephonyCallNumber dials a connector's number: the call runs in the
// connector's environment, variant and languages.
func TestTelephonyCallNumber(t *testing.T) {
	t.Parallel()
	h := newHarness(t, telScenario)
	res, err := h.api.CallNumber("+14155550160", "+447700900999")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^CA[0-9a-f]{32}$`).MatchString(res.ConversationID) || res.Response != "Spring promo line." {
		t.Fatalf("call %+v", res)
	}
	conv, err := h.store.GetConversation("us", res.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	if conv.Environment != "sandbox" || conv.VariantID != "VARIANT-00000B2B" || conv.Channel != "VOICE-SIP" ||
		conv.Language != "en-US" || conv.TTSLanguage != "en-US" || conv.ToNumber != "+14155550160" || conv.FromNumber != "+447700900999" ||
		conv.State["connector_id"] != "CONN-SANDBOX" || conv.State["disable_handoff"] != true {
		t.Fatalf("conversation %+v", conv)
	}
	// The live connector: its variant is unassigned, so the default answers.
	res, err = h.api.CallNumber("+14155550151", "")
	if err != nil {
		t.Fatal(err)
	}
	conv, _ = h.store.GetConversation("us", res.ConversationID)
	if res.Response != "Hello from support." || conv.Environment != "live" || conv.VariantID != "VARIANT-0000DEF0" ||
		conv.Language != "en-GB" || conv.TTSLanguage != "en-GB" {
		t.Fatalf("live call %+v %+v", res, conv)
	}
	// Reassigning the number changes where calls go.
	h.telDo("PATCH", "/phone-numbers/+14155550151", map[string]any{"connectorId": "CONN-SANDBOX"}, 200)
	if res, err = h.api.CallNumber("+14155550151", ""); err != nil || res.Response != "Spring promo line." {
		t.Fatalf("after reassign: %+v %v", res, err)
	}
	// Not routed: unknown, imported without a connector.
	h.telDo("POST", "/phone-numbers/+14155550190", nil, 201)
	for _, n := range []string{"+14155550190", "+19999999999"} {
		if _, err := h.api.CallNumber(n, ""); !errors.Is(err, engine.ErrNotRouted) {
			t.Fatalf("CallNumber(%s) = %v, want ErrNotRouted", n, err)
		}
	}
}

func TestTelephonyDefaultScenarioCall(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	res, err := h.api.CallNumber("+14155550150", "")
	if err != nil || res.Response != "Hi, how can I help you today?" {
		t.Fatalf("%+v %v", res, err)
	}
}
