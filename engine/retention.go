package engine

// Retention of conversation records (limits.conversation_retention,
// docs/time.md): a timer of the virtual clock drops the records that
// started more than the retention before now and have ended, with their
// handoff states, inside the Advance that makes them due. It fires when
// the oldest record falls due, and at most once a minute (once per
// retention when it is shorter) while records keep falling due, so a
// record goes within a minute of its horizon; with nothing stored it
// sleeps a whole retention. Without the setting nothing is dropped and no
// timer runs.

import (
	"time"
)

// retentionStep is the least time between two retention passes.
const retentionStep = time.Minute

// armRetention starts the retention timer of a reset generation, when
// the scenario sets a retention.
func (a *Engine) armRetention() {
	d := a.View().Scenario().Limits.ConversationRetention.D()
	if d <= 0 {
		return
	}
	gen := a.Generation()
	now := a.clock.Now()
	a.clock.At(a.retentionNext(d, now, now), func(t time.Time) { a.retentionTick(gen, d, t) })
}

// retentionNext is when the next retention pass is due after one at now:
// when the oldest record falls due, but not before `earliest`.
func (a *Engine) retentionNext(d time.Duration, now, earliest time.Time) time.Time {
	oldest, ok, err := a.store.OldestConversationStart()
	if err != nil || !ok {
		return now.Add(d) // a record written from now on is due a retention later at the earliest
	}
	next := oldest.Add(d)
	if next.Before(earliest) {
		next = earliest
	}
	return next
}

// retentionTick is one retention pass; it arms the next.
func (a *Engine) retentionTick(gen uint64, d time.Duration, now time.Time) {
	if a.Generation() != gen || a.bg.Err() != nil {
		return
	}
	a.RecordClockEvent(ClockConversationsRetention)
	n, err := a.store.DropConversationsBefore(now.Add(-d))
	if err != nil {
		a.Log.Error("retention", "err", err)
	} else if n > 0 {
		a.Log.Debug("retention: conversation records dropped", "records", n, "before", now.Add(-d))
	}
	a.clock.At(a.retentionNext(d, now, now.Add(min(retentionStep, d))), func(t time.Time) { a.retentionTick(gen, d, t) })
}
