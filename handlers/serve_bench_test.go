package handlers

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/store"
)

// discardWriter is the cheapest http.ResponseWriter: it keeps the status
// and drops the bytes, so that a benchmark measures the API's own work.
type discardWriter struct {
	header http.Header
	status int
}

func (w *discardWriter) Header() http.Header { return w.header }

func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }

func (w *discardWriter) WriteHeader(code int) { w.status = code }

// benchServe serves one request per iteration straight to the API's
// ServeHTTP, as net/http hands it over (a fresh header map and body), and
// fails on another status than 200.
func benchServe(b *testing.B, h *harness, method, path string, header http.Header, body func(i int) string) {
	b.Helper()
	b.ReportAllocs()
	w := &discardWriter{}
	i := 0
	for b.Loop() {
		req, err := http.NewRequest(method, "http://mock"+path, nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Header = header.Clone()
		if body != nil {
			s := body(i)
			req.Body, req.ContentLength = http.NoBody, int64(len(s))
			if s != "" {
				req.Body = readCloser{strings.NewReader(s)}
			}
		}
		w.header, w.status = http.Header{}, 0
		h.api.ServeHTTP(w, req)
		if want := wantStatus(path); w.status != 0 && w.status != want {
			b.Fatalf("status %d, want %d", w.status, want)
		}
		i++
	}
}

// createChats creates n chats and returns their conversation ids.
func createChats(b *testing.B, h *harness, n int) []string {
	b.Helper()
	ids := make([]string, n)
	for i := range ids {
		r := h.do("POST", chatBase+"/create", `{"integration_attributes":{"customer_id":"42"}}`, chatHeaders...)
		mustStatus(b, r, 200)
		ids[i] = r.Map(b)["conversation_id"].(string)
	}
	return ids
}

// benchRespond answers one message per iteration, spread over the
// conversations ids in turn.
func benchRespond(b *testing.B, h *harness, header http.Header, ids []string) {
	b.Helper()
	benchServe(b, h, "POST", chatBase+"/respond", header, func(i int) string {
		return `{"conversation_id":"` + ids[i%len(ids)] + `","message":"What are your opening hours?"}`
	})
}

// wantStatus is the status benchServe expects: 404 for the unknown
// route, 200 for every other request.
func wantStatus(path string) int {
	if strings.HasSuffix(path, "/no-such-route") {
		return http.StatusNotFound
	}
	return http.StatusOK
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

// BenchmarkServe serves the load benchmark's requests (scripts/bench.sh)
// in memory, without net/http's connection work: the API's own cost per
// request (routing, the middleware chain, the journal, the family's
// handler, the store and the answer).
func BenchmarkServe(b *testing.B) {
	b.Run("unknown-route", func(b *testing.B) {
		h := newHarness(b)
		benchServe(b, h, "GET", "/runtime/us-1/v3/acme/support/no-such-route",
			http.Header{"X-Api-Key": {"conv-key"}}, nil)
	})
	b.Run("v3-page-1", func(b *testing.B) {
		h := benchHarness(b, 1_000)
		benchServe(b, h, "GET", "/runtime/us-1/v3/acme/support/conversations?limit=1",
			http.Header{"X-Api-Key": {"conv-key"}}, nil)
	})
	chat := http.Header{"X-Api-Key": {"test-chat-key"}, "X-Token": {"test-connector-token"},
		"Content-Type": {"application/json"}}
	b.Run("chat-create", func(b *testing.B) {
		h := newHarness(b)
		benchServe(b, h, "POST", chatBase+"/create", chat,
			func(int) string { return `{"integration_attributes":{"customer_id":"42"}}` })
	})
	b.Run("chat-respond", func(b *testing.B) {
		h := newHarness(b)
		ids := createChats(b, h, 2000)
		benchRespond(b, h, chat, ids)
	})
	// chat-respond-large is chat respond as the full load benchmark meets
	// it after its create load: a store of 300k stored conversations (the
	// generated records of the full run add no stored keys), the load
	// spread over 10,000 conversations (more than the decoded-conversation
	// cache holds). Each conversation grows by a turn per 10,000
	// iterations, so compare runs of the same -benchtime (200000x: about
	// the 20 turns the full run's respond load leaves).
	b.Run("chat-respond-large", func(b *testing.B) {
		if testing.Short() {
			b.Skip("a store of 300k records in -short mode")
		}
		h := newHarness(b)
		ids := createChats(b, h, 10_000)
		proto, err := h.store.GetConversation("us", ids[0])
		if err != nil {
			b.Fatal(err)
		}
		batch := make([]*store.Conversation, 0, 10_000)
		for i := range 300_000 {
			c := *proto
			c.ID = fmt.Sprintf("CONV-B%015d", i)
			c.StartedAt = proto.StartedAt.Add(time.Duration(i) * time.Millisecond)
			batch = append(batch, &c)
			if len(batch) == cap(batch) {
				if err := h.store.PutConversations(batch); err != nil {
					b.Fatal(err)
				}
				batch = batch[:0]
			}
		}
		benchRespond(b, h, chat, ids)
	})
	// chat-respond-one answers every message in one conversation, which
	// grows by a turn per iteration: an append copies the stored turns'
	// encoding, so the time per request is the mean over a conversation
	// of -benchtime turns (compare runs of the same -benchtime; 1000x,
	// 3000x and 10000x in docs/performance.md, "A long conversation").
	b.Run("chat-respond-one", func(b *testing.B) {
		h := newHarness(b)
		benchRespond(b, h, chat, createChats(b, h, 1))
	})
	b.Run("messaging-session", func(b *testing.B) {
		h := newHarness(b)
		tok := msgToken(h)
		benchServe(b, h, "POST", msgBase+"/sessions",
			http.Header{"Authorization": {"bearer " + tok}, "Content-Type": {"application/json"}},
			func(int) string { return `{"platform":"web"}` })
	})
}
