package timeline

import (
	"testing"
	"time"
)

// BenchmarkTraffic24h is the schedule's part of the target
// Advance(24h) with a 5-chats-per-minute entry (7,200 conversations) in
// at most 1 s: compiling the timeline and walking every firing of the
// day with a cursor, as the runtime does (one Take per due time).
func BenchmarkTraffic24h(b *testing.B) {
	sc := parse(b, "{until: 24h, traffic: {project: support, chats_per_minute: 5, turns: 2-6}}")
	end := t0.Add(24 * time.Hour)
	var buf []Firing
	b.ReportAllocs()
	for b.Loop() {
		s, err := New(sc.Timeline, t0, sc.Seed)
		if err != nil {
			b.Fatal(err)
		}
		c := s.Cursor()
		starts := 0
		for {
			next, ok := c.Next()
			if !ok || next.After(end) {
				break
			}
			buf = c.Take(next, buf[:0])
			for _, f := range buf {
				if f.Step == StepStart {
					starts++
				}
			}
		}
		if starts < 6800 || starts > 7600 {
			b.Fatalf("%d conversations", starts)
		}
	}
}

// BenchmarkFaultWindows1h is the schedule's part of the target
// Advance(1h) with only fault windows in at most 1 ms: ten fault windows,
// each 1m every 5m, compiled, their rules listed for the fault set and
// every open and close of the hour walked with a cursor.
func BenchmarkFaultWindows1h(b *testing.B) {
	var entries []string
	for range 10 {
		entries = append(entries, "{at: 1m, every: 5m, for: 1m, fault: {match: {family: chat}, action: {status: 502}}}")
	}
	sc := parse(b, entries...)
	end := t0.Add(time.Hour)
	var buf []Firing
	b.ReportAllocs()
	for b.Loop() {
		s, err := New(sc.Timeline, t0, sc.Seed)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.FaultRules()) != 10 {
			b.Fatal("rules")
		}
		c := s.Cursor()
		n := 0
		for {
			next, ok := c.Next()
			if !ok || next.After(end) {
				break
			}
			buf = c.Take(next, buf[:0])
			n += len(buf)
		}
		if n != 240 {
			b.Fatalf("%d firings", n)
		}
	}
}
