package handlers

import "github.com/agentplatform/mockplatform/store"

// script returns what the agent of a conversation answers from: the
// project's dialogue of the scenario and its real-time variables.
//
// It runs inside store transactions (converse), so it must not call the
// store: whatever it reads must be held in memory.
func (a *API) script(conv *store.Conversation) runtimeScript {
	w := a.world()
	acct := w.account(conv.AccountID)
	if acct == nil {
		return runtimeScript{Dialogue: &emptyDialogue}
	}
	proj := acct.Project(conv.ProjectID)
	if proj == nil {
		return runtimeScript{Dialogue: &emptyDialogue}
	}
	return runtimeScript{Dialogue: &proj.Dialogue}
}
