package mockdcontainer_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/mockdcontainer"
)

// Run outside a test: build the image from the mockplatform version in
// your build list, start mockd with the same options an in-process
// platform takes, and work in a world of it as a mockplatform.Mock. In a
// test, mockdcontainer.Start(t, ...) does the same and also skips without
// Docker and terminates with the test; c.World(t) deletes the world when
// the test ends.
func ExampleRun() {
	ctx := context.Background()
	opts := []mockplatform.Option{mockplatform.WithSeed(42)} // mockplatform.Start(t, opts...) takes them too
	c, err := mockdcontainer.Run(ctx, append(opts,
		mockdcontainer.WithCustomizers(testcontainers.WithEnv(map[string]string{"MOCKD_LOG_LEVEL": "debug"})))...)
	defer func() {
		if err := testcontainers.TerminateContainer(c); err != nil {
			log.Print(err)
		}
	}()
	if err != nil {
		log.Fatal(err)
	}

	w, err := c.NewWorld(ctx) // its own data, clock, faults and journal
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()             // deletes the world
	var m mockplatform.Mock = w // the same interface as an in-process *mockplatform.Platform

	req, _ := http.NewRequest("POST", m.RuntimeURL("us-1")+"/v1/acme/support/chat/create", http.NoBody)
	req.Header.Set("X-API-KEY", "test-chat-key")
	req.Header.Set("X-TOKEN", "test-connector-token")
	resp, err := m.Client().Do(req)
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	m.Advance(10 * time.Minute)
	fmt.Println(len(m.Requests(mockplatform.RequestFilter{Family: "chat"})))
	if err := m.Err(); err != nil { // the first control-plane failure, if any
		log.Fatal(err)
	}
}
