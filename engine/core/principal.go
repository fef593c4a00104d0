package core

import (
	"github.com/agentplatform/mockplatform/scenario"
)

// Principal is who an authenticated request acts as: the credential and
// its account and project.
type Principal struct {
	Cred    *scenario.Credential
	Account *scenario.Account
	// Project is the path's or the credential's project (nil: account-wide).
	Project *scenario.Project
	// Region is the region pair (us, uk, eu).
	Region string
	// Connector is the chat connector token (X-TOKEN), chat only.
	Connector *scenario.Credential
}
