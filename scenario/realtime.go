package scenario

// Scenario blocks of the families: messaging sessions and outbound calling (issue 5).

import (
	pathpkg "path"
	"slices"
	"time"

	"github.com/agentplatform/mockplatform/faults"
)

// ScenarioRealtime is the top-level block of these families.
type ScenarioRealtime struct {
	// Messaging tunes the messaging sessions (spec 2.2, 3.4, 4.2).
	Messaging *MessagingSettings `yaml:"messaging" json:"messaging,omitempty"`
	// Outbound tunes outbound calling as a whole (spec 3.2).
	Outbound *OutboundSettings `yaml:"outbound" json:"outbound,omitempty"`
}

// MessagingSettings are the instance-wide messaging settings. Zero values
// mean the defaults (filled in by validation).
type MessagingSettings struct {
	// TokenTTL is the lifetime of an access token (default 24h, the real
	// service's expires_in of 86400).
	TokenTTL Duration `yaml:"token_ttl" json:"token_ttl,omitempty"`
	// MaxConnections is the number of concurrent WebSocket connections per
	// session (default 10).
	MaxConnections int `yaml:"max_connections" json:"max_connections,omitempty"`
	// MaxMessageBytes bounds one client WebSocket message (default 131072).
	MaxMessageBytes int64 `yaml:"max_message_bytes" json:"max_message_bytes,omitempty"`
	// ChunkWords is the number of words per streamed chunk (default 3).
	ChunkWords int `yaml:"chunk_words" json:"chunk_words,omitempty"`
}

// OutboundSettings are the instance-wide outbound settings.
type OutboundSettings struct {
	// Retention is how long a call's status stays readable after the call
	// ends (default 2h, spec 3.2).
	Retention Duration `yaml:"retention" json:"retention,omitempty"`
}

// AccountRealtime is the account-level block of these families.
type AccountRealtime struct {
	// Outbound holds the account's outbound calling configuration.
	Outbound *AccountOutbound `yaml:"outbound" json:"outbound,omitempty"`
}

// AccountOutbound is the account's outbound configuration.
type AccountOutbound struct {
	// RateLimit bounds the calls the account may trigger (default:
	// unlimited; spec 8 "depend on account configuration").
	RateLimit *RateLimit `yaml:"rate_limit" json:"rate_limit,omitempty"`
}

// RateLimit allows Calls triggers per sliding Window.
type RateLimit struct {
	// Calls is the number of calls allowed per window (at least 1).
	Calls int `yaml:"calls" json:"calls"`
	// Window is the length of the sliding window (default 1m).
	Window Duration `yaml:"window" json:"window,omitempty"`
}

// ProjectRealtime is the project-level block of these families.
type ProjectRealtime struct {
	// Outbound enables and shapes outbound calls of the project.
	Outbound *ProjectOutbound `yaml:"outbound" json:"outbound,omitempty"`
	// Messaging sets how the agent appears in messaging sessions.
	Messaging *ProjectMessaging `yaml:"messaging" json:"messaging,omitempty"`
}

// ProjectMessaging is the agent's look in messaging sessions.
type ProjectMessaging struct {
	// AgentName is POLY_AGENT_JOINED's agent_name (default: the project name).
	AgentName string `yaml:"agent_name" json:"agent_name,omitempty"`
	// AgentAvatarURL is POLY_AGENT_JOINED's agent_avatar_url (default "").
	AgentAvatarURL string `yaml:"agent_avatar_url" json:"agent_avatar_url,omitempty"`
}

// ProjectOutbound is a project's outbound calling configuration.
type ProjectOutbound struct {
	// Enabled turns outbound calling on for the project (spec 5: "An
	// outbound project also needs outbound calling enabled").
	Enabled bool `yaml:"enabled" json:"enabled"`
	// FromNumber is the caller id of the project's calls (optional).
	FromNumber string `yaml:"from_number" json:"from_number,omitempty"`
	// CallTiming is the default timing of the project's calls.
	CallTiming `yaml:",inline"`
	// Destinations choose the outcome per destination number: the first
	// whose match fits the E.164 number wins; none means answered.
	Destinations []OutboundDestination `yaml:"destinations" json:"destinations,omitempty"`
}

