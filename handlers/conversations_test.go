package handlers

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/engine/convquery"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/store"
)

// dataScenario is the scenario of the data-plane tests: one project with
// two variants, a dialogue with handoff, await and event rules, seeded
// conversations, a DNI pool and a key per family.
const dataScenario = `
name: data
seed: 7
clock: {start: 2026-03-01T12:00:00Z}
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
        dni:
          numbers: ["+14155550100", "+14155550101"]
          window: 10m
        dialogue:
          greeting: "Hello{{with .Attributes.customer}} {{.name}}{{end}}"
          rules:
            - name: paid
              when: {event: X42}
              then: {reply: "Payment received, thank you.", end: true}
            - name: paid_any
              when: {event: "*", contains: status}
              then: {reply: An update has arrived.}
            - name: pay
              when: {regex: '(?i)pay (\w+)'}
              then:
                reply: "Waiting for payment {{index .Match 1}}."
                set: {payment_ref: "{{index .Match 1}}"}
                await_event: "{{index .Match 1}}"
            - name: live_agent
              when: {contains: agent}
              then:
                reply: Transferring you.
                handoff:
                  destination: queue_a
                  reason: asked
                  shared_id: "ticket-{{.Turn}}"
                  data: {customer_id: "{{.Attributes.customer_id}}", note: "{{.Message}}"}
            - name: refund
              when: {contains: refund}
              then: {reply: Refunds take five days.}
        conversations:
          - id: CONV-S1
            channel: VOICE-SIP
            started_at: 2026-03-01T10:00:00Z
            duration: 2m
            from_number: "+447700900123"
            to_number: "+442071234567"
            language: en-GB
            variant: Spring Promo
            handoff: {destination: billing_queue, reason: billing_query, shared_id: tk-88}
            state: {customer_id: C-1}
            metrics: {escalated: billing}
            turns:
              - {user: "", agent: Welcome., at: 0s}
              - {user: I want a refund for my order, agent: Let me check., at: 5s, latency: 1500ms, intents: [refund]}
          - id: CONV-S2
            channel: WEBCHAT
            started_at: 2026-03-01T10:01:00Z
            duration: 10m
            turns:
              - {user: what are your opening hours, agent: We open at nine., at: 3s}
          - id: CONV-S3
            channel: CHAT
            environment: sandbox
            started_at: 2026-03-01T10:02:00Z
            duration: 1m
          - id: CONV-S4
            channel: VOICE-SIP
            started_at: 2026-03-01T11:50:00Z
            in_progress: true
            turns:
              - {user: "", agent: Hi., at: 0s}
        handoff_states:
          - {id: CONV-S1, shared_id: tk-88, data: {customer_id: C-1, topic: billing}}
      - slug: other
        id: "2002"
credentials:
  - {kind: chat, key: chat-key, account: acme, project: support}
  - {kind: connector, key: conn-token, account: acme, project: support, client_env: live}
  - {kind: conversations, key: conv-key, account: acme}
  - {kind: conversations, key: conv-key-other, account: acme, project: other}
  - {kind: handoff, key: handoff-key, account: acme}
  - {kind: dni, key: dni-key, account: acme, project: support}
  - {kind: dni, key: dni-key-other, account: acme, project: other}
  - {kind: external_events, key: ee-key, account: acme}
`

var dataChatHeaders = []string{"X-API-KEY", "chat-key", "X-TOKEN", "conn-token", "Content-Type", "application/json"}

const dataChat = "/runtime/us-1/v1/acme/support/chat"

// convList lists conversations of a version with a query string.
func (h *harness) convList(version, query string) response {
	h.t.Helper()
	p := "/runtime/us-1/" + version + "/acme/support/conversations"
	if query != "" {
		p += "?" + query
	}
	return h.do("GET", p, nil, "x-api-key", "conv-key")
}

// convIDs returns the ids of a list answer, in order.
func convIDs(t testing.TB, r response) []string {
	t.Helper()
	list, ok := r.Map(t)["conversations"].([]any)
	if !ok {
		t.Fatalf("no conversations array: %s", r.Body)
	}
	ids := make([]string, len(list))
	for i, c := range list {
		ids[i] = c.(map[string]any)["id"].(string)
	}
	return ids
}

