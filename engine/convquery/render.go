package convquery

import (
	"time"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// DataAccess is what a project's keys may read of its records: turns and
// metrics (docs/fidelity.md M11.8).
type DataAccess struct{ Transcripts, Metrics bool }

// DataAccessOf is the data access of a project.
func DataAccessOf(p *scenario.Project) DataAccess {
	acc := DataAccess{Transcripts: true, Metrics: true}
	if p != nil && p.DataAccess != nil {
		if p.DataAccess.Transcripts != nil {
			acc.Transcripts = *p.DataAccess.Transcripts
		}
		if p.DataAccess.Metrics != nil {
			acc.Metrics = *p.DataAccess.Metrics
		}
	}
	return acc
}

// Durations are total_duration and polyai_duration in whole seconds, equal
// since the mock's agent handles the whole conversation.
func Durations(c *store.Conversation, now time.Time) (total, polyai int) {
	s := int(c.Duration(now) / time.Second)
	return s, s
}
