package handlers

import (
	"fmt"
	"net/url"
	"runtime"
	"testing"

	"github.com/agentplatform/mockplatform/store"
)

// benchScenario generates n conversations over one week (2026-02-01 to
// 2026-02-08), the clock starting after it.
func benchScenario(n int) string {
	return fmt.Sprintf(`
seed: 5
clock: {start: 2026-02-09T00:00:00Z}
accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
        variants:
          - {id: VARIANT-A, name: Alpha, default: true}
          - {id: VARIANT-B, name: Beta}
        generate:
          - count: %d
            from: 2026-02-01T00:00:00Z
            to: 2026-02-08T00:00:00Z
            channels: {VOICE-SIP: 3, WEBCHAT: 1}
            duration: {min: 30s, max: 15m}
            turns: {min: 2, max: 8}
credentials:
  - {kind: conversations, key: conv-key, account: acme}
`, n)
}

// BenchmarkGenerateLoad generates and loads 100k conversations from a
// scenario (parse, generate, store) and reports the heap per stored
// conversation.
func BenchmarkGenerateLoad(b *testing.B) {
	const n = 100_000
	sc, err := Vocabulary().Parse("bench.yaml", []byte(benchScenario(n)))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b.StartTimer()
		st, err := store.Open("")
		if err != nil {
			b.Fatal(err)
		}
		if err := Seed(st, sc, sc.Clock.Start); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "heapB/conv")
		if c, _ := st.CountConversations("us"); c != n {
			b.Fatalf("stored %d", c)
		}
		_ = st.Close()
		b.StartTimer()
	}
}

// benchHarness is a harness whose store holds n generated conversations.
func benchHarness(b *testing.B, n int) *harness {
	b.Helper()
	return newHarness(b, benchScenario(n))
}

// BenchmarkConversationsCursorPage reads one v3 page of 100 by cursor,
// from the middle of 1k, 100k and 1M stored conversations.
func BenchmarkConversationsCursorPage(b *testing.B) {
	for _, n := range []int{1_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			if testing.Short() && n > 100_000 {
				b.Skip("1M records in -short mode")
			}
			h := benchHarness(b, n)
			// Walk to the middle with big pages, then time 100-record pages.
			q := "client_env=live&limit=5000"
			cursor := ""
			for seen := 0; seen < n/2*9/10-5000; {
				r := h.convList("v3", q+cursor)
				ids := convIDs(b, r)
				seen += len(ids)
				c, _ := r.Map(b)["cursor"].(string)
				if c == "" {
					break
				}
				cursor = "&cursor=" + url.QueryEscape(c)
			}
			// The cursor is bound to the filters, not to limit.
			path := "/runtime/us-1/v3/acme/support/conversations?client_env=live&limit=100" + cursor
			for b.Loop() {
				r := h.do("GET", path, nil, "x-api-key", "conv-key")
				if r.Status != 200 {
					b.Fatalf("status %d: %s", r.Status, r.Body)
				}
			}
		})
	}
}

// BenchmarkConcurrencyWeek is a concurrency query over one week with 100k
// conversations.
func BenchmarkConcurrencyWeek(b *testing.B) {
	h := benchHarness(b, 100_000)
	path := "/runtime/us-1/v1/acme/support/conversations/concurrency?start_time=2026-02-01T00:00:00Z&end_time=2026-02-08T00:00:00Z"
	r := h.do("GET", path, nil, "x-api-key", "conv-key")
	if r.Status != 200 {
		b.Fatalf("status %d: %s", r.Status, r.Body)
	}
	for b.Loop() {
		r := h.do("GET", path, nil, "x-api-key", "conv-key")
		if r.Status != 200 {
			b.Fatalf("status %d", r.Status)
		}
	}
}

// BenchmarkConversationsFirstPage reads the first v3 page (limit 1 and
// 100) of 1k generated conversations, the load benchmark's page loads in
// memory.
func BenchmarkConversationsFirstPage(b *testing.B) {
	h := benchHarness(b, 1_000)
	for _, limit := range []int{1, 100} {
		b.Run(fmt.Sprintf("limit=%d", limit), func(b *testing.B) {
			path := fmt.Sprintf("/runtime/us-1/v3/acme/support/conversations?limit=%d", limit)
			for b.Loop() {
				r := h.do("GET", path, nil, "x-api-key", "conv-key")
				if r.Status != 200 {
					b.Fatalf("status %d: %s", r.Status, r.Body)
				}
			}
		})
	}
}

// BenchmarkChatCreateRespond creates chats, and answers messages spread
// over 2,000 chats, in memory: the load benchmark's chat loads.
func BenchmarkChatCreateRespond(b *testing.B) {
	h := newHarness(b)
	create := func() string {
		r := h.do("POST", chatBase+"/create", `{"integration_attributes":{"customer_id":"42"}}`, chatHeaders...)
		if r.Status != 200 {
			b.Fatalf("status %d: %s", r.Status, r.Body)
		}
		return r.Map(b)["conversation_id"].(string)
	}
	b.Run("create", func(b *testing.B) {
		for b.Loop() {
			create()
		}
	})
	ids := make([]string, 2000)
	for i := range ids {
		ids[i] = create()
	}
	b.Run("respond", func(b *testing.B) {
		i := 0
		for b.Loop() {
			r := h.do("POST", chatBase+"/respond", `{"conversation_id":"`+ids[i%len(ids)]+`","message":"What are your opening hours?"}`, chatHeaders...)
			if r.Status != 200 {
				b.Fatalf("status %d: %s", r.Status, r.Body)
			}
			i++
		}
	})
}