func (h *harness) dataCreate(body any) string {
	h.t.Helper()
	r := h.do("POST", dataChat+"/create", body, dataChatHeaders...)
	mustStatus(h.t, r, 200)
	return r.Map(h.t)["conversation_id"].(string)
}

func (h *harness) dataRespond(id, msg string) map[string]any {
	h.t.Helper()
	r := h.do("POST", dataChat+"/respond", map[string]any{"conversation_id": id, "message": msg}, dataChatHeaders...)
	mustStatus(h.t, r, 200)
	return r.Map(h.t)
}

func TestConversationsRecordV3(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	r := h.convList("v3", "limit=1&include_latency=true")
	mustStatus(t, r, 200)
	lat := 1.5
	greetLat := 0.8
	cur := r.Map(t)["cursor"]
	if cur == nil {
		t.Fatal("cursor is null with more records")
	}
	mustBody(t, r, map[string]any{
		"cursor":      cur,
		"next_offset": 1,
		"conversations": []any{convV3{
			ID: "CONV-S1", AccountID: "ACCOUNT-1001", ProjectID: "PROJECT-2001",
			VariantID: "VARIANT-00000B2B", VariantName: "Spring Promo", Environment: "live",
			StartedAt: "2026-03-01T10:00:00Z", Channel: "VOICE-SIP", FromNumber: "+447700900123", ToNumber: "+442071234567",
			NumTurns: 2, TotalDuration: 120, PolyaiDuration: 120, Handoff: true, HandoffReason: "billing_query",
			HandoffDestination: "billing_queue", Metrics: map[string]any{"escalated": "billing"},
			State: map[string]any{"customer_id": "C-1"},
			Turns: []turnV3{
				{UserInputDatetime: "2026-03-01T10:00:00Z", AgentResponse: "Welcome.", AgentResponseDatetime: "2026-03-01T10:00:00.8Z",
					Intents: []string{}, Entities: map[string]string{}, Latency: &greetLat},
				{UserInput: "I want a refund for my order", UserInputDatetime: "2026-03-01T10:00:05Z", AgentResponse: "Let me check.",
					AgentResponseDatetime: "2026-03-01T10:00:06.5Z", Intents: []string{"refund"}, Entities: map[string]string{}, Latency: &lat},
			},
		}},
	})
}

func TestConversationsRecordV1AndV2(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	r := h.convList("v1", "limit=2&offset=1")
	mustStatus(t, r, 200)
	mustBody(t, r, map[string]any{ // the last page: no next_offset
		"conversations": []any{map[string]any{
			"id": "CONV-S2", "account_id": "ACCOUNT-1001", "project_id": "PROJECT-2001",
			"variant_id": nil, "variant_name": nil, "environment": "live", "started_at": "2026-03-01T10:01:00Z",
			"channel": "WEBCHAT", "from_number": nil, "to_number": nil, "in_progress": false, "num_turns": 1,
			"total_duration": 600, "polyai_duration": 600, "handoff": false, "handoff_reason": nil,
			"handoff_destination": nil, "num_silences": 0, "num_ood": 0, "metrics": map[string]any{}, "state": map[string]any{},
			"turns": []any{map[string]any{"user_input": "what are your opening hours", "user_input_datetime": "2026-03-01T10:01:03Z",
				"barge_in": false, "agent_response": "We open at nine.", "agent_response_datetime": "2026-03-01T10:01:03.8Z",
				"intents": []any{}, "entities": map[string]any{}, "is_ood": false, "is_silence": false}},
		}, map[string]any{
			"id": "CONV-S4", "account_id": "ACCOUNT-1001", "project_id": "PROJECT-2001",
			"variant_id": nil, "variant_name": nil, "environment": "live", "started_at": "2026-03-01T11:50:00Z",
			"channel": "VOICE-SIP", "from_number": nil, "to_number": nil, "in_progress": true, "num_turns": 1,
			"total_duration": 600, "polyai_duration": 600, "handoff": false, "handoff_reason": nil,
			"handoff_destination": nil, "num_silences": 0, "num_ood": 0, "metrics": map[string]any{}, "state": map[string]any{},
			"turns": []any{map[string]any{"user_input": nil, "user_input_datetime": "2026-03-01T11:50:00Z",
				"barge_in": false, "agent_response": "Hi.", "agent_response_datetime": "2026-03-01T11:50:00.8Z",
				"intents": []any{}, "entities": map[string]any{}, "is_ood": false, "is_silence": false}},
		}},
	})
	// v2: the v3 record schema (empty strings, extra turn fields), no cursor.
	r = h.convList("v2", "limit=1&offset=1")
	mustStatus(t, r, 200)
	m := r.Map(t)
	if _, ok := m["cursor"]; ok {
		t.Errorf("v2 answered a cursor: %s", r.Body)
	}
	c := m["conversations"].([]any)[0].(map[string]any)
	turn := c["turns"].([]any)[0].(map[string]any)
	if c["variant_id"] != "" || c["from_number"] != "" || turn["translated_user_input"] != "" || turn["english_agent_response"] != "" {
		t.Errorf("v2 record is not the v3 schema: %s", r.Body)
	}
	if _, ok := turn["latency"]; ok {
		t.Errorf("latency without include_latency: %v", turn)
	}
	if m["next_offset"] != 2.0 {
		t.Errorf("v2 next_offset = %v, want 2", m["next_offset"])
	}
}