// CallTiming is how long each phase of a call lasts on the virtual clock.
// Zero means the default (or, in a destination, the project's value).
type CallTiming struct {
	// Queue is the time in queued before calling (default 5s).
	Queue Duration `yaml:"queue" json:"queue,omitempty"`
	// Ring is the time in calling before the callee answers or the call
	// fails (default 5s).
	Ring Duration `yaml:"ring" json:"ring,omitempty"`
	// Talk is the length of an answered call before it ends with success
	// (default 25s).
	Talk Duration `yaml:"talk" json:"talk,omitempty"`
}

// Outbound call outcomes.
const (
	OutcomeAnswered     = "answered"
	OutcomeNoAnswer     = "no_answer"
	OutcomeBusy         = "busy"
	OutcomeRejected     = "rejected"
	OutcomeFailed       = "failed"
	OutcomeQueueTimeout = "queue_timeout"
)

// Outcomes lists the outbound call outcomes.
// It is the fault preset table's list (faults.OutboundOutcomes), so that
// outbound.outcome:<outcome> accepts exactly these.
var Outcomes = faults.OutboundOutcomes

// OutboundDestination is the behaviour of the calls to matching numbers.
type OutboundDestination struct {
	// Match is a glob over the E.164 number: "*" matches any run of
	// characters, "?" one character ("*0000", "+44*", "+15550001111").
	Match string `yaml:"match" json:"match"`
	// Outcome is answered (default), no_answer, busy, rejected, failed or
	// queue_timeout (fails straight from queued).
	Outcome string `yaml:"outcome" json:"outcome,omitempty"`
	// Reason overrides the status reason of a failure.
	Reason string `yaml:"reason" json:"reason,omitempty"`
	// CallTiming overrides the project's timing for these calls.
	CallTiming `yaml:",inline"`
}

// Defaults of these families.
const (
	DefaultTokenTTL          = 24 * time.Hour
	DefaultMaxConnections    = 10
	DefaultMaxMessageBytes   = 128 << 10
	DefaultChunkWords        = 3
	DefaultSessionIdle       = 10 * time.Minute
	DefaultOutboundRetention = 2 * time.Hour
	DefaultRateWindow        = time.Minute
	DefaultQueue             = 5 * time.Second
	DefaultRing              = 5 * time.Second
	DefaultTalk              = 25 * time.Second
)

// mergeRealtime merges the top-level blocks of a later file over dst: a
// later file's block replaces an earlier one.
func mergeRealtime(dst *ScenarioRealtime, src ScenarioRealtime) {
	if src.Messaging != nil {
		m := *src.Messaging
		dst.Messaging = &m
	}
	if src.Outbound != nil {
		o := *src.Outbound
		dst.Outbound = &o
	}
}

