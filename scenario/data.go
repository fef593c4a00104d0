package scenario

// Scenario blocks of the families: conversations v1/v2/v3, concurrency, handoff state, number reservation, external events, generators (issue 3).

// ScenarioData is the top-level block of these families.
type ScenarioData struct{}

// AccountData is the account-level block of these families.
type AccountData struct{}

// ProjectData is the project-level block of these families.
type ProjectData struct{}

// dataPlane validates these families' blocks and fills in their defaults.
func (v *validator) dataPlane(s *Scenario) {}