func TestConversationsFilters(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{"CONV-S1", "CONV-S2", "CONV-S4"}}, // client_env defaults to live
		{"client_env=sandbox", []string{"CONV-S3"}},
		{"client_env=pre-release", []string{}},
		{"channel=VOICE-SIP", []string{"CONV-S1", "CONV-S4"}},
		{"channel=WEBCHAT&channel=voice-sip", []string{"CONV-S1", "CONV-S2", "CONV-S4"}},
		{"variant_id=VARIANT-00000B2B", []string{"CONV-S1"}},
		{"variant_name=Spring%20Promo", []string{"CONV-S1"}},
		{"variant_name=Spring+Promo", []string{"CONV-S1"}},
		{"variant_name=Default", []string{}},
		{"in_progress=true", []string{"CONV-S4"}},
		{"in_progress=false", []string{"CONV-S1", "CONV-S2"}},
		{"start_time=2026-03-01T10:00:30Z", []string{"CONV-S2", "CONV-S4"}},
		{"end_time=2026-03-01T10:01:00Z", []string{"CONV-S1"}},
		{"start_time=2026-03-01T10:00:00Z&end_time=2026-03-01T10:01:00.000001Z", []string{"CONV-S1", "CONV-S2"}},
		{"limit=2", []string{"CONV-S1", "CONV-S2"}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			for _, v := range []string{"v1", "v2", "v3"} {
				r := h.convList(v, tc.query)
				mustStatus(t, r, 200)
				if diff := cmp.Diff(tc.want, convIDs(t, r)); diff != "" {
					t.Errorf("%s ids (-want +got):\n%s", v, diff)
				}
			}
		})
	}
}

