package mockplatform

// Control-plane operation of the scenario's timeline (docs/timeline.md).

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/journal"
)

// TimelineStatus is the scenario's timeline at a time: each entry with its
// last and next firing and what its steps did since the last reset.
type TimelineStatus = engine.TimelineStatus

// TimelineEntryStatus is one entry of the timeline at a time.
type TimelineEntryStatus = engine.TimelineEntryStatus

// TimelineStep is the step of the timeline a journal entry stands for.
type TimelineStep = journal.TimelineStep

// Timeline is the scenario's timeline now. Its entries fire inside the
// Advance that makes them due.
func (p *Platform) Timeline() TimelineStatus { return p.api.Timeline() }

// handleControlTimeline handles "GET /_mock/timeline".
func (p *Platform) handleControlTimeline(c *gin.Context) {
	c.JSON(http.StatusOK, p.Timeline())
}
