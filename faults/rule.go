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

// Rule is one fault rule, read from scenario YAML, control-plane JSON or
// built in Go.
type Rule struct {
	// ID names the rule; Set.Add assigns "fault-N" when empty.
	ID     string `yaml:"id" json:"id,omitempty"`
	Match  Match  `yaml:"match" json:"match"`
	Action Action `yaml:"action" json:"action"`
	// Times limits how often the rule fires (0: unlimited).
	Times int `yaml:"times" json:"times,omitempty"`
	// After lets the first N matching requests through.
	After int `yaml:"after" json:"after,omitempty"`
	// Probability fires the rule with this seeded probability (0: always).
	Probability float64 `yaml:"probability" json:"probability,omitempty"`
}

// Match selects requests. Empty parts match anything.
type Match struct {
	// Family is a family name (chat, messaging, ...).
	Family string `yaml:"family" json:"family,omitempty"`
	Method string `yaml:"method" json:"method,omitempty"`
	// Path is a pattern below the family's base address: "*" matches one
	// segment, "**" any number.
	Path string `yaml:"path" json:"path,omitempty"`
	// Region restricts to one region ("us-1", "us").
	Region string `yaml:"region" json:"region,omitempty"`
	// Headers must all be present with these values ("*": any value).
	Headers map[string]string `yaml:"headers" json:"headers,omitempty"`
	Query   map[string]string `yaml:"query" json:"query,omitempty"`
}

// Action is what a rule does to a matched request.
type Action struct {
	// Status answers with this status in the family's error body.
	Status int `yaml:"status" json:"status,omitempty"`
	// Code and Message fill the family body (defaults by status when empty).
	Code    string `yaml:"code" json:"code,omitempty"`
	Message string `yaml:"message" json:"message,omitempty"`
	// Body replaces the family body verbatim (as application/json).
	Body    string            `yaml:"body" json:"body,omitempty"`
	Headers map[string]string `yaml:"headers" json:"headers,omitempty"`
	Delay   clock.Duration    `yaml:"delay" json:"delay,omitempty"`
	// DelayClock is "real" (wall time; default) or "virtual" (the delay
	// advances the virtual clock, firing due timers).
	DelayClock string `yaml:"delay_clock" json:"delay_clock,omitempty"`
	Drop       bool   `yaml:"drop" json:"drop,omitempty"`
	Preset     string `yaml:"preset" json:"preset,omitempty"`
}

// Request is what a rule is matched against.
type Request struct {
	Family string
	Method string
	Path   string
	Region string
	Header func(name string) string
	Query  func(name string) (string, bool)
	// Time is the request's virtual time, for windowed rules (zero meets
	// none).
	Time time.Time
}

// Status is a rule with its counters, as listed by Set.List.
type Status struct {
	Rule
	Matched int `json:"matched"`
	Fired   int `json:"fired"`
	// Exhausted reports that Times is used up (in a window's last span).
	Exhausted bool `json:"exhausted"`
	// Window is a windowed rule's window.
	Window *Window `json:"window,omitempty"`
}
