package mockplatform_test

import (
	"fmt"
	"net/http"
	"time"

	"github.com/agentplatform/mockplatform"
)

// A world is an isolated copy of the platform served under its host's
// /w/{id}/: its clock, data and faults are its own.
func ExamplePlatform_NewWorld() {
	host, err := mockplatform.New()
	if err != nil {
		panic(err)
	}
	defer host.Close()
	world, err := host.NewWorld(mockplatform.WithSeed(7))
	if err != nil {
		panic(err)
	}
	defer world.Close() // deletes it

	world.Advance(time.Hour)
	req, _ := http.NewRequest("POST", world.RuntimeURL("us-1")+"/v1/acme/support/chat/create", http.NoBody)
	req.Header.Set("X-API-KEY", "test-chat-key")
	req.Header.Set("X-TOKEN", "test-connector-token")
	resp, err := world.Client().Do(req)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()

	fmt.Println(resp.StatusCode, len(host.Worlds()))
	fmt.Println("world:", world.Now().Format(time.RFC3339), len(world.Requests(mockplatform.RequestFilter{})))
	fmt.Println("host: ", host.Now().Format(time.RFC3339), len(host.Requests(mockplatform.RequestFilter{})))
	// Output:
	// 200 1
	// world: 2026-01-01T01:00:00Z 1
	// host:  2026-01-01T00:00:00Z 0
}
