package handlers

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agentplatform/mockplatform/store"
)

// create starts a chat conversation and returns its id.
func (h *harness) create(body any) string {
	h.t.Helper()
	r := h.do("POST", chatBase+"/create", body, chatHeaders...)
	mustStatus(h.t, r, 200)
	id, _ := r.Map(h.t)["conversation_id"].(string)
	return id
}

func (h *harness) respond(id, msg string) response {
	h.t.Helper()
	return h.do("POST", chatBase+"/respond", map[string]any{"conversation_id": id, "message": msg}, chatHeaders...)
}

func (h *harness) conversation(id string) *store.Conversation {
	h.t.Helper()
	c, err := h.store.GetConversation("us", id)
	if err != nil {
		h.t.Fatalf("conversation %s: %v", id, err)
	}
	return c
}

func TestChatCreate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.do("POST", chatBase+"/create", nil, chatHeaders...)
	mustStatus(t, r, 200)
	id := r.Map(t)["conversation_id"].(string)
	if !strings.HasPrefix(id, "CONV-") || len(id) != len("CONV-1234567890") {
		t.Fatalf("conversation_id = %q, want CONV- and 10 digits", id)
	}
	mustBody(t, r, engine.ChatCreateResponse{ConversationID: id, Response: "Hi, how can I help you today?"})

	got := h.conversation(id)
	start := h.clock.Now()
	want := &store.Conversation{
		ID: id, Region: "us", AccountID: "1001", ProjectID: "2001",
		VariantID: "VARIANT-0000DEF0", VariantName: "Default", Environment: "live", Channel: "CHAT",
		StartedAt: start, InProgress: true, Metrics: map[string]any{},
		State: map[string]any{"conversation_id": id, "channel": "CHAT", "client_env": "live", "variant_id": "VARIANT-0000DEF0"},
		Turns: []store.Turn{{AgentResponse: "Hi, how can I help you today?", UserInputAt: start, AgentResponseAt: start,
			Intents: []string{}, Entities: map[string]string{}}},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("stored conversation (-want +got):\n%s", diff)
	}
}

func TestChatCreateFields(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	id := h.create(map[string]any{
		"integration_attributes": map[string]any{"customer_id": "c-7", "tier": "gold"},
		"variant_id":             "VARIANT-00000B2B",
		"channel":                "whatsapp",
		"asr_lang_code":          "en-GB",
		"tts_lang_code":          "fr-FR",
	})
	c := h.conversation(id)
	if c.VariantID != "VARIANT-00000B2B" || c.VariantName != "Spring Promo" {
		t.Errorf("variant = %q %q", c.VariantID, c.VariantName)
	}
	if c.Channel != "WHATSAPP" || c.ChatChannel != "whatsapp" || c.Language != "en-GB" || c.TTSLanguage != "fr-FR" {
		t.Errorf("channel/lang = %q %q %q %q", c.Channel, c.ChatChannel, c.Language, c.TTSLanguage)
	}
	if diff := cmp.Diff(map[string]any{"customer_id": "c-7", "tier": "gold"}, c.State["integration_attributes"]); diff != "" {
		t.Errorf("state integration_attributes: %s", diff)
	}
	// integration attributes stay for the whole conversation (docs/api.md#chat-create).
	h.respond(id, "what are your hours?")
	c = h.conversation(id)
	if c.IntegrationAttributes["customer_id"] != "c-7" {
		t.Errorf("integration attributes lost after respond: %v", c.IntegrationAttributes)
	}
}

func TestChatCreateSandboxToken(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.do("POST", chatBase+"/create", nil, "X-API-KEY", "test-chat-key", "X-TOKEN", "test-connector-token-sandbox")
	mustStatus(t, r, 200)
	c := h.conversation(r.Map(t)["conversation_id"].(string))
	if c.Environment != "sandbox" {
		t.Fatalf("environment = %q, want sandbox (fixed by the connector token)", c.Environment)
	}
}

