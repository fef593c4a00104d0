package core

// Who a request acts as: the edge authenticates it and hands the engine
// the principal.

import (
	"github.com/agentplatform/mockplatform/scenario"
)

// Principal is who a request acts as, once authenticated: the credential and
// the account and project it resolved to.
type Principal struct {
	Cred    *scenario.Credential
	Account *scenario.Account
	// Project is the path's project, or the credential's when the path
	// names none (nil for account-wide keys on account-wide routes).
	Project *scenario.Project
	// Region is the region pair (us, uk, eu).
	Region string
	// Connector is the chat connector token (X-TOKEN), chat only.
	Connector *scenario.Credential
}
