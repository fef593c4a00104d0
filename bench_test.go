package mockplatform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gin-gonic/gin"
)

// Benchmarks of the mock's speed (docs/performance.md). Run them side by
// side, e.g.
//
//	go test -run xxx -bench 'Start|ChatRespond|BareJSON|Reset' -benchtime 2s -count 3 .
//
// The targets and latest figures: docs/performance.md#go-benchmarks.

// benchClient is a client with its own connection pool, closed by done.
func benchClient() (c *http.Client, done func()) {
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	return &http.Client{Transport: tr}, tr.CloseIdleConnections
}

// benchSend sends one request and drains the answer; it fails b unless the
// status is want.
func benchSend(b *testing.B, c *http.Client, method, url string, body []byte, want int, headers ...string) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != want {
		b.Fatalf("%s %s: status %d, want %d", method, url, resp.StatusCode, want)
	}
}

// benchStart is Start with cleanups run at once (so that b does not pile up
// thousands of platforms until the benchmark ends).
func benchStart(b *testing.B, opts ...Option) (*Platform, func()) {
	tb := &benchTB{}
	p := Start(tb, opts...)
	if p == nil {
		b.Fatal(tb.fatal)
	}
	return p, func() {
		for _, fn := range tb.cleanups {
			fn()
		}
	}
}

const benchChatCreate = "/v1/acme/support/chat/create"

// BenchmarkStart: Start with the default scenario (httptest listener), one
// chat create over the socket, Close.
func BenchmarkStart(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		p, cleanup := benchStart(b)
		c, done := benchClient()
		benchSend(b, c, "POST", p.RuntimeURL("us-1")+benchChatCreate, nil, 200, chatHeaders...)
		done()
		cleanup()
	}
}

// BenchmarkStartFloor: httptest + gin.New() + one JSON route, one request,
// close: the floor BenchmarkStart is compared with.
func BenchmarkStartFloor(b *testing.B) {
	quietGin()
	b.ReportAllocs()
	for b.Loop() {
		r := gin.New()
		r.POST("/x", func(c *gin.Context) { c.JSON(200, gin.H{"conversation_id": "CONV-1", "response": "hi"}) })
		srv := httptest.NewServer(r)
		c, done := benchClient()
		benchSend(b, c, "POST", srv.URL+"/x", nil, 200)
		done()
		srv.Close()
	}
}

// BenchmarkStartNoListener: Start WithoutListener, one chat create through
// the in-memory client, Close.
func BenchmarkStartNoListener(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		p, cleanup := benchStart(b, WithoutListener())
		benchSend(b, p.Client(), "POST", p.RuntimeURL("us-1")+benchChatCreate, nil, 200, chatHeaders...)
		cleanup()
	}
}

// BenchmarkStartNoListenerFloor: gin.New() + one JSON route called with no
// listener.
func BenchmarkStartNoListenerFloor(b *testing.B) {
	quietGin()
	b.ReportAllocs()
	for b.Loop() {
		r := gin.New()
		r.POST("/x", func(c *gin.Context) { c.JSON(200, gin.H{"conversation_id": "CONV-1", "response": "hi"}) })
		c := &http.Client{Transport: &memTransport{h: r}}
		benchSend(b, c, "POST", "http://x/x", nil, 200)
	}
}

// benchRespondBody is the respond request body (the default dialogue's
// opening_hours rule answers it).
func benchRespondBody(id string) []byte {
	return []byte(`{"conversation_id":"` + id + `","message":"What are your opening hours?"}`)
}

// benchTurnsPerConversation bounds the conversations' length: every
// goroutine starts a new conversation after this many responds, so the
// records stay the size of a real chat (a create is 1 in 10 operations).
const benchTurnsPerConversation = 10

