package mockdcontainer_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/mockdcontainer"
)

// Run outside a test: build the image from the mockplatform version in
// your build list, start mockd with a scenario file, and use it as a
// mockplatform.Mock. In a test, mockdcontainer.Start(t, ...) does the
// same and also skips without Docker and terminates with the test.
func ExampleRun() {
	ctx := context.Background()
	c, err := mockdcontainer.Run(ctx,
		mockdcontainer.WithScenarioFile("testdata/support-bot.yaml"),
		testcontainers.WithEnv(map[string]string{"MOCKD_LOG_LEVEL": "debug"}),
	)
	defer func() {
		if err := testcontainers.TerminateContainer(c); err != nil {
			log.Print(err)
		}
	}()
	if err != nil {
		log.Fatal(err)
	}
	var m mockplatform.Mock = c // the same interface as an in-process *mockplatform.Platform

	req, _ := http.NewRequest("POST", m.RuntimeURL("uk-1")+"/v1/globex/helpdesk/chat/create", strings.NewReader(`{}`))
	req.Header.Set("X-API-KEY", "globex-chat-key")
	req.Header.Set("X-TOKEN", "globex-connector-live")
	resp, err := m.Client().Do(req)
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	m.Advance(10 * time.Minute)
	fmt.Println(len(m.Requests(mockplatform.RequestFilter{Family: "chat"})))
	if err := c.Err(); err != nil { // the first control-plane failure, if any
		log.Fatal(err)
	}
}
