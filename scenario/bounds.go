package scenario

import (
	"math"
	"time"
)

// Bounds: the largest value of every setting and the most of every list a
// scenario may have, so that no setting removes a limit on what the mock
// holds or does (docs/scenarios.md#bounds).

// Maxima.
const (
	// MaxScenarioBytes bounds a scenario document; larger data sets are
	// generated (generate:).
	MaxScenarioBytes = 16 << 20
	// MaxAccounts bounds accounts; MaxProjects the projects of all of them.
	MaxAccounts    = 1_000
	MaxProjects    = 10_000
	MaxCredentials = 10_000
	MaxFaults      = 1_000
	// MaxConversations bounds the conversation records, seeded and
	// generated together.
	MaxConversations = MaxGeneratedConversations
	// MaxAlertRules and MaxWebhookEndpoints bound the per-account limits.
	MaxAlertRules       = 1_000
	MaxWebhookEndpoints = 100
	MaxBodyBytes        = 16 << 20
	MaxJournalSize      = 100_000
	MaxJournalBodyBytes = 1 << 20
	// MaxSessionConnections, MaxMessageBytes and MaxChunkWords bound the
	// messaging block.
	MaxSessionConnections  = 1_000
	MaxMessageBytes        = 16 << 20
	MaxChunkWords          = 1_000
	MaxWSSendQueueMessages = 100_000
	MaxWSSendQueueBytes    = 64 << 20
	MaxRateLimitCalls      = 1_000_000
	MaxTimelineEntries     = 1_000
	// MaxTrafficRate bounds background traffic rates per minute, and a
	// repeated outbound campaign's average calls a minute.
	MaxTrafficRate = 600
	// MaxTimelineConversations bounds the conversations all background
	// traffic is expected to hold.
	MaxTimelineConversations = 1_000_000
	MaxTrafficTurns          = 100
	MaxTrafficMessages       = 1_000
	MaxCallLines             = 100
	// MaxThink bounds a pause (think) and a campaign's pace.
	MaxThink = time.Hour
	// MaxConversationLength bounds the longest background conversation,
	// and so what a schedule computes to start mid-run.
	MaxConversationLength = time.Hour
	MaxCampaignCalls      = 10_000
	MaxAPIErrors          = 10_000
	MaxEventIDLength      = 256
)

// atMost reports a value over its maximum.
func (v *validator) atMost(p path, n, max int64) {
	if n > max {
		v.reportf(p, "must be at most %d (it is %d)", max, n)
	}
}

// tooMany reports a list longer than its maximum, at its first element
// over it.
func (v *validator) tooMany(p path, n, max int, what string) {
	if n > max {
		v.reportf(p.with(max), "more than %d %s (there are %d)", max, what, n)
	}
}

// bounds checks list sizes and setting maxima.
func (v *validator) bounds(s *Scenario) {
	v.tooMany(path{"accounts"}, len(s.Accounts), MaxAccounts, "accounts")
	v.tooMany(path{"credentials"}, len(s.Credentials), MaxCredentials, "credentials")
	v.tooMany(path{"faults"}, len(s.Faults), MaxFaults, "fault rules")
	projects, convs, over := 0, 0, false
	count := func(n int, p path) {
		convs += max(n, 0)
		if !over && convs > MaxConversations {
			over = true
			v.reportf(p, "more than %d conversations in the scenario, seeded and generated", MaxConversations)
		}
	}
	for i, a := range s.Accounts {
		for j, pr := range a.Projects {
			pp := path{"accounts", i, "projects", j}
			if projects++; projects == MaxProjects+1 {
				v.reportf(pp, "more than %d projects in the scenario", MaxProjects)
			}
			count(len(pr.Conversations), pp.with("conversations"))
			for k, g := range pr.Generate {
				count(g.Count, pp.with("generate", k, "count"))
			}
		}
	}
	l := s.Limits
	p := path{"limits"}
	v.atMost(p.with("alert_rules"), int64(l.AlertRules), MaxAlertRules)
	v.atMost(p.with("webhook_endpoints"), int64(l.WebhookEndpoints), MaxWebhookEndpoints)
	v.atMost(p.with("max_body_bytes"), l.MaxBodyBytes, MaxBodyBytes)
	v.atMost(p.with("journal_size"), int64(l.JournalSize), MaxJournalSize)
	v.atMost(p.with("journal_body_bytes"), int64(l.JournalBodyBytes), MaxJournalBodyBytes)
	v.atMost(p.with("ws_send_queue_messages"), int64(l.WSSendQueueMessages), MaxWSSendQueueMessages)
	v.atMost(p.with("ws_send_queue_bytes"), l.WSSendQueueBytes, MaxWSSendQueueBytes)
	if m := s.Messaging; m != nil {
		mp := path{"messaging"}
		v.atMost(mp.with("max_connections"), int64(m.MaxConnections), MaxSessionConnections)
		v.atMost(mp.with("max_message_bytes"), m.MaxMessageBytes, MaxMessageBytes)
		v.atMost(mp.with("chunk_words"), int64(m.ChunkWords), MaxChunkWords)
	}
	for i, a := range s.Accounts {
		if a.Outbound != nil && a.Outbound.RateLimit != nil {
			v.atMost(path{"accounts", i, "outbound", "rate_limit", "calls"}, int64(a.Outbound.RateLimit.Calls), MaxRateLimitCalls)
		}
	}
	v.timelineBounds(s)
}

