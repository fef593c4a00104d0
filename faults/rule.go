// Package faults holds fault rules and decides which one a request meets.
// A rule is data: a match, an action (an error status, a body, a delay, a
// dropped connection or a family's preset), limits by count, a seeded
// probability and, for a windowed rule, a window of virtual time. One
// middleware in handlers applies them.
package faults

import (
	"time"

	"github.com/agentplatform/mockplatform/clock"
)

// Rule is one fault rule. The same type is read from scenario YAML, from
// control-plane JSON and built in Go.
type Rule struct {
	// ID names the rule; Set.Add assigns "fault-N" when empty.
	ID string `yaml:"id" json:"id,omitempty"`
	// Match selects the requests.
	Match Match `yaml:"match" json:"match"`
	// Action is what happens to a matched request.
	Action Action `yaml:"action" json:"action"`
	// Times limits how often the rule fires (0: unlimited).
	Times int `yaml:"times" json:"times,omitempty"`
	// After lets the first N matching requests through before the rule
	// starts firing.
	After int `yaml:"after" json:"after,omitempty"`
	// Probability fires the rule with this seeded probability, in (0, 1]
	// (0: always).
	Probability float64 `yaml:"probability" json:"probability,omitempty"`
}

// Match selects requests. Empty parts match anything.
type Match struct {
	// Family is a family name: chat, messaging, agents, alerts, webhooks,
	// conversations, concurrency, outbound, external_events, dni, handoff.
	Family string `yaml:"family" json:"family,omitempty"`
	// Method is an HTTP method (case-insensitive).
	Method string `yaml:"method" json:"method,omitempty"`
	// Path is a pattern over the path below the family's base address,
	// e.g. "/v1/*/*/chat/respond": "*" matches one segment, "**" any
	// number of segments (including none).
	Path string `yaml:"path" json:"path,omitempty"`
	// Region restricts to one region ("us-1", "us", ...).
	Region string `yaml:"region" json:"region,omitempty"`
	// Headers must all be present with these values (names are
	// case-insensitive; a value "*" only requires presence).
	Headers map[string]string `yaml:"headers" json:"headers,omitempty"`
	// Query parameters must all be present with these values ("*": any).
	Query map[string]string `yaml:"query" json:"query,omitempty"`
}

// Action is what a rule does to a matched request.
type Action struct {
	// Status answers with this status in the family's error body.
	Status int `yaml:"status" json:"status,omitempty"`
	// Code is the error code of the family body (e.g. CHAT_TIMEOUT); a
	// default code for the status is used when empty.
	Code string `yaml:"code" json:"code,omitempty"`
	// Message is the error message of the family body; a default message
	// for the status is used when empty.
	Message string `yaml:"message" json:"message,omitempty"`
	// Body replaces the family body verbatim (sent as application/json).
	Body string `yaml:"body" json:"body,omitempty"`
	// Headers are added to the response (e.g. Retry-After).
	Headers map[string]string `yaml:"headers" json:"headers,omitempty"`
	// Delay holds the request before it is handled or answered.
	Delay clock.Duration `yaml:"delay" json:"delay,omitempty"`
	// DelayClock is "real" (wall time; default) or "virtual" (the delay
	// advances the instance's virtual clock, firing due timers).
	DelayClock string `yaml:"delay_clock" json:"delay_clock,omitempty"`
	// Drop closes the connection without an answer.
	Drop bool `yaml:"drop" json:"drop,omitempty"`
	// Preset names a family's own failure mode (see Presets).
	Preset string `yaml:"preset" json:"preset,omitempty"`
}

// Request is what a rule is matched against.
type Request struct {
	Family string
	Method string
	// Path is the path below the family's base address.
	Path   string
	Region string
	Header func(name string) string
	Query  func(name string) (string, bool)
	// Time is the request's virtual time; windowed rules compare it with
	// their window (a zero Time meets none of them).
	Time time.Time
}

// Status is a rule with its counters, as listed by Set.List.
type Status struct {
	Rule
	// Matched counts requests that met the match.
	Matched int `json:"matched"`
	// Fired counts requests the action was applied to.
	Fired int `json:"fired"`
	// Exhausted reports that Times is used up (for a windowed rule, in
	// the span of its window that counted last).
	Exhausted bool `json:"exhausted"`
	// Window is the window of a windowed rule (absent: the rule always
	// holds).
	Window *Window `json:"window,omitempty"`
}