// TestListConversationsGo: the Go listing (the console's) answers what the
// v3 API answers for the same parameters, pages by the same cursor, and
// refuses what the API refuses, with its message.
func TestListConversationsGo(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	for _, query := range []string{"", "client_env=sandbox", "channel=VOICE-SIP", "in_progress=true", "limit=2",
		"query_type=transcript&query=refund&start_time=2026-03-01T00:00:00Z&end_time=2026-03-02T00:00:00Z", "unknown=1"} {
		vals, _ := url.ParseQuery(query)
		page, err := h.api.ConvQuery().ListConversations("ACCOUNT-1001", "support", vals)
		if err != nil {
			t.Fatalf("%q: %v", query, err)
		}
		ids := []string{}
		for _, c := range page.Conversations {
			ids = append(ids, c.ID)
		}
		r := h.convList("v3", query)
		mustStatus(t, r, 200)
		if diff := cmp.Diff(convIDs(t, r), ids); diff != "" {
			t.Errorf("%q: ids (-api +go):\n%s", query, diff)
		}
		apiCursor, _ := r.Map(t)["cursor"].(string)
		if page.Cursor != apiCursor {
			t.Errorf("%q: cursor %q, the API's %q", query, page.Cursor, apiCursor)
		}
	}
	first, _ := h.api.ConvQuery().ListConversations("acme", "support", url.Values{"limit": {"2"}})
	next, err := h.api.ConvQuery().ListConversations("acme", "support", url.Values{"limit": {"2"}, "cursor": {first.Cursor}})
	if err != nil || len(next.Conversations) != 1 || next.Conversations[0].ID != "CONV-S4" || next.Cursor != "" {
		t.Fatalf("second page: %+v, %v", next, err)
	}
	for _, tc := range []struct {
		account, project string
		vals             url.Values
		want             string
	}{
		{"nobody", "support", nil, "Account ID does not exist."},
		{"acme", "nothing", nil, "Project ID does not exist."},
		{"acme", "support", url.Values{"limit": {"0"}}, "limit must be an integer from 1 to 5000."},
		{"acme", "support", url.Values{"sample": {"random"}}, convquery.MsgConvBoundsRequired},
	} {
		_, err := h.api.ConvQuery().ListConversations(tc.account, tc.project, tc.vals)
		var e *engine.Error
		if !errors.As(err, &e) || e.Message != tc.want {
			t.Errorf("%s/%s %v: error %v, want %q", tc.account, tc.project, tc.vals, err, tc.want)
		}
	}
}

func TestConversationsValidation(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	before := h.storeDump()
	bounds := "start_time=2026-03-01T00:00:00Z&end_time=2026-03-02T00:00:00Z"
	for _, tc := range []struct {
		version, query string
		code, msg      string
	}{
		{"v3", "limit=0", convquery.CodeConvInvalid, "limit must be an integer from 1 to 5000."},
		{"v3", "limit=5001", convquery.CodeConvInvalid, "limit must be an integer from 1 to 5000."},
		{"v3", "limit=abc", convquery.CodeConvInvalid, "limit must be an integer from 1 to 5000."},
		{"v1", "limit=5001", "", "limit must be an integer from 1 to 5000."},
		{"v3", "offset=-1", convquery.CodeConvInvalid, "offset must be a non-negative integer."},
		{"v3", "client_env=prod", convquery.CodeConvInvalid, "client_env must be one of sandbox, pre-release, live."},
		{"v3", "in_progress=maybe", convquery.CodeConvInvalid, "in_progress must be true or false."},
		{"v3", "include_latency=yes", convquery.CodeConvInvalid, "include_latency must be true or false."},
		{"v3", "start_time=yesterday", convquery.CodeConvInvalid, "start_time must be an ISO 8601 date-time such as 2026-03-01T00:00:00Z."},
		{"v3", "start_time=2026-03-02T00:00:00Z&end_time=2026-03-01T00:00:00Z", convquery.CodeConvInvalid, convquery.MsgConvEndBeforeStart},
		{"v3", bounds + "&query_type=transcript&query=x&sample=random", convquery.CodeConvInvalid, convquery.MsgConvTwoModes},
		{"v3", bounds + "&query_type=transcript", convquery.CodeConvInvalid, convquery.MsgConvQueryRequired},
		{"v3", bounds + "&query=refund", convquery.CodeConvInvalid, convquery.MsgConvQueryWithout},
		{"v3", "query_type=transcript&query=refund&start_time=2026-03-01T00:00:00Z", convquery.CodeConvInvalid, convquery.MsgConvBoundsRequired},
		{"v3", "sample=random", convquery.CodeConvInvalid, convquery.MsgConvBoundsRequired},
		{"v3", bounds + "&query_type=keyword&query=x", convquery.CodeConvInvalid, "query_type must be transcript or semantic."},
		{"v3", bounds + "&sample=all", convquery.CodeConvInvalid, "sample must be random."},
		{"v3", bounds + "&query_type=transcript&query=x&turn_type=bot", convquery.CodeConvInvalid, "turn_type must be user or agent."},
		{"v1", "cursor=abc", "", "cursor is only supported on v3."},
		{"v2", "cursor=abc", convquery.CodeConvInvalid, "cursor is only supported on v3."},
		{"v1", bounds + "&sample=random", "", "sample is only supported on v3."},
		{"v3", "cursor=%25%25%25", convquery.CodeConvCursor, convquery.MsgConvBadCursor},
		{"v3", "cursor=" + convquery.EncodeConvCursor("0000", "kxyz"), convquery.CodeConvCursor, convquery.MsgConvCursorFilters},
	} {
		t.Run(tc.version+"?"+tc.query, func(t *testing.T) {
			r := h.convList(tc.version, tc.query)
			mustStatus(t, r, 400)
			if tc.version == "v1" {
				mustBody(t, r, map[string]any{"error_message": tc.msg})
			} else {
				mustBody(t, r, envelopeBody(r, tc.code, tc.msg))
			}
		})
	}
	if !reflect.DeepEqual(before, h.storeDump()) {
		t.Error("rejected requests changed the store")
	}
}

func TestConversationsErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	// Unknown project: 404 in each version's body.
	r := h.do("GET", "/runtime/us-1/v3/acme/nope/conversations", nil, "x-api-key", "conv-key")
	mustStatus(t, r, 404)
	mustBody(t, r, envelopeBody(r, "PROJECT_NOT_FOUND", "Project ID does not exist."))
	r = h.do("GET", "/runtime/us-1/v1/acme/nope/conversations", nil, "x-api-key", "conv-key")
	mustStatus(t, r, 404)
	mustBody(t, r, map[string]any{"error_message": "Project ID does not exist."})
	// A key of another project: 403; no key: 401; another family's key: 401.
	r = h.do("GET", "/runtime/us-1/v3/acme/support/conversations", nil, "x-api-key", "conv-key-other")
	mustStatus(t, r, 403)
	r = h.do("GET", "/runtime/us-1/v1/acme/support/conversations", nil)
	mustStatus(t, r, 401)
	mustBody(t, r, map[string]any{"error_message": msgMissingKey})
	r = h.do("GET", "/runtime/us-1/v3/acme/support/conversations", nil, "x-api-key", "handoff-key")
	mustStatus(t, r, 401)
	// Another region's data is invisible (and the key is refused there).
	r = h.do("GET", "/runtime/uk-1/v3/acme/support/conversations", nil, "x-api-key", "conv-key")
	mustStatus(t, r, 401)
	// Path PROJECT-/ACCOUNT- forms resolve.
	r = h.do("GET", "/runtime/us-1/v3/ACCOUNT-1001/PROJECT-2001/conversations", nil, "x-api-key", "conv-key")
	mustStatus(t, r, 200)
}

func TestConversationsDataAccess(t *testing.T) {
	t.Parallel()
	off := strings.Replace(dataScenario, "        dni:\n", "        data_access: {transcripts: false, metrics: false}\n        dni:\n", 1)
	h := newHarness(t, off)
	for _, v := range []string{"v1", "v3"} {
		r := h.convList(v, "limit=1&include_latency=true")
		mustStatus(t, r, 200)
		c := r.Map(t)["conversations"].([]any)[0].(map[string]any)
		if diff := cmp.Diff(map[string]any{"turns": []any{}, "num_turns": 2.0, "metrics": map[string]any{}},
			map[string]any{"turns": c["turns"], "num_turns": c["num_turns"], "metrics": c["metrics"]}); diff != "" {
			t.Errorf("%s with access off (-want +got):\n%s", v, diff)
		}
	}
}

