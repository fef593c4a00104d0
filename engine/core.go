package engine

// Names of package core re-exported for the engine's files and the edge.

import (
	"time"

	"github.com/agentplatform/mockplatform/engine/core"
)

type (
	Kind       = core.Kind
	Error      = core.Error
	FieldError = core.FieldError
	FieldRule  = core.FieldRule
	Fidelity   = core.Fidelity
	Principal  = core.Principal
)

// Error kinds.
const (
	KindInvalid          = core.KindInvalid
	KindUnauthorized     = core.KindUnauthorized
	KindForbidden        = core.KindForbidden
	KindNotFound         = core.KindNotFound
	KindMethodNotAllowed = core.KindMethodNotAllowed
	KindConflict         = core.KindConflict
	KindGone             = core.KindGone
	KindPrecondition     = core.KindPrecondition
	KindTooLarge         = core.KindTooLarge
	KindUnsupportedMedia = core.KindUnsupportedMedia
	KindUnprocessable    = core.KindUnprocessable
	KindTooManyRequests  = core.KindTooManyRequests
	KindInternal         = core.KindInternal
	KindNotImplemented   = core.KindNotImplemented
	KindBadGateway       = core.KindBadGateway
	KindUnavailable      = core.KindUnavailable
)

// The builder families' validation error, the default body limit and
// the id alphabets.
const (
	MsgValidationFailed = core.MsgValidationFailed
	CodeValidation      = core.CodeValidation

	DefaultMaxBodyBytes = core.DefaultMaxBodyBytes

	digits = core.Digits
	Base62 = core.Base62
)

// Errf builds an Error of a kind with an envelope code and a message.
func Errf(kind Kind, code, format string, args ...any) *Error {
	return core.Errf(kind, code, format, args...)
}

// Invalid is a 400 with per-field errors (builder families) and a message.
func Invalid(code, msg string, fields ...FieldError) *Error {
	return core.Invalid(code, msg, fields...)
}

// BodyFields lists the json names of a body type's fields, in order.
func BodyFields(body any) []string { return core.BodyFields(body) }

// I64 is a bound of a FieldRule or Param.
func I64(v int64) *int64 { return core.I64(v) }

// Deref is the value of an optional string field ("" when absent).
func Deref(s *string) string { return core.Deref(s) }

// FmtAlertTime formats a time as the alerts and webhooks families do.
func FmtAlertTime(t time.Time) string { return core.FmtAlertTime(t) }

// FmtAlertTimePtr is FmtAlertTime of a time that may be absent.
func FmtAlertTimePtr(t *time.Time) *string { return core.FmtAlertTimePtr(t) }

// FmtAgentTime formats a time as the Agents API does.
func FmtAgentTime(t time.Time) string { return core.FmtAgentTime(t) }

// IsoTime formats a time as RFC 3339 in UTC.
func IsoTime(t time.Time) string { return core.IsoTime(t) }

// FormatUUIDBits formats 128 bits as a UUID.
func FormatUUIDBits(hi, lo uint64) string { return core.FormatUUIDBits(hi, lo) }
