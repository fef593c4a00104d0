package engine

// Retention of conversation records (limits.conversation_retention,
// docs/time.md): a clock timer drops ended records older than the
// retention, with their handoff states, at most once a minute while
// records fall due.

import (
	"time"
)

const retentionStep = time.Minute

// armRetention starts a generation's retention timer, if set.
func (a *Engine) armRetention() {
	d := a.View().Scenario().Limits.ConversationRetention.D()
	if d <= 0 {
		return
	}
	gen := a.Generation()
	now := a.clock.Now()
	a.clock.At(a.retentionNext(d, now, now), func(t time.Time) { a.retentionTick(gen, d, t) })
}

// retentionNext is when the oldest record falls due, not before earliest.
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
