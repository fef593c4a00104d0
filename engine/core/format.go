package core

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

// DeployEnvs are the client environments in deployment order
// (docs/api.md#agents-deployments).
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

// IsoTime formats a time as RFC 3339 in UTC.
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

// IsVoice reports whether a conversation is a phone call (channel VOICE*).
func IsVoice(conv *store.Conversation) bool { return strings.HasPrefix(conv.Channel, "VOICE") }
