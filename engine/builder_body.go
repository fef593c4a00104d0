package engine

// Body helpers of the builder families (agents, alerts, webhooks): these
// bodies report every bad field at once, one errors[] entry per field
// (docs/api.md#agents-errors, docs/api.md#alerts-errors), so they are read
// field by field rather than by one json.Unmarshal.

import (
	"time"
)

// Builder error messages and codes that tests compare.
const (
	MsgValidationFailed = "Validation failed"
	CodeValidation      = "VALIDATION_ERROR"
)

func ContainsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Time formats of the builder families.
const (
	// alertTime is the alerts and webhooks form: 2024-03-15T10:30:00Z (docs/api.md#ids).
	alertTime = "2006-01-02T15:04:05Z"
	// agentTime is the Agents API form: 2026-05-11T22:18:27.225Z (docs/api.md#ids).
	agentTime = "2006-01-02T15:04:05.000Z"
)

func FmtAlertTime(t time.Time) string { return t.UTC().Format(alertTime) }

func FmtAlertTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := FmtAlertTime(*t)
	return &s
}

func FmtAgentTime(t time.Time) string { return t.UTC().Format(agentTime) }
