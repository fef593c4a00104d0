package mockplatform

import (
	"testing"
	"time"
)

// Benchmarks of the timeline's runtime (docs/performance.md,
// docs/timeline.md):
//
//	go test -run xxx -bench 'Timeline' -benchtime 5x .
//
// Targets: BenchmarkTimelineTraffic24h (Advance(24h) with 5 chats a
// minute: 7,200 conversations) at most 1 s; BenchmarkTimelineFaultWindows1h
// (Advance(1h) with only fault windows) at most 1 ms.

// benchTimelineAccount is an account with a chat project and its
// credentials, for a timeline.
const benchTimelineAccount = `name: bench-timeline
clock: {start: 2026-01-01T00:00:00Z}
accounts:
  - slug: acme
    id: "1001"
    region: us
    projects:
      - slug: support
        id: "2001"
        variants: [{id: VARIANT-0000DEF0, name: Default, default: true}]
        dialogue:
          greeting: Hi, how can I help you today?
          rules:
            - {name: order, when: {regex: '(?i)order'}, then: {reply: "Your order is on its way."}}
credentials:
  - {kind: chat, key: test-chat-key, account: acme, project: support}
  - {kind: connector, key: test-connector-token, account: acme, project: support}
`

// BenchmarkTimelineTraffic24h: Advance(24h) with background chats at 5 a
// minute (7,200 conversations, each created, spoken to 2 to 6 times and
// closed through the engine, and journaled).
func BenchmarkTimelineTraffic24h(b *testing.B) {
	benchAdvance(b, benchTimelineAccount+`
timeline:
  - until: 24h
    traffic: {project: support, chats_per_minute: 5}
`, 24*time.Hour)
	b.ReportMetric(7200, "conversations/op")
}

// BenchmarkTimelineFaultWindows1h: Advance(1h) with only fault windows:
// no timer is armed for them, the fault set holds them by time.
func BenchmarkTimelineFaultWindows1h(b *testing.B) {
	benchAdvance(b, benchTimelineAccount+`
timeline:
  - {at: 10m, for: 10m, fault: {match: {family: chat}, action: {status: 502}}}
  - {every: 5m, for: 1m, fault: {match: {family: chat, path: /v1/*/*/chat/respond}, action: {status: 504}}}
  - {at: 30m, fault: {match: {family: conversations}, action: {status: 503}}}
`, time.Hour)
}
