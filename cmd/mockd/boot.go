package main

// mockd while its world loads: it listens at once; /_mock/health answers
// 503 "starting" with the load's progress, and every other request 503
// with Retry-After: 1.

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentplatform/mockplatform"
)

// boot is mockd's handler: the starting answers, then the platform's.
type boot struct {
	p atomic.Pointer[mockplatform.Platform]

	mu   sync.Mutex
	last *mockplatform.Progress
}

func (b *boot) report(p mockplatform.Progress) {
	b.mu.Lock()
	b.last = &p
	b.mu.Unlock()
}

// ready hands every request to p from now on.
func (b *boot) ready(p *mockplatform.Platform) { b.p.Store(p) }

func (b *boot) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p := b.p.Load(); p != nil {
		p.ServeHTTP(w, r)
		return
	}
	b.mu.Lock()
	body := map[string]any{"status": "starting", "progress": b.last}
	b.mu.Unlock()
	if !(r.Method == http.MethodGet && strings.TrimSuffix(r.URL.Path, "/") == "/_mock/health") {
		body["error"] = "mockd is starting: its world is being loaded; retry shortly (GET /_mock/health says when it is ready)"
		w.Header().Set("Retry-After", "1")
	}
	out, _ := json.Marshal(body) // cannot fail: strings and numbers
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(out)
}
