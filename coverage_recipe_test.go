package mockplatform_test

// The Go recipe of docs/coverage.md, as it is written there
// (TestCoverageRecipesAsWritten checks that the document holds it).

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/mocktest"
)

func TestChatCoverage(t *testing.T) {
	p := mockplatform.Start(t)
	t.Cleanup(func() {
		// Fails the test when it called under 1% of the operations.
		mocktest.RequireCoverage(t, p, mocktest.MinOperations(1))
		r := p.Coverage()
		for _, it := range r.NeverExercised[:min(3, len(r.NeverExercised))] { // what to try next
			t.Log(it.Text)
		}
	})

	send := func(op, body string) int {
		req, _ := http.NewRequest("POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/"+op, strings.NewReader(body))
		req.Header.Set("X-API-KEY", "test-chat-key")
		req.Header.Set("X-TOKEN", "test-connector-token")
		resp, err := p.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := send("create", "{}"); got != http.StatusOK {
		t.Fatalf("create: %d", got)
	}
	if got := send("respond", `{"message":"no conversation id"}`); got != http.StatusBadRequest {
		t.Fatalf("respond without an id: %d", got)
	}
}
