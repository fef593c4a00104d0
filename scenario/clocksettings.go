package scenario

import "time"

// Bounds of every clock-driven setting: the durations that arm timers of
// the virtual clock or decide when something expires (alerts.
// evaluation_interval, limits.session_idle, limits.conversation_retention,
// messaging.token_ttl,
// outbound.retention, accounts[].outbound.rate_limit.window,
// projects[].dni.window, and the outbound call timing queue, ring and
// talk of projects and destinations). A value below the minimum would make
// an Advance fire timers without end (an evaluation every nanosecond); one
// above the maximum is surely a typo. Zero (unset) means the default.
const (
	MinClockSetting = time.Second
	MaxClockSetting = 8760 * time.Hour
)

// clockSetting reports a clock-driven duration outside [MinClockSetting,
// MaxClockSetting]; zero passes (the default applies).
func (v *validator) clockSetting(p path, d Duration) {
	if d != 0 && (d.D() < MinClockSetting || d.D() > MaxClockSetting) {
		v.reportf(p, "must be from 1s to 8760h (a year); leave it out for the default")
	}
}