// benchChatRespond runs chat respond under RunParallel against base with c.
func benchChatRespond(b *testing.B, c *http.Client, base string) {
	url := base + "/v1/acme/support/chat"
	create := func() string {
		req, _ := http.NewRequest("POST", url+"/create", nil)
		for i := 0; i+1 < len(chatHeaders); i += 2 {
			req.Header.Set(chatHeaders[i], chatHeaders[i+1])
		}
		resp, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		var v struct {
			ConversationID string `json:"conversation_id"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || v.ConversationID == "" {
			b.Fatalf("create: %v", err)
		}
		return v.ConversationID
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var body []byte
		n := 0
		for pb.Next() {
			if n%benchTurnsPerConversation == 0 {
				body = benchRespondBody(create())
			}
			n++
			benchSend(b, c, "POST", url+"/respond", body, 200, chatHeaders...)
		}
	})
}

// benchBareJSON runs the same requests against a bare net/http handler
// that answers a JSON body of the respond's size.
func benchBareJSON(b *testing.B, c *http.Client, url string) {
	body := benchRespondBody("CONV-0000000000")
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			benchSend(b, c, "POST", url, body, 200, chatHeaders...)
		}
	})
}

// benchRespondAnswer is a real respond answer, for the bare handler's size.
func benchRespondAnswer(b *testing.B) []byte {
	p, cleanup := benchStart(b, WithoutListener())
	defer cleanup()
	id := chatCreate(b, p, nil)
	r := send(b, p.Client(), "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/respond", benchRespondBody(id), chatHeaders...)
	if r.Status != 200 {
		b.Fatalf("respond: %d %s", r.Status, r.Body)
	}
	return r.Body
}

// bareJSON is a bare net/http handler: it reads the request and answers
// the bytes given as JSON.
func bareJSON(answer []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("X-PolyAI-Correlation-Id", "00000000-0000-4000-8000-000000000000")
		_, _ = w.Write(answer)
	})
}

// BenchmarkChatRespond: chat respond over a real listener, in parallel.
func BenchmarkChatRespond(b *testing.B) {
	p, cleanup := benchStart(b)
	defer cleanup()
	c, done := benchClient()
	defer done()
	benchChatRespond(b, c, p.RuntimeURL("us-1"))
}

// BenchmarkBareJSON: the bare handler over a real listener, in parallel.
func BenchmarkBareJSON(b *testing.B) {
	srv := httptest.NewServer(bareJSON(benchRespondAnswer(b)))
	defer srv.Close()
	c, done := benchClient()
	defer done()
	benchBareJSON(b, c, srv.URL+"/respond")
}

// BenchmarkChatRespondInMemory: chat respond through the in-memory client.
func BenchmarkChatRespondInMemory(b *testing.B) {
	p, cleanup := benchStart(b, WithoutListener())
	defer cleanup()
	benchChatRespond(b, p.Client(), p.RuntimeURL("us-1"))
}

// BenchmarkBareJSONInMemory: the bare handler through the in-memory
// transport.
func BenchmarkBareJSONInMemory(b *testing.B) {
	c := &http.Client{Transport: &memTransport{h: bareJSON(benchRespondAnswer(b))}}
	benchBareJSON(b, c, "http://bare/respond")
}

// benchSeededYAML is a scenario with n seeded conversations of 3 turns.
func benchSeededYAML(n int) []byte {
	var y strings.Builder
	y.WriteString(`name: bench-reset
accounts:
  - slug: acme
    id: "1001"
    region: us
    projects:
      - slug: support
        id: "2001"
        dialogue: {greeting: Hi.}
        conversations:
`)
	for i := range n {
		fmt.Fprintf(&y, "          - {id: CONV-%010d, environment: live, channel: CHAT, started_at: 2025-12-%02dT%02d:%02d:00Z, duration: 2m,"+
			" state: {customer_id: C-%d}, turns: [{user: hi, agent: hello}, {user: order 42, agent: on its way}, {user: bye, agent: Goodbye!}]}\n",
			i, 1+i%28, i%24, i%60, i)
	}
	y.WriteString(`credentials:
  - {kind: chat, key: test-chat-key, account: acme, project: support}
  - {kind: connector, key: test-connector-token, account: acme, project: support}
`)
	return []byte(y.String())
}

// BenchmarkReset: Reset of a scenario with 1,000 seeded conversations;
// "dirty" creates a conversation before each reset.
func BenchmarkReset(b *testing.B) {
	p, cleanup := benchStart(b, WithoutListener(), WithScenarioYAML(benchSeededYAML(1000)))
	defer cleanup()
	if n, err := p.Store().CountConversations("us"); err != nil || n != 1000 {
		b.Fatalf("seeded conversations = %d, %v", n, err)
	}
	b.Run("clean", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := p.Reset(); err != nil {
				b.Fatal(err)
			}
		}
	})
	var created atomic.Int64
	b.Run("dirty", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			chatCreate(b, p, nil)
			created.Add(1)
			b.StartTimer()
			if err := p.Reset(); err != nil {
				b.Fatal(err)
			}
		}
	})
	if n, err := p.Store().CountConversations("us"); err != nil || n != 1000 {
		b.Fatalf("after %d creates and resets: %d conversations, %v", created.Load(), n, err)
	}
}

// BenchmarkNewClose: New with the default scenario, then Close, with no
// request: the cost of an instance (a world creates and deletes many).
func BenchmarkNewClose(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		p, err := New()
		if err != nil {
			b.Fatal(err)
		}
		p.Close()
	}
}
