package timeline

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzNew: every scenario the loader accepts compiles into a schedule,
// and its first hour can be walked.
func FuzzNew(f *testing.F) {
	files, _ := filepath.Glob("../fixtures/timeline-*.yaml")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		base + "  - {at: 1m, every: 1s, for: 500ms, fault: {action: {status: 500}}}\n",
		base + "  - {until: 1h, traffic: {project: support, chats_per_minute: 600, think: 0s, turns: 100}}\n",
		base + "  - {every: 1s, do: {outbound_campaign: {project: support, first: \"+15550100000\", count: 10, pace: 0s}}}\n",
		base + "  - {at: 1s, do: {webhook_receiver: down}}\n  - {at: 2s, do: {webhook_receiver: up}}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := voc.Parse("f.yaml", data)
		if err != nil {
			return
		}
		s, err := New(sc.Timeline, t0, sc.Seed)
		if err != nil {
			t.Fatalf("New refuses a timeline the loader accepts: %v\n%s", err, data)
		}
		c := s.Cursor()
		var buf []Firing
		for n := 0; n < 10_000; n++ {
			next, ok := c.Next()
			if !ok || next.After(t0.Add(time.Hour)) {
				break
			}
			buf = c.Take(next, buf[:0])
		}
		s.Status(t0.Add(30 * time.Minute))
		s.Receiver(t0.Add(30*time.Minute), "whe_x")
	})
}
