package convquery

// What the Conversations API's answers show of a record: the project's
// data access and the derived figures (the shapes are the edge's).

import (
	"time"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// DataAccess is what a project's keys may read of its conversation
// records (docs/api.md#conversations-record; docs/fidelity.md M11.8): the
// turns (Transcripts) and the metrics; both unless the project says not.
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

// Durations are total_duration and polyai_duration in whole seconds. The
// mock's agent handles the whole conversation up to its end or handoff, so
// both are equal.
func Durations(c *store.Conversation, now time.Time) (total, polyai int) {
	s := int(c.Duration(now) / time.Second)
	return s, s
}