func (v *validator) timelineBounds(s *Scenario) {
	v.tooMany(path{"timeline"}, len(s.Timeline), MaxTimelineEntries, "timeline entries")
	expected, over := 0.0, false
	for i := range s.Timeline {
		e := &s.Timeline[i]
		p := path{"timeline", i}
		var f *Flow
		var rate float64
		var fp path
		switch {
		case e.Traffic != nil:
			f, rate, fp = &e.Traffic.Flow, e.Traffic.ChatsPerMinute, p.with("traffic")
			v.atMostRate(fp.with("chats_per_minute"), rate)
		case e.Calls != nil:
			f, rate, fp = &e.Calls.Flow, e.Calls.CallsPerMinute, p.with("calls")
			v.atMostRate(fp.with("calls_per_minute"), rate)
		case e.Sessions != nil:
			f, rate, fp = &e.Sessions.Flow, e.Sessions.SessionsPerMinute, p.with("sessions")
			v.atMostRate(fp.with("sessions_per_minute"), rate)
		case e.Do != nil:
			v.actionBounds(e, p.with("do"))
		}
		if f == nil {
			continue
		}
		end := rate
		if f.RampTo != nil {
			end = *f.RampTo
			v.atMostRate(fp.with("ramp_to"), end)
		}
		v.atMost(fp.with("turns"), int64(f.Turns.Max), MaxTrafficTurns)
		v.tooMany(fp.with("messages"), len(f.Messages), MaxTrafficMessages, "messages")
		v.atMostThink(fp.with("think"), f.Think)
		if f.Turns.Max <= MaxTrafficTurns && f.Think.Max.D() <= MaxThink {
			if d := time.Duration(f.Turns.Max+1) * f.Think.Max.D(); d > MaxConversationLength {
				v.reportf(fp.with("think"), "a conversation may last %s ((turns + 1) × think), more than %s", d, MaxConversationLength)
			}
		}
		if span := (e.Until - e.From).D(); span > 0 && rate >= 0 && end >= 0 {
			expected += (rate + end) / 2 * span.Minutes()
		}
		if !over && expected > MaxTimelineConversations {
			over = true
			v.reportf(fp, "more than %d conversations of background traffic in the timeline (expected from the rates)", MaxTimelineConversations)
		}
	}
}

func (v *validator) actionBounds(e *TimelineEntry, p path) {
	a := e.Do
	if c := a.InboundCall; c != nil {
		cp := p.with(ActionInboundCall)
		v.tooMany(cp.with("say"), len(c.Say), MaxCallLines, "lines")
		v.atMostThink(cp.with("think"), c.Think)
	}
	if c := a.OutboundCampaign; c != nil {
		cp := p.with(ActionOutboundCampaign)
		v.tooMany(cp.with("numbers"), len(c.Numbers), MaxCampaignCalls, "numbers")
		v.atMost(cp.with("count"), int64(c.Count), MaxCampaignCalls)
		if c.Pace != nil && c.Pace.D() > MaxThink {
			v.reportf(cp.with("pace"), "must be at most %s (it is %s)", MaxThink, c.Pace)
		}
		n := max(len(c.Numbers), c.Count)
		if e.Every > 0 && n > 0 {
			if perMinute := float64(n) * float64(time.Minute) / float64(e.Every.D()); perMinute > MaxTrafficRate {
				v.reportf(cp, "places %.0f calls a minute on average, more than %d", math.Ceil(perMinute), MaxTrafficRate)
			}
		}
	}
	if x := a.APIErrors; x != nil {
		v.atMost(p.with(ActionAPIErrors, "count"), int64(x.Count), MaxAPIErrors)
	}
}

func (v *validator) atMostRate(p path, r float64) {
	if r > MaxTrafficRate {
		v.reportf(p, "must be at most %d per minute (it is %v)", MaxTrafficRate, r)
	}
}

func (v *validator) atMostThink(p path, t DurationSpan) {
	if t.Max.D() > MaxThink {
		v.reportf(p, "must be at most %s (it is %s)", MaxThink, t)
	}
}

// CheckBounds checks the bounds of a scenario built in Go (Parse, Load and
// Merge check them already); it returns Errors or nil.
func CheckBounds(s *Scenario) error {
	loc := lookupSource(s)
	if loc == nil {
		loc = nullLocator{name: "<scenario>"}
	}
	v := &validator{loc: loc}
	v.bounds(s)
	if errs := v.result(); len(errs) > 0 {
		return errs
	}
	return nil
}