func TestChatCreateInitialMessage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.do("POST", chatBase+"/create", map[string]any{"initial_message": "what are your hours"}, chatHeaders...)
	mustStatus(t, r, 200)
	m := r.Map(t)
	if m["response"] != "We are open 9am to 5pm, Monday to Friday." {
		t.Fatalf("response = %v", m["response"])
	}
	c := h.conversation(m["conversation_id"].(string))
	if len(c.Turns) != 1 || c.Turns[0].UserInput != "what are your hours" {
		t.Fatalf("turns = %+v", c.Turns)
	}

	rej := newHarness(t, strings.Replace(defaultYAML(t), "seed: 1", "seed: 1\nfidelity:\n  initial_message: reject", 1))
	before := rej.storeLen()
	r = rej.do("POST", chatBase+"/create", map[string]any{"initial_message": "hi"}, chatHeaders...)
	mustStatus(t, r, 400)
	mustBody(t, r, envelopeBody(r, engine.CodeChatInvalid, engine.MsgChatInitialMessage))
	if n := rej.storeLen(); n != before {
		t.Fatalf("a rejected create changed the store: %d -> %d items", before, n)
	}
}

func TestChatValidation(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", engine.DefaultMaxBodyBytes+1)
	tests := []struct {
		name   string
		method string
		path   string
		body   any
		status int
		code   string
		msg    string
	}{
		{"create not JSON", "POST", "/create", "{", 400, engine.CodeChatInvalid, "Request body ends before its JSON value is complete (at byte 1)."},
		{"create array body", "POST", "/create", "[1]", 400, engine.CodeChatInvalid, "Request body must be a JSON object."},
		{"create bad channel", "POST", "/create", `{"channel":"fax"}`, 400, engine.CodeChatInvalid, `Field "channel" must be one of webchat, whatsapp, sms, api.`},
		{"create channel wrong case", "POST", "/create", `{"channel":"WEBCHAT"}`, 400, engine.CodeChatInvalid, `Field "channel" must be one of webchat, whatsapp, sms, api.`},
		{"create channel not string", "POST", "/create", `{"channel":3}`, 400, engine.CodeChatInvalid, `Field "channel" must be a string.`},
		{"create attributes not object", "POST", "/create", `{"integration_attributes":"x"}`, 400, engine.CodeChatInvalid, `Field "integration_attributes" must be an object.`},
		{"create asr lang only", "POST", "/create", `{"asr_lang_code":"en"}`, 400, engine.CodeChatInvalid, `Field "asr_lang_code" must be a language plus region code such as en-GB.`},
		{"create tts lang lower", "POST", "/create", `{"tts_lang_code":"en-gb"}`, 400, engine.CodeChatInvalid, `Field "tts_lang_code" must be a language plus region code such as en-GB.`},
		{"create unknown variant", "POST", "/create", `{"variant_id":"VARIANT-NOPE"}`, 400, engine.CodeChatVariantNotFound, engine.MsgChatVariantNotFound},
		{"create variant by name", "POST", "/create", `{"variant_id":"Spring Promo"}`, 400, engine.CodeChatVariantNotFound, engine.MsgChatVariantNotFound},
		{"create initial_message not string", "POST", "/create", `{"initial_message":1}`, 400, engine.CodeChatInvalid, `Field "initial_message" must be a string.`},
		{"create body too large", "POST", "/create", `{"initial_message":"` + long + `"}`, 413, "PAYLOAD_TOO_LARGE", "Request body exceeds 1048576 bytes."},
		{"respond no body", "POST", "/respond", nil, 400, engine.CodeChatInvalid, "Request body is required."},
		{"respond no id", "POST", "/respond", `{"message":"hi"}`, 400, engine.CodeChatInvalid, engine.MsgChatIDRequired},
		{"respond empty id", "POST", "/respond", `{"conversation_id":""}`, 400, engine.CodeChatInvalid, engine.MsgChatIDRequired},
		{"respond id not string", "POST", "/respond", `{"conversation_id":5}`, 400, engine.CodeChatInvalid, `Field "conversation_id" must be a string.`},
		{"respond variant", "POST", "/respond", `{"conversation_id":"CONV-1","variant_id":"VARIANT-0000DEF0"}`, 400, engine.CodeChatInvalid, engine.MsgChatVariantOnCreate},
		{"respond metadata not object", "POST", "/respond", `{"conversation_id":"CONV-1","metadata":[1]}`, 400, engine.CodeChatInvalid, `Field "metadata" must be an object.`},
		{"respond bad lang", "POST", "/respond", `{"conversation_id":"CONV-1","asr_lang_code":"english"}`, 400, engine.CodeChatInvalid, `Field "asr_lang_code" must be a language plus region code such as en-GB.`},
		{"respond unknown conversation", "POST", "/respond", `{"conversation_id":"CONV-0000000000"}`, 404, engine.CodeChatNotFound, engine.MsgChatNotFound},
		{"close no id", "PUT", "/close", `{}`, 400, engine.CodeChatInvalid, engine.MsgChatIDRequired},
		{"close unknown conversation", "PUT", "/close", `{"conversation_id":"CONV-0000000000"}`, 404, engine.CodeChatNotFound, engine.MsgChatNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.create(nil) // something to keep unchanged
			h.unchanged(t, func() {
				r := h.do(tt.method, chatBase+tt.path, tt.body, chatHeaders...)
				mustStatus(t, r, tt.status)
				mustBody(t, r, envelopeBody(r, tt.code, tt.msg))
			})
		})
	}
}

