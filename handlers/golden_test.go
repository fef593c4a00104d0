package handlers

// The golden pages: every version, filter, paging and retrieval mode of
// the Conversations API, the concurrency series, handoff states, the
// stored records as the store returns them and the alert aggregates, over
// generated, seeded and API-created records, compared byte for byte with
// testdata/golden_pages.txt. The file was written by the code before the
// store's compact format and one-pass rendering: any change of a byte the
// API answers fails here. Rewrite it (only for an intended change of the
// answers) with go test ./handlers -run TestGoldenPages -update-golden.

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/store"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden_pages.txt")

const goldenScenario = `
name: golden
seed: 11
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
        dialogue:
          greeting: "Hello{{with .Attributes.customer}} {{.name}}{{end}} <&>"
          rules:
            - name: pay
              when: {regex: '(?i)pay (\w+)'}
              then:
                reply: "Waiting for payment {{index .Match 1}}."
                set: {payment_ref: "{{index .Match 1}}"}
                await_event: "{{index .Match 1}}"
            - name: paid
              when: {event: "*"}
              then: {reply: "Payment received \u2028 thank you.", end: true}
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
              then: {reply: "Refunds take five days. \"Quoted\" \\ back"}
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
            state: {customer_id: C-1, score: 0.000000123, big: 1.5e21, n: 12345678901234567, html: "<b>&amp;</b>", uni: "héllo ☃ \u2029", nested: {b: [1, "two", null, true, {z: 1, a: 2}], a: {}}}
            metrics: {escalated: billing, list: [a, b]}
            turns:
              - {user: "", agent: Welcome., at: 0s}
              - {user: I want a refund for my order, agent: Let me check., at: 5s, latency: 1500ms, intents: [refund]}
              - {user: "tab\there", agent: "new\nline", at: 9s, latency: 1ms, ood: true}
              - {user: "", agent: "...", at: 12s, silence: true}
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
        generate:
          - count: 3000
            from: 2026-02-20T00:00:00Z
            to: 2026-02-27T00:00:00Z
          - count: 600
            from: 2026-03-01T09:00:00Z
            to: 2026-03-01T12:30:00Z
            seed: 99
            channels: {VOICE-SIP: 2, WEBCHAT: 1, CHAT: 1}
            variants: {Default: 3, Spring Promo: 1}
            environments: {live: 6, sandbox: 1, pre-release: 1}
            languages: {en-GB: 3, fr-FR: 1}
            duration: {min: 10s, max: 40m}
            turns: {min: 1, max: 12}
            handoff: 0.3
            ood: 0.2
      - slug: restricted
        id: "2003"
        data_access: {transcripts: false, metrics: false}
        generate:
          - count: 200
            from: 2026-02-25T00:00:00Z
            to: 2026-03-01T00:00:00Z
      - slug: other
        id: "2002"
credentials:
  - {kind: chat, key: chat-key, account: acme, project: support}
  - {kind: connector, key: conn-token, account: acme, project: support, client_env: live}
  - {kind: conversations, key: conv-key, account: acme}
  - {kind: handoff, key: handoff-key, account: acme}
  - {kind: external_events, key: ee-key, account: acme}
`

