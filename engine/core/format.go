package core

// The builder families' validation error and time formats, the optional
// fields of request bodies and what a conversation record is.

import (
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/store"
)

// Builder error messages and codes that tests compare.
const (
	MsgValidationFailed = "Validation failed"
	CodeValidation      = "VALIDATION_ERROR"
)

// DeployEnvs are the client environments along the deployment path
// (docs/api.md#agents-deployments): a deployment goes from sandbox to
// pre-release to live.
var DeployEnvs = []string{"sandbox", "pre-release", "live"}

// Time formats of the builder families.
const (
	// alertTime is the alerts and webhooks form: 2024-03-15T10:30:00Z (docs/api.md#ids).
	alertTime = "2006-01-02T15:04:05Z"
	// agentTime is the Agents API form: 2026-05-11T22:18:27.225Z (docs/api.md#ids).
	agentTime = "2006-01-02T15:04:05.000Z"
)

// FmtAlertTime formats a time as the alerts and webhooks families do.
func FmtAlertTime(t time.Time) string { return t.UTC().Format(alertTime) }

// FmtAlertTimePtr is FmtAlertTime of a time that may be absent.
func FmtAlertTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := FmtAlertTime(*t)
	return &s
}

// IsoTime formats a timestamp as ISO 8601 in UTC (RFC 3339, fractional
// seconds only when present).
func IsoTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// FmtAgentTime formats a time as the Agents API does.
func FmtAgentTime(t time.Time) string { return t.UTC().Format(agentTime) }

// Deref is the value of an optional string field ("" when absent).
func Deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// IsVoice reports whether a conversation is a phone call: its analytics
// channel is VOICE-SIP or another VOICE-* label
// (docs/api.md#conversations-record).
func IsVoice(conv *store.Conversation) bool { return strings.HasPrefix(conv.Channel, "VOICE") }