func TestChatVersion(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.do("POST", "/runtime/us-1/v2/acme/support/chat/create", nil, chatHeaders...)
	mustStatus(t, r, 404)
	mustBody(t, r, envelopeBody(r, engine.CodeChatVersion, `Unsupported API version "v2": the chat API is v1.`))
}

func TestChatRespondDialogue(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	id := h.create(map[string]any{"integration_attributes": map[string]any{"customer_id": "42"}})

	r := h.respond(id, "Where is my order #123?")
	mustStatus(t, r, 200)
	mustBody(t, r, engine.ChatRespondResponse{ConversationID: id, Response: "Thanks, I found order 123. It is on its way."})

	h.advance(30 * time.Second)
	r = h.respond(id, "blah blah")
	mustBody(t, r, engine.ChatRespondResponse{ConversationID: id, Response: "Sorry, I didn't understand that. Could you rephrase?"})

	h.advance(30 * time.Second)
	r = h.do("POST", chatBase+"/respond", map[string]any{"conversation_id": id, "message": "", "metadata": map[string]any{"k": "v"}}, chatHeaders...)
	mustStatus(t, r, 200)

	c := h.conversation(id)
	if c.State["order_id"] != "123" {
		t.Errorf("state order_id = %v, want 123", c.State["order_id"])
	}
	if len(c.Turns) != 4 || c.NumOOD != 2 || c.NumSilences != 1 {
		t.Fatalf("turns=%d ood=%d silences=%d, want 4 2 1", len(c.Turns), c.NumOOD, c.NumSilences)
	}
	t1 := c.Turns[1]
	if t1.UserInput != "Where is my order #123?" || !t1.UserInputAt.Equal(h.start) ||
		t1.Latency != engine.DefaultLatency || !t1.AgentResponseAt.Equal(h.start.Add(engine.DefaultLatency)) ||
		!cmp.Equal(t1.Intents, []string{"order_status"}) {
		t.Errorf("turn 1 = %+v", t1)
	}
	if !c.Turns[2].IsOOD || !c.Turns[2].UserInputAt.Equal(h.start.Add(30*time.Second)) {
		t.Errorf("turn 2 = %+v", c.Turns[2])
	}
	// metadata is for one turn only (docs/api.md#chat-respond).
	if c.Turns[3].Metadata["k"] != "v" || c.Turns[2].Metadata != nil {
		t.Errorf("metadata: turn2 %v turn3 %v", c.Turns[2].Metadata, c.Turns[3].Metadata)
	}
	if !c.InProgress {
		t.Error("conversation ended too early")
	}
}

func TestChatHandoff(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	id := h.create(map[string]any{"integration_attributes": map[string]any{"customer_id": "42"}})
	h.advance(time.Minute)
	r := h.respond(id, "I want a human please")
	mustStatus(t, r, 200)
	mustBody(t, r, engine.ChatRespondResponse{ConversationID: id, Response: "Transferring you to a live agent.",
		EndConversation: true, Handoff: &engine.ChatHandoff{Destination: "live_agent_queue", Reason: "customer_request"}})

	c := h.conversation(id)
	if !c.Handoff || c.HandoffDestination != "live_agent_queue" || c.HandoffReason != "customer_request" || c.InProgress {
		t.Fatalf("record = handoff %v %q %q in_progress %v", c.Handoff, c.HandoffDestination, c.HandoffReason, c.InProgress)
	}
	if want := h.start.Add(time.Minute + engine.DefaultLatency); !c.EndedAt.Equal(want) {
		t.Errorf("ended_at = %v, want %v", c.EndedAt, want)
	}
	hs, err := h.store.GetHandoffState("us", "1001", "2001", id, "")
	if err != nil {
		t.Fatalf("handoff state: %v", err)
	}
	if hs.Data["customer_id"] != "42" {
		t.Errorf("handoff data = %v, want customer_id 42 from the integration attributes", hs.Data)
	}

	// The conversation has ended: respond and close answer 410 and change nothing.
	before := h.conversation(id)
	for _, r := range []response{
		h.respond(id, "hello?"),
		h.do("PUT", chatBase+"/close", map[string]any{"conversation_id": id}, chatHeaders...),
	} {
		mustStatus(t, r, 410)
		mustBody(t, r, envelopeBody(r, engine.CodeChatEnded, engine.MsgChatEnded))
	}
	if diff := cmp.Diff(before, h.conversation(id)); diff != "" {
		t.Fatalf("410 changed the record:\n%s", diff)
	}
}

