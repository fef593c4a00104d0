package scenario

// Scenario blocks of the families: messaging sessions and outbound calling (issue 5).

// ScenarioRealtime is the top-level block of these families.
type ScenarioRealtime struct{}

// AccountRealtime is the account-level block of these families.
type AccountRealtime struct{}

// ProjectRealtime is the project-level block of these families.
type ProjectRealtime struct{}

// realtime validates these families' blocks and fills in their defaults.
func (v *validator) realtime(s *Scenario) {}
