package scenario

import "time"

// Bounds of every clock-driven duration (timer cadences, expiries): below
// the minimum an Advance would fire timers without end; above the maximum
// is surely a typo. Zero (unset) means the default.
const (
	MinClockSetting = time.Second
	MaxClockSetting = 8760 * time.Hour
)

// clockSetting reports a clock-driven duration out of its bounds; zero
// passes.
func (v *validator) clockSetting(p path, d Duration) {
	if d != 0 && (d.D() < MinClockSetting || d.D() > MaxClockSetting) {
		v.reportf(p, "must be from 1s to 8760h (a year); leave it out for the default")
	}
}
