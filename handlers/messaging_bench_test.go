package handlers

import (
	"runtime"
	"testing"
	"time"
)

// BenchmarkMessagingStreaming measures user messages per second through
// one WebSocket session with streaming on: the message in, its echo, the
// thinking event and every chunk of the reply out.
func BenchmarkMessagingStreaming(b *testing.B) {
	h := newHarness(b)
	srv := msgServer(h)
	tok := msgToken(h)
	sid := msgSession(h, tok, true)
	ws := msgDial(b, srv, sid, tok, "")
	ws.read() // batch
	ws.send(evJoinRequest, map[string]any{})
	for {
		ev := ws.read()
		if ev["type"] == evAgentChunk && ev["payload"].(map[string]any)["is_complete"] == true {
			break
		}
	}
	chunks := 0
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		ws.send(evUserMessage, map[string]any{"text": "what are your hours?"})
		for {
			ev := ws.read()
			if ev["type"] == evAgentChunk {
				chunks++
				if ev["payload"].(map[string]any)["is_complete"] == true {
					break
				}
			}
		}
	}
	el := time.Since(start)
	b.ReportMetric(float64(b.N)/el.Seconds(), "msgs/s")
	b.ReportMetric(float64(chunks)/float64(b.N), "chunks/msg")
}

// BenchmarkMessagingSessions1000 opens 1,000 concurrent sessions on one
// instance, each with a socket and the agent joined, and reports the heap
// per session (server and in-process client together), and the heap per
// session without a socket.
func BenchmarkMessagingSessions1000(b *testing.B) {
	const n = 1000
	for range b.N {
		b.StopTimer()
		h := newHarness(b, `
limits: {session_idle: 24h}
accounts:
  - slug: acme
    id: "1001"
    projects: [{slug: support, id: "2001"}]
credentials:
  - {kind: connector, key: ct, account: acme, project: support, hosts: [localhost]}
`)
		srv := msgServer(h)
		tok := msgToken2(h, "ct")
		heap := func() uint64 {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			return m.HeapAlloc
		}
		b.StartTimer()
		before := heap()
		bare := make([]string, n)
		for i := range bare {
			bare[i] = msgSession(h, tok, true)
		}
		mid := heap()
		conns := make([]*wsClient, n)
		for i := range conns {
			sid := msgSession(h, tok, true)
			ws := msgDial(b, srv, sid, tok, "")
			ws.read()
			ws.send(evJoinRequest, map[string]any{})
			for {
				ev := ws.read()
				if ev["type"] == evAgentChunk && ev["payload"].(map[string]any)["is_complete"] == true {
					break
				}
			}
			conns[i] = ws
		}
		after := heap()
		b.ReportMetric(float64(mid-before)/n, "B/session-bare")
		b.ReportMetric(float64(after-mid)/n, "B/session-socket")
		if got := len(h.api.MessagingSessions()); got != 2*n {
			b.Fatalf("%d sessions", got)
		}
		runtime.KeepAlive(conns)
	}
}
