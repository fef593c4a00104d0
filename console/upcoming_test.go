package console_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/scenario"
)

// timelineWorld is the default scenario with a timeline: chats for two
// hours, a chat outage at 30m, the webhook receiver down from 20m with no
// end, and a campaign every 3 hours.
func timelineWorld(t *testing.T) *mockplatform.Platform {
	t.Helper()
	return mockplatform.Start(t, mockplatform.WithScenarioYAML(append(scenario.DefaultYAML(), `
timeline:
  - id: chats
    until: 2h
    traffic: {project: support, chats_per_minute: 2, ramp_to: 6, arrivals: even, turns: 1, think: 10s}
  - id: chat-outage
    at: 30m
    for: 10m
    fault: {match: {family: chat}, action: {status: 502}}
  - at: 20m
    do: {webhook_receiver: down}
  - id: campaign
    at: 5h
    every: 3h
    do: {outbound_campaign: {project: support, numbers: ["+14155552671"]}}
`...)))
}

// TestOverviewTimeline: the overview lays the timeline out from now to a
// horizon that holds every entry's next firing, each entry with its spans
// (in words too), next and last firing and steps run; the requests page
// tells the timeline's requests from the clients'.
func TestOverviewTimeline(t *testing.T) {
	t.Parallel()
	p := timelineWorld(t)
	p.Advance(31 * time.Minute)
	do(t, "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/create", "{}", chatHeaders...) // at 31m: meets the outage
	pg := get(t, p, "/")
	pg.mustContain(t, `<h2 id="timeline-h">Timeline <span class="count">(the next 6h, from <time datetime="2026-01-01T00:31:00Z">2026-01-01 00:31:00</time>)</span>`,
		// The axis: now to now+6h, by quarters.
		`<time datetime="2026-01-01T00:31:00Z">00:31:00</time>`, `<time datetime="2026-01-01T02:01:00Z">02:01:00</time>`,
		`<time datetime="2026-01-01T06:31:00Z">06:31:00</time>`,
		// The chats run until 2h; the outage holds until 40m; the
		// receiver has no end; the campaign comes at 5h.
		`aria-label="chats: from 2026-01-01 00:00:00 to 2026-01-01 02:00:00"`, "chats on support, 2 to 6 a minute",
		`aria-label="chat-outage: from 2026-01-01 00:30:00 to 2026-01-01 00:40:00"`, "chat answers 502",
		`aria-label="#2: from 2026-01-01 00:20:00 to 2026-01-01 06:31:00"`, "webhook_receiver down", `class="span open"`,
		`aria-label="campaign: at 2026-01-01 05:00:00"`, "outbound_campaign", `class="mark"`,
		`<span class="badge st-active">active</span>`, `href="./requests?source=timeline"`)
	if pg.Status != 200 {
		t.Fatalf("status %d", pg.Status)
	}
	// The chats' steps: the ones in the outage failed.
	st := p.Timeline().Entries[0]
	if st.Failed == 0 {
		t.Fatalf("no chat step failed: %+v", st)
	}
	pg.mustContain(t, `(`+strconv.FormatInt(st.Failed, 10)+` failed)`)

	req := get(t, p, "/requests?source=timeline&limit=1")
	req.mustContain(t, `<option value="timeline" selected>the timeline</option>`, `timeline chats</span>`, "step start of occurrence",
		"operation <code>chatCreate</code>; failed: fault rule chat-outage answered 502")
	cl := get(t, p, "/requests?source=client")
	cl.mustContain(t, "(1 of 1 shown")
	cl.mustNotContain(t, "st-timeline")
	if bad := get(t, p, "/requests?source=robots"); bad.Status != 400 {
		t.Errorf("source=robots: %d", bad.Status)
	} else {
		bad.mustContain(t, "Sent by must be clients or the timeline.")
	}
	// Without a timeline, no section.
	get(t, mockplatform.Start(t), "/").mustNotContain(t, "timeline-h")
}
