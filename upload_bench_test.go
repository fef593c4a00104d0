package mockplatform

import (
	"bytes"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// uploadScenario is a scenario of about size bytes: one project with
// seeded conversations of two turns each; with bad, every conversation
// has a malformed start time (one problem per record).
func uploadScenario(size int, bad bool) []byte {
	var b strings.Builder
	b.WriteString("name: big\naccounts:\n  - slug: acme\n    id: \"1001\"\n    region: us\n    projects:\n" +
		"      - slug: support\n        id: \"2001\"\n        name: S\n        conversations:\n")
	start := "2026-01-01T00:00:00Z"
	if bad {
		start = "soon"
	}
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "          - id: CONV-%08d\n            environment: live\n            channel: CHAT\n"+
			"            started_at: %s\n            turns:\n              - {user: hello there, agent: hi how can I help}\n"+
			"              - {user: order 123, agent: it is on its way}\n", i, start)
	}
	b.WriteString("credentials:\n  - {kind: chat, key: k1, account: acme, project: support}\n")
	return []byte(b.String())
}

// BenchmarkScenarioUpload measures POST /_mock/scenario of large
// scenarios, valid (parsed, validated, seeded, loaded) and invalid (one
// problem in every record, all reported), with the heap still in use
// after the upload (heap-MB: the loaded scenario and its data).
//
//	go test -run xxx -bench ScenarioUpload -benchtime 3x .
func BenchmarkScenarioUpload(b *testing.B) {
	for _, tc := range []struct {
		name   string
		size   int
		bad    bool
		status int
	}{
		{"valid-15MB", 15 << 20, false, http.StatusOK},
		{"invalid-1MB", 1 << 20, true, http.StatusBadRequest},
		{"invalid-15MB", 15 << 20, true, http.StatusBadRequest},
	} {
		body := uploadScenario(tc.size, tc.bad)
		b.Run(tc.name, func(b *testing.B) {
			p := newPlatform(b, WithoutListener())
			client := p.Client()
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest("POST", p.URL()+"/_mock/scenario", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/yaml")
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != tc.status {
					b.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
				}
			}
			b.StopTimer()
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			b.ReportMetric(float64(m.HeapInuse)/(1<<20), "heap-MB")
			runtime.KeepAlive(p)
		})
	}
}
