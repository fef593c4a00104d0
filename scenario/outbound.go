package scenario

// The outbound blocks: retention, rate limits and call plans.

import (
	pathpkg "path"
	"slices"
	"time"
)

// OutboundSettings are the instance-wide outbound settings.
type OutboundSettings struct {
	// Retention is how long a call's status stays readable after the call
	// ends (default 2h).
	Retention Duration `yaml:"retention" json:"retention,omitempty"`
}

// AccountOutbound is the account's outbound configuration.
type AccountOutbound struct {
	// RateLimit bounds the calls the account may trigger (default:
	// unlimited).
	RateLimit *RateLimit `yaml:"rate_limit" json:"rate_limit,omitempty"`
}

// RateLimit allows Calls triggers per sliding Window.
type RateLimit struct {
	// Calls is the number of calls allowed per window (at least 1).
	Calls int `yaml:"calls" json:"calls"`
	// Window is the length of the sliding window (default 1m).
	Window Duration `yaml:"window" json:"window,omitempty"`
}

// ProjectOutbound is a project's outbound calling configuration.
type ProjectOutbound struct {
	// Enabled turns outbound calling on for the project (an outbound
	// token alone is not enough).
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
var Outcomes = []string{OutcomeAnswered, OutcomeNoAnswer, OutcomeBusy, OutcomeRejected, OutcomeFailed, OutcomeQueueTimeout}

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

// Outbound defaults.
const (
	DefaultOutboundRetention = 2 * time.Hour
	DefaultRateWindow        = time.Minute
	DefaultQueue             = 5 * time.Second
	DefaultRing              = 5 * time.Second
	DefaultTalk              = 25 * time.Second
)

// mergeOutbound lets a later file's outbound block replace dst's.
func mergeOutbound(dst *Scenario, src *Scenario) {
	if src.Outbound != nil {
		o := *src.Outbound
		dst.Outbound = &o
	}
}

// OutboundRetention is how long a call's status stays readable.
func (s *Scenario) OutboundRetention() time.Duration {
	if s.Outbound != nil && s.Outbound.Retention > 0 {
		return s.Outbound.Retention.D()
	}
	return DefaultOutboundRetention
}

// Destination returns the first destination whose match fits number, or nil.
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

// outbound validates the outbound blocks and fills in their defaults.
func (v *validator) outbound(s *Scenario) {
	if s.Outbound != nil {
		v.clockSetting(path{"outbound", "retention"}, s.Outbound.Retention)
	}
	for i := range s.Accounts {
		a := &s.Accounts[i]
		ap := path{"accounts", i}
		if a.Outbound != nil && a.Outbound.RateLimit != nil {
			rl, rp := a.Outbound.RateLimit, ap.with("outbound", "rate_limit")
			if rl.Calls < 1 {
				v.reportf(rp.with("calls"), "must be at least 1")
			}
			v.clockSetting(rp.with("window"), rl.Window)
			if rl.Window == 0 {
				rl.Window = Duration(DefaultRateWindow)
			}
		}
		for j := range a.Projects {
			v.projectOutbound(a.Projects[j].Outbound, ap.with("projects", j, "outbound"))
		}
	}
}

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
	v.clockSetting(p.with("queue"), t.Queue)
	v.clockSetting(p.with("ring"), t.Ring)
	v.clockSetting(p.with("talk"), t.Talk)
}