func TestChatEndAndClose(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	id := h.create(nil)
	r := h.respond(id, "ok bye")
	mustBody(t, r, engine.ChatRespondResponse{ConversationID: id, Response: "Goodbye!", EndConversation: true})

	id2 := h.create(nil)
	h.advance(2 * time.Minute)
	r = h.do("PUT", chatBase+"/close", map[string]any{"conversation_id": id2}, chatHeaders...)
	mustStatus(t, r, 200)
	mustBody(t, r, map[string]any{"success": true})
	c := h.conversation(id2)
	if c.InProgress || !c.EndedAt.Equal(h.start.Add(2*time.Minute)) {
		t.Fatalf("after close: in_progress %v ended_at %v", c.InProgress, c.EndedAt)
	}
	r = h.do("PUT", chatBase+"/close", map[string]any{"conversation_id": id2}, chatHeaders...)
	mustStatus(t, r, 410)
	mustBody(t, r, envelopeBody(r, engine.CodeChatEnded, engine.MsgChatEnded))
}

const twoProjects = `
name: two projects
seed: 7
accounts:
  - slug: acme
    id: "1001"
    region: us
    projects:
      - {slug: support, id: "2001"}
      - {slug: sales, id: "2002"}
  - slug: globex
    id: "3001"
    region: uk
    projects:
      - {slug: help, id: "4001"}
credentials:
  - {kind: chat, key: k-acme, account: acme, project: support}
  - {kind: chat, key: k-sales, account: acme, project: sales}
  - {kind: connector, key: t-acme, account: acme, project: support}
  - {kind: connector, key: t-sales, account: acme, project: sales}
  - {kind: chat, key: k-globex, account: globex, project: help}
  - {kind: connector, key: t-globex, account: globex, project: help}
  - {kind: builder, key: k-builder, account: acme}
  - {kind: chat, key: k-off, account: acme, project: support, disabled: true}
`

