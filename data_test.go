package mockplatform

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

const dataTestScenario = `
clock: {start: 2026-03-01T12:00:00Z}
accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
        dni: {numbers: ["+14155550100"], window: 2m}
        dialogue:
          greeting: "Hello {{.Attributes.name}}"
credentials:
  - {kind: dni, key: dni-key, account: acme, project: support}
  - {kind: conversations, key: conv-key, account: acme}
`

func dataPost(t *testing.T, p *Platform, url, body string, headers ...string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := p.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body %q: %v", b, err)
	}
	return resp.StatusCode, m
}

func TestDialReservedNumber(t *testing.T) {
	p := Start(t, WithScenarioYAML([]byte(dataTestScenario)), WithoutListener())
	status, body := dataPost(t, p, p.RuntimeURL("us-1")+"/v1/conversations/dni-reservation",
		`{"attributes":{"name":"Ada","cart":{"items":[1,2]}}}`, "x-api-key", "dni-key")
	if status != 200 || body["dni"] != "+14155550100" {
		t.Fatalf("reserve: %d %v", status, body)
	}
	// The Go method.
	res, err := p.Dial("+14155550100", "+447700900123")
	if err != nil {
		t.Fatal(err)
	}
	if res.Response != "Hello Ada" || !strings.HasPrefix(res.ConversationID, "CA") {
		t.Errorf("dial = %+v", res)
	}
	c, err := p.Conversation(res.ConversationID)
	if err != nil || c.Channel != "VOICE-SIP" || c.FromNumber != "+447700900123" {
		t.Fatalf("conversation: %+v %v", c, err)
	}
	// The control plane does the same.
	status, body = dataPost(t, p, p.URL()+"/_mock/dni/dial", `{"number":"+14155550100","from":"+15550001"}`)
	if status != 200 || body["response"] != "Hello Ada" || body["conversation_id"] == res.ConversationID {
		t.Errorf("control dial: %d %v", status, body)
	}
	// After the window: not routed.
	p.Advance(2 * time.Minute)
	if _, err := p.Dial("+14155550100", ""); !errors.Is(err, ErrNotRouted) {
		t.Errorf("dial after the window: %v", err)
	}
	status, body = dataPost(t, p, p.URL()+"/_mock/dni/dial", `{"number":"+14155550100"}`)
	if status != 404 || !strings.Contains(body["error"].(string), "no active reservation") {
		t.Errorf("control dial after the window: %d %v", status, body)
	}
	status, _ = dataPost(t, p, p.URL()+"/_mock/dni/dial", `{}`)
	if status != 400 {
		t.Errorf("control dial without number: %d", status)
	}
	// Reset drops the reservation.
	if _, err := dataPostStatus(t, p); err != nil {
		t.Fatal(err)
	}
	if err := p.Reset(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Dial("+14155550100", ""); !errors.Is(err, ErrNotRouted) {
		t.Errorf("dial after reset: %v", err)
	}
}

// dataPostStatus reserves the number again (used before a reset).
func dataPostStatus(t *testing.T, p *Platform) (int, error) {
	t.Helper()
	status, body := dataPost(t, p, p.RuntimeURL("us-1")+"/v1/conversations/dni-reservation", `{"attributes":{}}`, "x-api-key", "dni-key")
	if status != 200 {
		return status, errors.New("reserve failed: " + body["message"].(string))
	}
	return status, nil
}

// TestGeneratedDataSurvivesReset: generation is paid once per load; Reset
// restores the same records.
func TestGeneratedDataSurvivesReset(t *testing.T) {
	yaml := strings.Replace(dataTestScenario, "        dialogue:",
		"        generate: [{count: 100, from: 2026-02-01T00:00:00Z, to: 2026-02-02T00:00:00Z}]\n        dialogue:", 1)
	p := Start(t, WithScenarioYAML([]byte(yaml)), WithoutListener())
	count := func() int {
		n, err := p.Store().CountConversations("us")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 100 {
		t.Fatalf("generated %d", n)
	}
	if _, err := p.Dial("+14155550100", ""); !errors.Is(err, ErrNotRouted) {
		t.Fatalf("dial without reservation: %v", err)
	}
	if err := p.Reset(); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 100 {
		t.Errorf("after reset: %d", n)
	}
}