// goldenRequests are the reads the golden file holds, after goldenWrites.
func goldenRequests() []string {
	const week = "start_time=2026-02-20T00:00:00Z&end_time=2026-02-27T00:00:00Z"
	const today = "start_time=2026-03-01T00:00:00Z&end_time=2026-03-01T23:59:59Z"
	queries := []string{
		"", "limit=100", "limit=7&include_latency=true", "client_env=sandbox&limit=50", "client_env=pre-release&limit=30&include_latency=true",
		"channel=voice-sip&channel=WEBCHAT&limit=20", "channel=CHAT&limit=20", "variant_id=VARIANT-00000B2B&limit=20",
		"variant_name=Default&limit=20", "in_progress=true&limit=50", "in_progress=false&limit=3",
		week + "&limit=50", today + "&limit=200", "offset=10&limit=10", "offset=3590&limit=50", "offset=100000",
		"limit=5000", "start_time=2026-03-01T11:00:00Z&limit=40&include_latency=true",
	}
	var out []string
	for _, v := range []string{"v3", "v2", "v1"} {
		for _, q := range queries {
			out = append(out, "/runtime/us-1/"+v+"/acme/support/conversations?"+q)
		}
		out = append(out, "/runtime/us-1/"+v+"/acme/restricted/conversations?limit=3")
	}
	for _, q := range []string{
		"query_type=transcript&query=refund+order&" + week, "query_type=transcript&query=refund&turn_type=user&limit=10&" + today,
		"query_type=transcript&query=help&turn_type=agent&limit=10&offset=5&" + week, "query_type=semantic&query=opening+hours&limit=10&" + today,
		"query_type=semantic&query=where+is+my+parcel&limit=25&" + week, "sample=random&limit=15&" + week,
		"sample=random&limit=15&client_env=sandbox&" + today,
	} {
		out = append(out, "/runtime/us-1/v3/acme/support/conversations?"+q)
	}
	for _, q := range []string{
		"start_time=2026-02-20T00:00:00Z&end_time=2026-02-27T00:00:00Z",
		"start_time=2026-02-20T00:00:00Z&end_time=2026-02-27T00:00:00Z&slice_by=variant",
		"start_time=2026-03-01T08:00:00Z&end_time=2026-03-01T14:00:00Z",
		"start_time=2026-03-01T08:00:00Z&end_time=2026-03-01T14:00:00Z&slice_by=variant&client_env=sandbox",
		"start_time=2026-03-01T08:00:00Z&end_time=2026-03-01T14:00:00Z&variant_name=Spring+Promo",
		"start_time=2026-03-01T08:00:00Z&end_time=2026-03-01T14:00:00Z&language=fr-FR",
		"start_time=2026-03-01T08:00:00Z&end_time=2026-03-01T14:00:00Z&phone_number=%2B447700900123",
		"start_time=2026-02-26T23:03:00Z&end_time=2026-02-27T00:01:00Z",
	} {
		out = append(out, "/runtime/us-1/v1/acme/support/conversations/concurrency?"+q)
	}
	return out
}

// goldenWrites are the writes before the reads: created, answered,
// handed off, awaiting and closed chats, an external event.
func goldenWrites(t *testing.T, h *harness) (ids []string) {
	t.Helper()
	chat := "/runtime/us-1/v1/acme/support/chat"
	hs := []string{"X-API-KEY", "chat-key", "X-TOKEN", "conn-token", "Content-Type", "application/json"}
	post := func(path string, body string) map[string]any {
		r := h.do("POST", chat+path, body, hs...)
		mustStatus(t, r, 200)
		return r.Map(t)
	}
	create := func(body string) string {
		return post("/create", body)["conversation_id"].(string)
	}
	a := create(`{"integration_attributes":{"customer":{"name":"Ann <3"},"customer_id":"42","f":1.25,"big":1e300,"tiny":-2.5e-9,"arr":[1,2,{"k":"v"}],"nil":null,"esc":"\u0001\u001f\ud83d\ude00"}}`)
	h.advance(7 * time.Second)
	post("/respond", `{"conversation_id":"`+a+`","message":"I want a refund","metadata":{"m":1,"s":"x"}}`)
	h.advance(3 * time.Second)
	post("/respond", `{"conversation_id":"`+a+`","message":"pay X42","asr_lang_code":"de-DE","tts_lang_code":"de-AT"}`)
	b := create(`{"channel":"whatsapp","variant_id":"VARIANT-00000B2B"}`)
	h.advance(2 * time.Second)
	post("/respond", `{"conversation_id":"`+b+`","message":"a human agent please","integration_attributes":{"customer_id":"77"}}`)
	c := create(``)
	h.advance(time.Second)
	r := h.do("PUT", chat+"/close", `{"conversation_id":"`+c+`"}`, hs...)
	mustStatus(t, r, 200)
	r = h.do("POST", "/runtime/us-1/v1/external-events/webhook?account_id=acme&project_id=support&event_id_location=payload&event_id_path=data.ref",
		`{"data":{"ref":"X42"},"status":"ok"}`, "X-Api-Key", "ee-key", "Content-Type", "application/json")
	mustStatus(t, r, 201)
	h.advance(90 * time.Second)
	return []string{a, b, c}
}