func TestChatAuth(t *testing.T) {
	t.Parallel()
	h := newHarness(t, twoProjects)
	id := h.do("POST", "/runtime/us-1/v1/acme/support/chat/create", nil, "X-API-KEY", "k-acme", "X-TOKEN", "t-acme").Map(t)["conversation_id"].(string)
	tests := []struct {
		name    string
		path    string
		headers []string
		status  int
		code    string
		msg     string
	}{
		{"no key", "/runtime/us-1/v1/acme/support/chat/create", []string{"X-TOKEN", "t-acme"}, 401, "UNAUTHORIZED", msgMissingKey},
		{"unknown key", "/runtime/us-1/v1/acme/support/chat/create", []string{"X-API-KEY", "nope", "X-TOKEN", "t-acme"}, 401, "UNAUTHORIZED", msgInvalidKey},
		{"disabled key", "/runtime/us-1/v1/acme/support/chat/create", []string{"X-API-KEY", "k-off", "X-TOKEN", "t-acme"}, 401, "UNAUTHORIZED", msgInvalidKey},
		{"key of another family", "/runtime/us-1/v1/acme/support/chat/create", []string{"X-API-KEY", "k-builder", "X-TOKEN", "t-acme"}, 401, "UNAUTHORIZED", msgInvalidKey},
		{"token as key", "/runtime/us-1/v1/acme/support/chat/create", []string{"X-API-KEY", "t-acme", "X-TOKEN", "t-acme"}, 401, "UNAUTHORIZED", msgInvalidKey},
		{"lower-case header names", "/runtime/us-1/v1/acme/support/chat/create", []string{"x-api-key", "k-acme", "x-token", "nope"}, 401, "UNAUTHORIZED", msgInvalidToken},
		{"no token", "/runtime/us-1/v1/acme/support/chat/create", []string{"X-API-KEY", "k-acme"}, 401, "UNAUTHORIZED", msgMissingToken},
		{"key as token", "/runtime/us-1/v1/acme/support/chat/create", []string{"X-API-KEY", "k-acme", "X-TOKEN", "k-acme"}, 401, "UNAUTHORIZED", msgInvalidToken},
		{"token of another project", "/runtime/us-1/v1/acme/support/chat/create", []string{"X-API-KEY", "k-acme", "X-TOKEN", "t-sales"}, 403, "FORBIDDEN", msgTokenMismatch},
		{"key of another project", "/runtime/us-1/v1/acme/sales/chat/create", []string{"X-API-KEY", "k-acme", "X-TOKEN", "t-sales"}, 403, "FORBIDDEN", msgNoPermission},
		{"key of another account", "/runtime/us-1/v1/acme/support/chat/create", []string{"X-API-KEY", "k-globex", "X-TOKEN", "t-acme"}, 401, "UNAUTHORIZED", msgInvalidKey},
		{"key of another region", "/runtime/uk-1/v1/acme/support/chat/create", []string{"X-API-KEY", "k-acme", "X-TOKEN", "t-acme"}, 401, "UNAUTHORIZED", msgInvalidKey},
		{"unknown account", "/runtime/us-1/v1/initech/support/chat/create", []string{"X-API-KEY", "k-acme", "X-TOKEN", "t-acme"}, 404, "ACCOUNT_NOT_FOUND", "Account ID does not exist."},
		{"unknown project", "/runtime/us-1/v1/acme/nope/chat/create", []string{"X-API-KEY", "k-acme", "X-TOKEN", "t-acme"}, 404, "PROJECT_NOT_FOUND", "Project ID does not exist."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.unchanged(t, func() {
				r := h.do("POST", tt.path, nil, tt.headers...)
				mustStatus(t, r, tt.status)
				mustBody(t, r, envelopeBody(r, tt.code, tt.msg))
			})
		})
	}

	t.Run("conversation of another project is unknown", func(t *testing.T) {
		r := h.do("POST", "/runtime/us-1/v1/acme/sales/chat/respond", map[string]any{"conversation_id": id}, "X-API-KEY", "k-sales", "X-TOKEN", "t-sales")
		mustStatus(t, r, 404)
		mustBody(t, r, envelopeBody(r, engine.CodeChatNotFound, engine.MsgChatNotFound))
	})
	t.Run("regions are partitions", func(t *testing.T) {
		r := h.do("POST", "/runtime/uk-1/v1/globex/help/chat/respond", map[string]any{"conversation_id": id}, "X-API-KEY", "k-globex", "X-TOKEN", "t-globex")
		mustStatus(t, r, 404)
	})
}

func TestChatIDForms(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, path := range []string{
		"/runtime/us-1/v1/ACCOUNT-1001/PROJECT-2001/chat/create",
		"/runtime/us-1/v1/ws-1001/support/chat/create",
		"/runtime/us-1/v1/acme/PROJECT-2001/chat/create",
	} {
		r := h.do("POST", path, nil, chatHeaders...)
		mustStatus(t, r, 200)
	}
}

func TestChatDeterministicIDs(t *testing.T) {
	t.Parallel()
	ids := func() []string {
		h := newHarness(t)
		var out []string
		for range 3 {
			out = append(out, h.create(nil))
		}
		return out
	}
	if a, b := ids(), ids(); !cmp.Equal(a, b) {
		t.Fatalf("same seed, different ids: %v vs %v", a, b)
	}
}

func TestChatUnknownFieldWarning(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.do("POST", chatBase+"/create", `{"chanel":"webchat"}`, chatHeaders...)
	mustStatus(t, r, 200)
	e := h.journal.List(Filter{Family: "chat"})
	if len(e) != 1 {
		t.Fatalf("journal has %d chat entries", len(e))
	}
	want := []string{`unknown field "chanel" in request body (ignored, as the real service does)`}
	if diff := cmp.Diff(want, e[0].Warnings); diff != "" {
		t.Fatal(diff)
	}
}

