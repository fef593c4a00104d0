package scenario

// Bounds: the largest value of every setting and the most of every list a
// scenario may have (docs/scenarios.md#bounds). Each keeps finite what one
// scenario can make the mock hold in memory or do, so that no setting
// removes a limit. They are checked when a scenario is loaded, each at
// its file:line:column. Clock-driven durations have their own range
// (1s to 8760h).

// Maxima.
const (
	// MaxScenarioBytes bounds a scenario document (a file, an upload to
	// POST /_mock/scenario). Larger data sets are generated (generate:).
	MaxScenarioBytes = 16 << 20
	// MaxAccounts bounds accounts; MaxProjects the projects of all of them.
	MaxAccounts = 1_000
	MaxProjects = 10_000
	// MaxCredentials bounds credentials.
	MaxCredentials = 10_000
	// MaxFaults bounds the fault rules of a scenario.
	MaxFaults = 1_000
	// MaxConversations bounds the conversation records a scenario makes,
	// seeded and generated together (MaxGeneratedConversations bounds one
	// generator alone).
	MaxConversations = MaxGeneratedConversations
	// MaxAlertRules and MaxWebhookEndpoints bound limits.alert_rules and
	// limits.webhook_endpoints (per account).
	MaxAlertRules       = 1_000
	MaxWebhookEndpoints = 100
	// MaxBodyBytes bounds limits.max_body_bytes.
	MaxBodyBytes = 16 << 20
	// MaxJournalSize and MaxJournalBodyBytes bound limits.journal_size and
	// limits.journal_body_bytes.
	MaxJournalSize      = 100_000
	MaxJournalBodyBytes = 1 << 20
	// MaxSessionConnections, MaxMessageBytes and MaxChunkWords bound the
	// messaging block's max_connections, max_message_bytes and
	// chunk_words.
	MaxSessionConnections = 1_000
	MaxMessageBytes       = 16 << 20
	MaxChunkWords         = 1_000
	// MaxWSSendQueueMessages and MaxWSSendQueueBytes bound
	// limits.ws_send_queue_messages and limits.ws_send_queue_bytes.
	MaxWSSendQueueMessages = 100_000
	MaxWSSendQueueBytes    = 64 << 20
	// MaxRateLimitCalls bounds accounts[].outbound.rate_limit.calls.
	MaxRateLimitCalls = 1_000_000
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

// bounds checks the sizes of a scenario's lists and the maxima of its
// settings.
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
}

// CheckBounds checks the bounds of a scenario built in Go (Parse, Load and
// Merge check them with the rest): it returns Errors, positioned when the
// scenario came from a file, or nil.
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
