package mockplatform_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/faults"
)

// post sends a chat request with the default scenario's credentials and
// returns the status and body.
func post(p *mockplatform.Platform, method, path, body string) (int, string) {
	req, err := http.NewRequest(method, p.RuntimeURL("us-1")+"/v1/acme/support/chat/"+path, strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	req.Header.Set("X-API-KEY", "test-chat-key")
	req.Header.Set("X-TOKEN", "test-connector-token")
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.Client().Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// A chat conversation against the default scenario, in memory. In a test,
// use mockplatform.Start(t) instead of New and Close.
func Example() {
	p, err := mockplatform.New()
	if err != nil {
		panic(err)
	}
	defer p.Close()

	status, body := post(p, "POST", "create", "")
	fmt.Println(status, body)
	var created struct {
		ConversationID string `json:"conversation_id"`
	}
	if err := json.Unmarshal([]byte(body), &created); err != nil {
		panic(err)
	}
	status, body = post(p, "POST", "respond", `{"conversation_id":"`+created.ConversationID+`","message":"What are your opening hours?"}`)
	fmt.Println(status, body)

	// The conversation is a record in the store, with its turns.
	conv, err := p.Conversation(created.ConversationID)
	if err != nil {
		panic(err)
	}
	fmt.Println(conv.NumTurns(), "turns, in progress:", conv.InProgress)
	// Output:
	// 200 {"conversation_id":"CONV-5061916695","response":"Hi, how can I help you today?"}
	// 200 {"conversation_id":"CONV-5061916695","response":"We are open 9am to 5pm, Monday to Friday.","end_conversation":false}
	// 2 turns, in progress: true
}

// The clock stands still until advanced; Advance runs every timer that falls
// due before it returns.
func ExamplePlatform_Advance() {
	p, err := mockplatform.New(mockplatform.WithStartTime(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)))
	if err != nil {
		panic(err)
	}
	defer p.Close()

	fmt.Println(p.Now().Format(time.RFC3339))
	fmt.Println(p.Advance(90 * time.Minute).Format(time.RFC3339))
	_ = p.Reset()
	fmt.Println(p.Now().Format(time.RFC3339))
	// Output:
	// 2026-03-01T09:00:00Z
	// 2026-03-01T10:30:00Z
	// 2026-03-01T09:00:00Z
}

// A fault rule answers the first chat create with a 503 in the chat API's
// error envelope; the second one goes through.
func ExamplePlatform_AddFault() {
	p, err := mockplatform.New()
	if err != nil {
		panic(err)
	}
	defer p.Close()

	_, err = p.AddFault(mockplatform.Fault{
		Match:  faults.Match{Family: "chat", Method: "POST", Path: "/v1/*/*/chat/create"},
		Action: faults.Action{Status: 503, Code: "CHAT_UNAVAILABLE", Message: "try again later"},
		Times:  1,
	})
	if err != nil {
		panic(err)
	}
	status, body := post(p, "POST", "create", "")
	fmt.Println(status, strings.Replace(body, `"error_id":"`+p.Requests(mockplatform.RequestFilter{})[0].CorrelationID+`"`, `"error_id":"…"`, 1))
	status, _ = post(p, "POST", "create", "")
	fmt.Println(status)
	for _, f := range p.Faults() {
		fmt.Printf("%s matched %d, fired %d, exhausted %v\n", f.ID, f.Matched, f.Fired, f.Exhausted)
	}
	// Output:
	// 503 {"success":false,"error":"try again later","error_id":"…","error_code":"CHAT_UNAVAILABLE","error_message":"try again later","data":null}
	// 200
	// fault-1 matched 2, fired 1, exhausted true
}

// The request journal records every request with the virtual time, with
// secrets redacted, and warns about fields the spec does not know.
func ExamplePlatform_Requests() {
	p, err := mockplatform.New()
	if err != nil {
		panic(err)
	}
	defer p.Close()

	post(p, "POST", "create", `{"chanel":"webchat"}`) // a typo of "channel"
	p.Advance(time.Minute)
	post(p, "POST", "respond", `{"conversation_id":"CONV-0000000000","message":"hi"}`)

	for _, r := range p.Requests(mockplatform.RequestFilter{Family: "chat"}) {
		fmt.Println(r.Time.Format(time.TimeOnly), r.Method, r.Path, r.Status, r.RequestHeader["X-Api-Key"], r.Warnings)
	}
	// Output:
	// 00:00:00 POST /runtime/us-1/v1/acme/support/chat/create 200 [[REDACTED]] [unknown field "chanel" in request body (ignored, as the real service does)]
	// 00:01:00 POST /runtime/us-1/v1/acme/support/chat/respond 404 [[REDACTED]] []
}

// A scenario given as YAML: its own account, credentials and dialogue. The
// initial message of create is answered instead of the greeting.
func ExampleWithScenarioYAML() {
	p, err := mockplatform.New(mockplatform.WithScenarioYAML([]byte(`
name: echo
accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
        dialogue:
          greeting: Echo bot here.
          rules:
            - {name: echo, then: {reply: "You said: {{.Message}}"}}
credentials:
  - {kind: chat, key: test-chat-key, account: acme, project: support}
  - {kind: connector, key: test-connector-token, account: acme, project: support}
`)))
	if err != nil {
		panic(err)
	}
	defer p.Close()
	fmt.Println(p.Scenario().Name)
	fmt.Println(post(p, "POST", "create", `{"initial_message":"ping"}`))
	// Output:
	// echo
	// 200 {"conversation_id":"CONV-5061916695","response":"You said: ping"}
}
