package core

import (
	"fmt"
	"net/http"
)

// Kind is the kind of an API error; kindStatus maps it to a status.
type Kind int

// Error kinds.
const (
	KindInvalid Kind = iota + 1
	KindUnauthorized
	KindForbidden
	KindNotFound
	KindMethodNotAllowed
	KindConflict
	KindGone
	KindPrecondition
	KindTooLarge
	KindUnsupportedMedia
	KindUnprocessable
	KindTooManyRequests
	KindInternal
	KindNotImplemented
	KindBadGateway
	KindUnavailable
)

var kindStatus = map[Kind]int{
	KindInvalid:          http.StatusBadRequest,
	KindUnauthorized:     http.StatusUnauthorized,
	KindForbidden:        http.StatusForbidden,
	KindNotFound:         http.StatusNotFound,
	KindMethodNotAllowed: http.StatusMethodNotAllowed,
	KindConflict:         http.StatusConflict,
	KindGone:             http.StatusGone,
	KindPrecondition:     http.StatusPreconditionFailed,
	KindTooLarge:         http.StatusRequestEntityTooLarge,
	KindUnsupportedMedia: http.StatusUnsupportedMediaType,
	KindUnprocessable:    http.StatusUnprocessableEntity,
	KindTooManyRequests:  http.StatusTooManyRequests,
	KindInternal:         http.StatusInternalServerError,
	KindNotImplemented:   http.StatusNotImplemented,
	KindBadGateway:       http.StatusBadGateway,
	KindUnavailable:      http.StatusServiceUnavailable,
}

// defaultCodes are the envelope codes of errors that name none.
var defaultCodes = map[int]string{
	400: "BAD_REQUEST",
	401: "UNAUTHORIZED",
	403: "FORBIDDEN",
	404: "NOT_FOUND",
	405: "METHOD_NOT_ALLOWED",
	408: "REQUEST_TIMEOUT",
	409: "CONFLICT",
	410: "GONE",
	412: "PRECONDITION_FAILED",
	413: "PAYLOAD_TOO_LARGE",
	415: "UNSUPPORTED_MEDIA_TYPE",
	422: "UNPROCESSABLE_ENTITY",
	429: "TOO_MANY_REQUESTS",
	500: "INTERNAL_SERVER_ERROR",
	501: "NOT_IMPLEMENTED",
	502: "BAD_GATEWAY",
	503: "SERVICE_UNAVAILABLE",
	504: "GATEWAY_TIMEOUT",
}

// FieldError is one per-field problem (agents, alerts and webhooks bodies).
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is the error value handlers return, rendered in the family's shape.
type Error struct {
	Kind Kind
	// Status overrides the status of Kind (fault rules use any status).
	Status int
	// Code is the envelope families' upper-snake error code.
	Code string
	// Message is the human-readable message.
	Message string
	// Fields are per-field problems.
	Fields []FieldError
	// Headers are added to the response (e.g. Retry-After).
	Headers map[string]string
	// Body, when set, is written verbatim instead of a rendered body.
	Body []byte
}

func (e *Error) Error() string {
	if e.Code != "" {
		return fmt.Sprintf("%d %s: %s", e.HttpStatus(), e.Code, e.Message)
	}
	return fmt.Sprintf("%d: %s", e.HttpStatus(), e.Message)
}

func (e *Error) HttpStatus() int {
	if e.Status != 0 {
		return e.Status
	}
	if s, ok := kindStatus[e.Kind]; ok {
		return s
	}
	return http.StatusInternalServerError
}

func (e *Error) ErrorCode() string {
	if e.Code != "" {
		return e.Code
	}
	if c, ok := defaultCodes[e.HttpStatus()]; ok {
		return c
	}
	return "ERROR"
}

// Errf builds an Error of a kind with an envelope code and a message.
func Errf(kind Kind, code, format string, args ...any) *Error {
	return &Error{Kind: kind, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid is a 400 with per-field errors (builder families) and a message.
func Invalid(code, msg string, fields ...FieldError) *Error {
	return &Error{Kind: KindInvalid, Code: code, Message: msg, Fields: fields}
}
