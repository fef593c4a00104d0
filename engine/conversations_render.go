package engine

// The answer shapes of the Conversations API: v3 and v2 (one shape) and
// v1, rendered from the one conversation record, with the project's data
// access switches (transcripts, metrics) applied.

import (
	"time"
)

// isoTime formats a timestamp as ISO 8601 in UTC (RFC 3339, fractional
// seconds only when present).
func IsoTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
