package engine

// The messaging WebSocket (docs/api.md#messaging-ws; docs/fidelity.md G12):
// history batches with replay from a cursor, the five client events, echoes,
// agent join, thinking, agent messages or streamed chunks, handoff and
// session end, system messages, heartbeats, the per-session connection limit,
// the message size limit and session expiry on the virtual clock.
//
// Each socket has a reader (the goroutine that handles client events in
// order) and a writer with an unbounded queue, so that a slow or faulty
// socket never holds up its session. Both are counted in the API's wait
// group: the HTTP handler returns once the socket is accepted, and
// API.Close ends them, the writer first sending a close frame 1001 (going
// away) with the reason "server shutting down".

import (
	"github.com/agentplatform/mockplatform/scenario"
)

// sessionVariant is the token's variant, else the project's default.
func SessionVariant(proj *scenario.Project, id string) *scenario.Variant {
	if v := proj.Variant(id); v != nil {
		return v
	}
	for i := range proj.Variants {
		if proj.Variants[i].Default {
			return &proj.Variants[i]
		}
	}
	return nil
}
