package engine

// Handoff state (docs/api.md#handoff; docs/fidelity.md G19): the data a
// dialogue's handoff action (or a scenario) stored for a conversation. A
// request names the conversation by id, by shared_id, or both: one of them
// is needed, and shared_id decides when both are given.

// Handoff messages (docs/fidelity.md G18 detail; the texts are [INF]).
const (
	MsgHandoffIDRequired = "Either id or shared_id is required."
	MsgHandoffNotFound   = "No handoff state found."
)

type HandoffResponse struct {
	ID       string         `json:"id"`
	SharedID string         `json:"shared_id,omitempty"`
	Data     map[string]any `json:"data"`
}