func TestGoldenPages(t *testing.T) {
	h := newHarness(t, goldenScenario)
	created := goldenWrites(t, h)
	var out bytes.Buffer
	// Bodies over goldenFull bytes are kept as their length, SHA-256 and
	// first bytes (the file stays small; every byte still counts).
	write := func(title string, status int, ctype string, body []byte) {
		fmt.Fprintf(&out, "### %s\n%d %s\n", title, status, ctype)
		if len(body) <= goldenFull {
			fmt.Fprintf(&out, "%s\n", body)
			return
		}
		fmt.Fprintf(&out, "%d bytes sha256 %x %s...\n", len(body), sha256.Sum256(body), body[:goldenHead])
	}
	get := func(path string, headers ...string) response {
		r := h.do("GET", path, nil, headers...)
		write("GET "+path, r.Status, r.Header.Get("Content-Type"), r.Body)
		return r
	}
	for _, path := range goldenRequests() {
		get(path, "x-api-key", "conv-key")
	}
	// Cursor chains: every page of a filtered listing and of a search.
	for _, first := range []string{
		"/runtime/us-1/v3/acme/support/conversations?limit=450&client_env=live",
		"/runtime/us-1/v3/acme/support/conversations?limit=97&channel=webchat&start_time=2026-02-22T00:00:00Z",
		"/runtime/us-1/v3/acme/support/conversations?query_type=transcript&query=order&start_time=2026-02-01T00:00:00Z&end_time=2026-03-02T00:00:00Z&limit=200",
	} {
		path := first
		for page := 0; page < 40; page++ {
			r := get(path, "x-api-key", "conv-key")
			mustStatus(t, r, 200)
			cur, _ := r.Map(t)["cursor"].(string)
			if cur == "" {
				break
			}
			u, err := url.Parse(first)
			if err != nil {
				t.Fatal(err)
			}
			q := u.Query()
			q.Set("cursor", cur)
			u.RawQuery = q.Encode()
			path = u.String()
		}
	}
	// Handoff states: seeded, written by a chat and generated.
	var handedOff []string
	r := h.do("GET", "/runtime/us-1/v3/acme/support/conversations?limit=300&"+
		"start_time=2026-03-01T09:00:00Z&end_time=2026-03-01T12:30:00Z", nil, "x-api-key", "conv-key")
	for _, c := range r.Map(t)["conversations"].([]any) {
		if m := c.(map[string]any); m["handoff"] == true && len(handedOff) < 5 {
			handedOff = append(handedOff, m["id"].(string))
		}
	}
	for _, q := range append([]string{"id=CONV-S1", "shared_id=tk-88", "id=" + created[1], "shared_id=ticket-1", "id=CONV-NOPE"},
		prefixAll("id=", handedOff)...) {
		get("/runtime/us-1/v1/acme/support/handoff_state?"+q, "x-api-key", "handoff-key")
	}
	// The stored records as the store returns them.
	ids := append(append([]string{"CONV-S1", "CONV-S2", "CONV-S4"}, created...), handedOff...)
	page, err := h.api.ConvQuery().ListConversations("acme", "support", url.Values{"limit": {"5"}, "client_env": {"sandbox"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range page.Conversations {
		ids = append(ids, c.ID)
	}
	for _, id := range ids {
		c, err := h.store.GetConversation("us", id)
		if err != nil {
			t.Fatalf("get %s: %v", id, err)
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		write("store "+id, 0, "", b)
	}
	// The alert aggregates over a few windows.
	for _, w := range [][2]string{{"2026-02-20T00:00:00Z", "2026-02-27T00:00:00Z"}, {"2026-03-01T09:30:00Z", "2026-03-01T12:02:00Z"},
		{"2026-02-23T10:00:30Z", "2026-02-23T10:07:10.5Z"}} {
		from, _ := time.Parse(time.RFC3339Nano, w[0])
		to, _ := time.Parse(time.RFC3339Nano, w[1])
		res, err := h.store.QueryMetrics(store.MetricsQuery{Projects: []store.ProjectRef{{Region: "us", AccountID: "1001", ProjectID: "2001"}},
			From: from, To: to, Percentiles: []int{50, 95, 100}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		write("metrics "+w[0]+" "+w[1], 0, "", b)
	}
	n, err := h.store.CountConversations("us")
	if err != nil {
		t.Fatal(err)
	}
	write("count us", 0, "", []byte(fmt.Sprint(n)))

	path := filepath.Join("testdata", "golden_pages.txt")
	if *updateGolden {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, out.Bytes()) {
		wl, gl := strings.Split(string(want), "\n"), strings.Split(out.String(), "\n")
		for i := 0; i < min(len(wl), len(gl)); i++ {
			if wl[i] != gl[i] {
				title := ""
				for j := i; j >= 0; j-- {
					if strings.HasPrefix(gl[j], "### ") {
						title = gl[j]
						break
					}
				}
				t.Fatalf("golden pages differ at line %d (%s):\nwant %.600s\ngot  %.600s", i+1, title, wl[i], gl[i])
			}
		}
		t.Fatalf("golden pages differ in length: want %d lines, got %d", len(wl), len(gl))
	}
}

// goldenFull and goldenHead: see TestGoldenPages's write.
const (
	goldenFull = 6 << 10
	goldenHead = 400
)

func prefixAll(p string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = p + s
	}
	return out
}