func TestChatFault(t *testing.T) {
	t.Parallel()
	h := newHarness(t, strings.Replace(defaultYAML(t), "seed: 1", `seed: 1
faults:
  - id: timeout
    match: {family: chat, method: POST, path: /v1/*/*/chat/respond}
    action: {status: 400, code: CHAT_TIMEOUT, message: Chat session exceeded the timeout limit.}
    times: 1
`, 1))
	id := h.create(nil)
	r := h.respond(id, "hello")
	mustStatus(t, r, 400)
	mustBody(t, r, envelopeBody(r, "CHAT_TIMEOUT", "Chat session exceeded the timeout limit."))
	if len(h.conversation(id).Turns) != 1 {
		t.Fatal("a faulted respond changed the conversation")
	}
	mustStatus(t, h.respond(id, "hello"), 200)
	if e := h.journal.List(Filter{Status: 400}); len(e) != 1 || e[0].Fault != "timeout" {
		t.Fatalf("journal fault entries = %+v", e)
	}
}

func TestCorrelationID(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.do("POST", chatBase+"/respond", map[string]any{"conversation_id": "CONV-0"}, append([]string{CorrelationHeader, "adk-123"}, chatHeaders...)...)
	if got := r.Header.Get(CorrelationHeader); got != "adk-123" {
		t.Fatalf("correlation header = %q, want the client's", got)
	}
	if r.Map(t)["error_id"] != "adk-123" {
		t.Fatalf("error_id = %v, want adk-123", r.Map(t)["error_id"])
	}
	r = h.do("GET", "/_nope", nil)
	if r.Header.Get(CorrelationHeader) == "" {
		t.Fatal("no correlation header on an unknown route")
	}
}

func TestUnknownRoutesAnswerJSON(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tests := []struct {
		method, path string
		status       int
		want         func(r response) any
	}{
		{"GET", "/nope", 404, func(r response) any { return map[string]any{"error": "No route for GET /nope."} }},
		{"GET", "/builder/v1/agents", 404, func(r response) any {
			return map[string]any{"message": `Unknown region "v1": use /builder/{region}/... with region us, uk or eu.`, "errors": []any{}}
		}},
		{"GET", "/builder/mars/v1/alert-rules", 404, func(r response) any {
			return map[string]any{"message": `Unknown region "mars": use /builder/{region}/... with region us, uk or eu.`, "errors": []any{}}
		}},
		{"POST", "/runtime/mars-1/v1/acme/support/chat/create", 404, func(r response) any {
			return envelopeBody(r, "REGION_REQUIRED", `Unknown region "mars-1": use /runtime/{region}/... with region us-1, uk-1 or euw-1.`)
		}},
		{"GET", chatBase + "/create", 405, func(r response) any {
			return envelopeBody(r, "METHOD_NOT_ALLOWED", "Method GET is not allowed here; allowed: POST.")
		}},
		{"POST", chatBase + "/create/", 404, func(r response) any {
			return envelopeBody(r, "NOT_FOUND", "No route for POST "+chatBase+"/create/.")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			r := h.do(tt.method, tt.path, nil, chatHeaders...)
			mustStatus(t, r, tt.status)
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Fatalf("content type %q", ct)
			}
			mustBody(t, r, tt.want(r))
		})
	}
}

func TestJournalRedactsSecrets(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.create(nil)
	for _, e := range h.journal.List(Filter{}) {
		for k, v := range e.RequestHeader {
			if strings.Contains(strings.Join(v, ""), "test-") {
				t.Fatalf("header %s kept a secret: %v", k, v)
			}
		}
	}
}

func TestBadInputNeverPanics(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	bodies := []string{"", "null", "{}", "[]", "1", `"x"`, "{{", `{"conversation_id":null}`, `{"conversation_id":{"a":1}}`,
		`{"integration_attributes":null}`, `{"metadata":{"a":{"b":[1,2,{}]}}}`, "\x00\xff", strings.Repeat("[", 10000)}
	for _, path := range []string{"/create", "/respond", "/close"} {
		for _, b := range bodies {
			method := "POST"
			if path == "/close" {
				method = "PUT"
			}
			r := h.do(method, chatBase+path, b, chatHeaders...)
			if r.Status >= 500 {
				t.Errorf("%s %q -> %d %s", path, b, r.Status, r.Body)
			}
		}
	}
	_ = http.StatusOK
}

// defaultYAML is the embedded default scenario, for variations.
func defaultYAML(t testing.TB) string {
	t.Helper()
	return string(scenarioDefaultYAML())
}
