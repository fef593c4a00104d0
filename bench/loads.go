package main

// The loads: each is a set of requests that wrk sends in turn, prepared
// against mockd (whatever ids they need are created first). The reads run
// before the writes, so a page or a concurrency series reads exactly the
// generated records.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// The default scenario's names and keys (README), and the generated week.
const (
	runtimeBase    = "/runtime/us-1"
	chatKey        = "test-chat-key"
	connectorToken = "test-connector-token"
	messagingHost  = "localhost"
	convsKey       = "test-conversations-key"
	genFrom        = "2026-02-01T00:00:00Z"
	genTo          = "2026-02-08T00:00:00Z"

	respondMessage = "What are your opening hours?"
)

// requestSet is the requests of a load: one method and header set, and the
// URIs and bodies wrk cycles through.
type requestSet struct {
	method string
	header [][2]string
	items  []item
	// status is the answer's status when the load measures an error
	// answer (0: every answer is below 400).
	status int
}

type item struct{ uri, body string }

// expects reports whether status is what the load measures: its error
// status, or one below 400.
func (set *requestSet) expects(status int) bool {
	if set.status != 0 {
		return status == set.status
	}
	return status < 400
}

// load is one measured load.
type load struct {
	name  string
	about string
	// prepare makes the load's requests against mockd at base.
	prepare func(ctx context.Context, c *http.Client, base string, cfg *config) (*requestSet, error)
}

var loads = []load{
	{name: "unknown-route", about: "GET an unknown route of the runtime API: its JSON 404, the least a request costs (routing, middleware, journal, answer; no family's work)", prepare: unknownRoute},
	{name: "v3-page-1", about: "GET v3 conversations, limit=1 (first page)", prepare: v3Page(1)},
	{name: "v3-page-100", about: "GET v3 conversations, limit=100 (first page)", prepare: v3Page(100)},
	{name: "concurrency-week", about: "GET concurrency for the generated week (2016 intervals)", prepare: concurrencyWeek},
	{name: "chat-create", about: "POST chat/create", prepare: chatCreate},
	{name: "chat-respond", about: "POST chat/respond, spread over -convs conversations", prepare: chatRespond},
	{name: "messaging-session", about: "POST messaging sessions with one access token", prepare: messagingSession},
}

func loadNames() []string {
	names := make([]string, len(loads))
	for i, l := range loads {
		names[i] = l.name
	}
	return names
}

func findLoad(name string) *load {
	for i := range loads {
		if loads[i].name == name {
			return &loads[i]
		}
	}
	return nil
}

var convsHeader = [][2]string{{"x-api-key", convsKey}}

var chatHeader = [][2]string{{"X-API-KEY", chatKey}, {"X-TOKEN", connectorToken}, {"Content-Type", "application/json"}}

// unknownRoute is a request every family's request costs at least: the
// router finds no route, and the middleware (correlation id, journal,
// faults) and the JSON error answer run as for any request.
func unknownRoute(context.Context, *http.Client, string, *config) (*requestSet, error) {
	return &requestSet{method: "GET", header: convsHeader, status: http.StatusNotFound,
		items: []item{{uri: runtimeBase + "/v3/acme/support/no-such-route"}}}, nil
}

func v3Page(limit int) func(context.Context, *http.Client, string, *config) (*requestSet, error) {
	return func(context.Context, *http.Client, string, *config) (*requestSet, error) {
		uri := fmt.Sprintf("%s/v3/acme/support/conversations?limit=%d", runtimeBase, limit)
		return &requestSet{method: "GET", header: convsHeader, items: []item{{uri: uri}}}, nil
	}
}

func concurrencyWeek(context.Context, *http.Client, string, *config) (*requestSet, error) {
	uri := runtimeBase + "/v1/acme/support/conversations/concurrency?start_time=" + genFrom + "&end_time=" + genTo
	return &requestSet{method: "GET", header: convsHeader, items: []item{{uri: uri}}}, nil
}

const chatCreateBody = `{"integration_attributes":{"customer_id":"42"}}`

func chatCreate(context.Context, *http.Client, string, *config) (*requestSet, error) {
	return &requestSet{method: "POST", header: chatHeader,
		items: []item{{uri: runtimeBase + "/v1/acme/support/chat/create", body: chatCreateBody}}}, nil
}

// chatRespond creates cfg.convs conversations (8 at a time) and answers a
// request for each: a respond that stays in the conversation. A load of
// many thousand responds on one conversation would measure a conversation
// of many thousand turns.
func chatRespond(ctx context.Context, c *http.Client, base string, cfg *config) (*requestSet, error) {
	ids := make([]string, cfg.convs)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	next := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range next {
				var out struct {
					ConversationID string `json:"conversation_id"`
				}
				err := callJSON(ctx, c, base, "POST", runtimeBase+"/v1/acme/support/chat/create", chatHeader, chatCreateBody, &out)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
				ids[i] = out.ConversationID
			}
		})
	}
	for i := range ids {
		next <- i
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	set := &requestSet{method: "POST", header: chatHeader}
	for _, id := range ids {
		body, err := json.Marshal(map[string]string{"conversation_id": id, "message": respondMessage})
		if err != nil {
			return nil, err
		}
		set.items = append(set.items, item{uri: runtimeBase + "/v1/acme/support/chat/respond", body: string(body)})
	}
	return set, nil
}

// messagingSession buys one access token; the load creates sessions with it.
func messagingSession(ctx context.Context, c *http.Client, base string, _ *config) (*requestSet, error) {
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	hdr := [][2]string{{"X-Token", connectorToken}, {"X-Host", messagingHost}, {"Content-Type", "application/json"}}
	if err := callJSON(ctx, c, base, "POST", "/messaging/api/v1/access-token", hdr, `{}`, &tok); err != nil {
		return nil, err
	}
	if tok.AccessToken == "" {
		return nil, fmt.Errorf("access token: no access_token in the answer")
	}
	return &requestSet{method: "POST",
		header: [][2]string{{"Authorization", "Bearer " + tok.AccessToken}, {"Content-Type", "application/json"}},
		items:  []item{{uri: "/messaging/api/v1/sessions", body: `{"platform":"web"}`}}}, nil
}

// send sends one request of a load to base.
func send(ctx context.Context, c *http.Client, base, method string, header [][2]string, it item) (*http.Response, error) {
	var body io.Reader
	if it.body != "" {
		body = strings.NewReader(it.body)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+base+it.uri, body)
	if err != nil {
		return nil, err
	}
	for _, h := range header {
		req.Header.Set(h[0], h[1])
	}
	return c.Do(req)
}

// callJSON sends a request and decodes a 200 answer into out.
func callJSON(ctx context.Context, c *http.Client, base, method, uri string, header [][2]string, body string, out any) error {
	resp, err := send(ctx, c, base, method, header, item{uri: uri, body: body})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s: %s", method, uri, resp.Status, b)
	}
	return json.Unmarshal(b, out)
}