func TestConversationsOffsetPaging(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	var got []string
	offset := 0
	for range 10 {
		r := h.convList("v1", fmt.Sprintf("limit=2&offset=%d", offset))
		mustStatus(t, r, 200)
		got = append(got, convIDs(t, r)...)
		next, ok := r.Map(t)["next_offset"]
		if !ok {
			break
		}
		offset = int(next.(float64))
	}
	if diff := cmp.Diff([]string{"CONV-S1", "CONV-S2", "CONV-S4"}, got); diff != "" {
		t.Errorf("offset walk (-want +got):\n%s", diff)
	}
	r := h.convList("v3", "offset=10")
	mustStatus(t, r, 200)
	mustBody(t, r, map[string]any{"conversations": []any{}, "cursor": nil})
}

func TestConversationsV3LimitSwitch(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario+"fidelity: {v3_limit: oas}\n")
	r := h.convList("v3", "limit=1001")
	mustStatus(t, r, 400)
	mustBody(t, r, envelopeBody(r, convquery.CodeConvInvalid, "limit must be an integer from 1 to 1000."))
	r = h.convList("v3", "")
	mustStatus(t, r, 200)
	if n := len(convIDs(t, r)); n != 3 {
		t.Errorf("default page = %d records, want all 3 (default 1000)", n)
	}
	r = h.convList("v1", "limit=5000") // v1 keeps the spec's bounds
	mustStatus(t, r, 200)
}

// walkCursor pages through v3 with a cursor and returns the ids.
func (h *harness) walkCursor(query string, limit int, between func()) []string {
	h.t.Helper()
	var ids []string
	cursor := ""
	for range 10000 {
		q := fmt.Sprintf("limit=%d", limit)
		if query != "" {
			q += "&" + query
		}
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		r := h.convList("v3", q)
		mustStatus(h.t, r, 200)
		ids = append(ids, convIDs(h.t, r)...)
		c := r.Map(h.t)["cursor"]
		if c == nil {
			return ids
		}
		cursor = c.(string)
		if strings.ContainsAny(cursor, "+/=%&") {
			h.t.Fatalf("cursor %q is not URL-safe", cursor)
		}
		if between != nil {
			between()
		}
	}
	h.t.Fatal("cursor walk did not end")
	return nil
}

