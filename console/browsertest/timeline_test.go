package browsertest

import (
	"math"
	"testing"

	"github.com/agentplatform/mockplatform"
)

// timelineScenario is the default scenario's account with a timeline: a
// chat outage from 30m to 40m, chats for two hours, a receiver down from
// 20m with no end, and an inbound call at 45m.
const timelineScenario = `name: timeline-console
accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
        variants: [{id: VARIANT-0000DEF0, name: Default, default: true}]
        connectors:
          - {id: CONNECTOR-00000001, name: Main line, phone_numbers: ["+14155550150"]}
credentials:
  - {kind: chat, key: test-chat-key, account: acme, project: support}
  - {kind: connector, key: test-connector-token, account: acme, project: support}
timeline:
  - id: chat-outage
    at: 30m
    for: 10m
    fault: {match: {family: chat}, action: {status: 502}}
  - id: chats
    until: 2h
    traffic: {project: support, chats_per_minute: 2, arrivals: even, turns: 1, think: 10s}
  - id: receiver
    at: 20m
    do: {webhook_receiver: down}
  - id: caller
    at: 45m
    do: {inbound_call: {number: "+14155550150", say: [hello], think: 5s}}
`

// TestConsoleTimeline: the overview draws the timeline ahead on a time
// axis, each span where its time falls; advancing the clock from the page
// moves the axis and the spans, and the steps the timeline ran show in
// the journal with their mark.
func TestConsoleTimeline(t *testing.T) {
	p := mockplatform.Start(t, mockplatform.WithScenarioYAML([]byte(timelineScenario)))
	s := newSession(t, p)
	s.open("")
	s.waitText("#timeline", "the next 1h")
	s.waitText("#timeline", "chat answers 502")
	s.waitText("#timeline", "webhook_receiver down")
	// left and width of an entry's first bar, as fractions of its track.
	bar := func(row string) (float64, float64) {
		t.Helper()
		v := eval[[]float64](s, `(() => {
  const svg = document.querySelector('#tl-`+row+` svg.track'), r = svg.querySelector('rect');
  const a = svg.getBoundingClientRect(), b = r.getBoundingClientRect();
  return [(b.left - a.left) / a.width, b.width / a.width];
})()`)
		return v[0], v[1]
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 0.01 {
			t.Errorf("%s: %.3f, want %.3f", what, got, want)
		}
	}
	x, w := bar("0")
	near("the outage's start", x, 0.5)
	near("the outage's length", w, 10.0/60)
	x, w = bar("2")
	near("the receiver's start", x, 20.0/60)
	near("the open window's length", w, 40.0/60)
	x, _ = bar("3")
	near("the call's start", x, 0.75)
	s.checkContrast("overview with a timeline")
	s.shot("overview-timeline")

	// Advance 10 minutes from the page: the axis starts at 00:10, the
	// outage is 20 minutes ahead, the chats have run.
	s.click(`button[name="duration"][value="10m"]`)
	s.status("Clock advanced to 2026-01-01T00:10:00Z.")
	s.waitText("#timeline", "from 2026-01-01 00:10:00")
	x, _ = bar("0")
	near("the outage's start after 10m", x, 20.0/60)
	s.waitText("#tl-1", "61") // 20 chats created, spoken to and closed, and one created at 10m
	s.open("requests?source=timeline")
	s.waitText("#journal", "timeline chats")
	s.waitText("#journal", "/runtime/us-1/v1/acme/support/chat/create")
	s.checkContrast("requests of the timeline")
}
