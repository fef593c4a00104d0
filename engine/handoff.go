package engine

// Handoff state (docs/api.md#handoff; docs/fidelity.md G19): the data a
// handoff stored for a conversation, by id or shared_id.

import (
	"errors"

	"github.com/agentplatform/mockplatform/store"
)

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

// HandoffState is a handoff's stored data, as the Handoff API answers it.
type HandoffState = store.HandoffState

// HandoffState reads the handoff state of p's project by shared id when
// given, else by conversation id.
func (a *Engine) HandoffState(p *Principal, id, sharedID string) (*HandoffState, error) {
	if id == "" && sharedID == "" {
		return nil, &Error{Kind: KindInvalid, Message: MsgHandoffIDRequired}
	}
	hs, err := a.store.GetHandoffState(p.Region, p.Account.ID, p.Project.ID, id, sharedID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, &Error{Kind: KindNotFound, Message: MsgHandoffNotFound}
	}
	return hs, err
}