// TestConversationsCursorProperty walks random data sets with random
// filters and page sizes: every matching record exactly once, in order.
func TestConversationsCursorProperty(t *testing.T) {
	t.Parallel()
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			h := newHarness(t, dataScenario)
			r := rand.New(rand.NewPCG(seed, 99))
			base := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
			var all []*store.Conversation
			envs := []string{"live", "sandbox"}
			chans := []string{"VOICE-SIP", "WEBCHAT", "CHAT"}
			for i := range 150 + r.IntN(150) {
				c := &store.Conversation{ID: fmt.Sprintf("P-%04d", i), Region: "us", AccountID: "1001", ProjectID: "2001",
					Environment: envs[r.IntN(2)], Channel: chans[r.IntN(3)],
					// Many equal start times: the id breaks ties.
					StartedAt: base.Add(time.Duration(r.IntN(60)) * time.Minute), EndedAt: base.Add(2 * time.Hour),
					Metrics: map[string]any{}, State: map[string]any{}, Turns: []store.Turn{}}
				if err := h.store.PutConversation(c); err != nil {
					t.Fatal(err)
				}
				all = append(all, c)
			}
			env := envs[r.IntN(2)]
			ch := chans[r.IntN(3)]
			query := "client_env=" + env + "&channel=" + ch + "&end_time=2026-02-28T00:00:00Z"
			var want []string
			slices.SortFunc(all, func(x, y *store.Conversation) int {
				if c := x.StartedAt.Compare(y.StartedAt); c != 0 {
					return c
				}
				return strings.Compare(x.ID, y.ID)
			})
			for _, c := range all {
				if c.Environment == env && c.Channel == ch {
					want = append(want, c.ID)
				}
			}
			got := h.walkCursor(query, 1+r.IntN(20), nil)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("cursor walk (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConversationsCursorConcurrentInserts adds records between pages: no
// record is returned twice, every record present at the start is
// returned, and the new ones (started later) appear at the end.
func TestConversationsCursorConcurrentInserts(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	n := 0
	got := h.walkCursor("", 1, func() {
		if n < 3 {
			h.advance(time.Minute)
			h.dataCreate(nil)
			n++
		}
	})
	seen := map[string]bool{}
	for _, id := range got {
		if seen[id] {
			t.Fatalf("duplicate %s in %v", id, got)
		}
		seen[id] = true
	}
	if len(got) != 6 || got[0] != "CONV-S1" || got[2] != "CONV-S4" {
		t.Errorf("walk = %v, want the 3 seeds then the 3 new chats", got)
	}
}

func TestConversationsCursorBoundToFilters(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	r := h.convList("v3", "limit=1&channel=VOICE-SIP")
	cur := r.Map(t)["cursor"].(string)
	// Same filters, another limit: accepted.
	r = h.convList("v3", "limit=5&channel=VOICE-SIP&cursor="+cur)
	mustStatus(t, r, 200)
	if diff := cmp.Diff([]string{"CONV-S4"}, convIDs(t, r)); diff != "" {
		t.Errorf("second page (-want +got):\n%s", diff)
	}
	mustBody(t, r, map[string]any{"conversations": r.Map(t)["conversations"], "cursor": nil})
	for _, q := range []string{"channel=WEBCHAT", "", "channel=VOICE-SIP&in_progress=true", "channel=VOICE-SIP&client_env=sandbox"} {
		r = h.convList("v3", q+"&cursor="+cur)
		mustStatus(t, r, 400)
		mustBody(t, r, envelopeBody(r, convquery.CodeConvCursor, convquery.MsgConvCursorFilters))
	}
	// A cursor naming another project's position is malformed for this one.
	forged := convquery.EncodeConvCursor(strings.Split(mustDecode(t, cur), "|")[1], "kYy9vdGhlcg")
	r = h.convList("v3", "channel=VOICE-SIP&cursor="+forged)
	mustStatus(t, r, 400)
	mustBody(t, r, envelopeBody(r, convquery.CodeConvCursor, convquery.MsgConvBadCursor))
}

func mustDecode(t *testing.T, cur string) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(cur)
	if err != nil {
		t.Fatalf("cursor %q is not base64url: %v", cur, err)
	}
	return string(b)
}

func TestConversationsTranscriptSearch(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	bounds := "start_time=2026-03-01T00:00:00Z&end_time=2026-03-02T00:00:00Z"
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"query_type=transcript&query=refund", []string{"CONV-S1"}},
		{"query_type=transcript&query=opening%20hours", []string{"CONV-S2"}},
		// Ranked: both words beat one word.
		{"query_type=transcript&query=refund%20nine", []string{"CONV-S1", "CONV-S2"}},
		{"query_type=transcript&query=nine%20open", []string{"CONV-S2"}},
		{"query_type=transcript&query=refund&turn_type=agent", []string{}},
		{"query_type=transcript&query=check&turn_type=agent", []string{"CONV-S1"}},
		{"query_type=transcript&query=check&turn_type=user", []string{}},
		{"query_type=transcript&query=welcome&channel=WEBCHAT", []string{}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			r := h.convList("v3", bounds+"&"+tc.query)
			mustStatus(t, r, 200)
			if diff := cmp.Diff(tc.want, convIDs(t, r)); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConversationsSemanticSearch(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	bounds := "start_time=2026-03-01T00:00:00Z&end_time=2026-03-02T00:00:00Z"
	r := h.convList("v3", bounds+"&query_type=semantic&query=refunding%20orders")
	mustStatus(t, r, 200)
	ids := convIDs(t, r)
	if len(ids) == 0 || ids[0] != "CONV-S1" {
		t.Errorf("semantic ranking = %v, want CONV-S1 first", ids)
	}
	r = h.convList("v3", bounds+"&query_type=semantic&query=when%20do%20you%20open")
	ids = convIDs(t, r)
	if len(ids) == 0 || ids[0] != "CONV-S2" {
		t.Errorf("semantic ranking = %v, want CONV-S2 first", ids)
	}
	// Deterministic: the same query gives the same answer.
	r2 := h.convList("v3", bounds+"&query_type=semantic&query=when%20do%20you%20open")
	if string(r.Body) != string(r2.Body) {
		t.Error("semantic search is not deterministic")
	}
}

func TestConversationsSample(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	for i := range 40 {
		c := &store.Conversation{ID: fmt.Sprintf("R-%02d", i), Region: "us", AccountID: "1001", ProjectID: "2001",
			Environment: "live", Channel: "CHAT", StartedAt: time.Date(2026, 2, 1, 0, i, 0, 0, time.UTC),
			EndedAt: time.Date(2026, 2, 1, 1, 0, 0, 0, time.UTC)}
		if err := h.store.PutConversation(c); err != nil {
			t.Fatal(err)
		}
	}
	q := "sample=random&start_time=2026-02-01T00:00:00Z&end_time=2026-02-02T00:00:00Z"
	a := convIDs(t, h.convList("v3", q+"&limit=10"))
	b := convIDs(t, h.convList("v3", q+"&limit=10"))
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("sample not reproducible:\n%s", diff)
	}
	if slices.IsSorted(a) {
		t.Errorf("sample %v is in id order: not random", a)
	}
	// Paging through the sample gives every record once.
	all := h.walkCursor(q, 7, nil)
	slices.Sort(all)
	if len(all) != 40 || slices.Compact(all) == nil || len(slices.Compact(slices.Clone(all))) != 40 {
		t.Errorf("sample walk returned %d records (%d distinct), want 40", len(all), len(slices.Compact(slices.Clone(all))))
	}
}

// TestConversationsChatWorld checks that the runtime families share one
// world: a conversation held through chat is found by transcript search,
// counted by the concurrency series while in progress, and its handoff data
// is readable.
func TestConversationsChatWorld(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	id := h.dataCreate(map[string]any{"integration_attributes": map[string]any{"customer_id": "C-77"}})
	h.advance(30 * time.Second)
	h.dataRespond(id, "I would like a refund please")

	r := h.convList("v3", "query_type=transcript&query=refund%20please&start_time=2026-03-01T11:00:00Z&end_time=2026-03-01T13:00:00Z")
	mustStatus(t, r, 200)
	if diff := cmp.Diff([]string{id}, convIDs(t, r)); diff != "" {
		t.Fatalf("transcript search (-want +got):\n%s", diff)
	}
	c := r.Map(t)["conversations"].([]any)[0].(map[string]any)
	if c["in_progress"] != true || c["num_turns"] != 2.0 || c["channel"] != "CHAT" {
		t.Errorf("record = %v", c)
	}

	conc := h.do("GET", "/runtime/us-1/v1/acme/support/conversations/concurrency?start_time=2026-03-01T12:00:00Z&end_time=2026-03-01T12:10:00Z",
		nil, "x-api-key", "conv-key")
	mustStatus(t, conc, 200)
	mustBody(t, conc, convquery.ConcurrencyResponse{AccountID: "ACCOUNT-1001", ProjectID: "PROJECT-2001", Intervals: []convquery.ConcurrencyInterval{
		{Time: "2026-03-01T12:00:00Z", Max: 2}, // the chat and the seeded in-progress call
		{Time: "2026-03-01T12:05:00Z", Max: 0}, // after now
	}})

	out := h.dataRespond(id, "let me talk to an agent")
	if out["end_conversation"] != true {
		t.Fatalf("respond = %v", out)
	}
	hr := h.do("GET", "/runtime/us-1/v1/acme/support/handoff_state?id="+id, nil, "x-api-key", "handoff-key")
	mustStatus(t, hr, 200)
	mustBody(t, hr, engine.HandoffResponse{ID: id, SharedID: "ticket-2", Data: map[string]any{"customer_id": "C-77", "note": "let me talk to an agent"}})
	r = h.convList("v3", "in_progress=false&channel=CHAT")
	c = r.Map(t)["conversations"].([]any)[0].(map[string]any)
	if c["handoff"] != true || c["handoff_destination"] != "queue_a" || c["handoff_reason"] != "asked" {
		t.Errorf("handed-off record = %v", c)
	}
}