// MessagingConfig returns the messaging settings with defaults filled in.
func (s *Scenario) MessagingConfig() MessagingSettings {
	var m MessagingSettings
	if s.Messaging != nil {
		m = *s.Messaging
	}
	if m.TokenTTL <= 0 {
		m.TokenTTL = Duration(DefaultTokenTTL)
	}
	if m.MaxConnections <= 0 {
		m.MaxConnections = DefaultMaxConnections
	}
	if m.MaxMessageBytes <= 0 {
		m.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if m.ChunkWords <= 0 {
		m.ChunkWords = DefaultChunkWords
	}
	return m
}

// SessionIdle is the messaging session inactivity expiry (limits.session_idle,
// default 10m).
func (s *Scenario) SessionIdle() time.Duration {
	if d := s.Limits.SessionIdle.D(); d > 0 {
		return d
	}
	return DefaultSessionIdle
}

// OutboundRetention is how long a call's status stays readable after the
// call ends (default 2h).
func (s *Scenario) OutboundRetention() time.Duration {
	if s.Outbound != nil && s.Outbound.Retention > 0 {
		return s.Outbound.Retention.D()
	}
	return DefaultOutboundRetention
}

// Destination returns the first destination whose match fits number, nil
// when none does.
func (o *ProjectOutbound) Destination(number string) *OutboundDestination {
	if o == nil {
		return nil
	}
	for i := range o.Destinations {
		if ok, _ := pathpkg.Match(o.Destinations[i].Match, number); ok {
			return &o.Destinations[i]
		}
	}
	return nil
}

// realtime validates these families' blocks and fills in their defaults.
func (v *validator) realtime(s *Scenario) {
	if s.Limits.SessionIdle < 0 {
		v.reportf(path{"limits", "session_idle"}, "must not be negative")
	}
	if m := s.Messaging; m != nil {
		mp := path{"messaging"}
		v.nonNegative(mp.with("token_ttl"), int64(m.TokenTTL))
		v.nonNegative(mp.with("max_connections"), int64(m.MaxConnections))
		v.nonNegative(mp.with("max_message_bytes"), m.MaxMessageBytes)
		v.nonNegative(mp.with("chunk_words"), int64(m.ChunkWords))
	}
	if s.Outbound != nil {
		v.nonNegative(path{"outbound", "retention"}, int64(s.Outbound.Retention))
	}
	for i := range s.Accounts {
		a := &s.Accounts[i]
		ap := path{"accounts", i}
		if a.Outbound != nil && a.Outbound.RateLimit != nil {
			rl, rp := a.Outbound.RateLimit, ap.with("outbound", "rate_limit")
			if rl.Calls < 1 {
				v.reportf(rp.with("calls"), "must be at least 1")
			}
			v.nonNegative(rp.with("window"), int64(rl.Window))
			if rl.Window == 0 {
				rl.Window = Duration(DefaultRateWindow)
			}
		}
		for j := range a.Projects {
			v.projectOutbound(a.Projects[j].Outbound, ap.with("projects", j, "outbound"))
		}
	}
}

// projectOutbound validates a project's outbound block and fills in the
// default timing.
func (v *validator) projectOutbound(o *ProjectOutbound, p path) {
	if o == nil {
		return
	}
	v.timing(&o.CallTiming, p)
	if o.Queue == 0 {
		o.Queue = Duration(DefaultQueue)
	}
	if o.Ring == 0 {
		o.Ring = Duration(DefaultRing)
	}
	if o.Talk == 0 {
		o.Talk = Duration(DefaultTalk)
	}
	for k := range o.Destinations {
		d, dp := &o.Destinations[k], p.with("destinations", k)
		if d.Match == "" {
			v.reportf(dp.with("match"), "required")
		} else if _, err := pathpkg.Match(d.Match, ""); err != nil {
			v.reportf(dp.with("match"), "invalid pattern %q: %v", d.Match, err)
		}
		switch {
		case d.Outcome == "":
			d.Outcome = OutcomeAnswered
		case !slices.Contains(Outcomes, d.Outcome):
			v.reportf(dp.with("outcome"), "unknown outcome %q (want %s)", d.Outcome, oneOf(Outcomes))
		}
		v.timing(&d.CallTiming, dp)
		if d.Queue == 0 {
			d.Queue = o.Queue
		}
		if d.Ring == 0 {
			d.Ring = o.Ring
		}
		if d.Talk == 0 {
			d.Talk = o.Talk
		}
	}
}

func (v *validator) timing(t *CallTiming, p path) {
	v.nonNegative(p.with("queue"), int64(t.Queue))
	v.nonNegative(p.with("ring"), int64(t.Ring))
	v.nonNegative(p.with("talk"), int64(t.Talk))
}

func (v *validator) nonNegative(p path, n int64) {
	if n < 0 {
		v.reportf(p, "must not be negative")
	}
}
