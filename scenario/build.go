package scenario

// Scenario blocks of the families: agents, deployments, real-time configs, alert rules, webhook endpoints (issue 4).

// ScenarioBuild is the top-level block of these families.
type ScenarioBuild struct{}

// AccountBuild is the account-level block of these families.
type AccountBuild struct{}

// ProjectBuild is the project-level block of these families.
type ProjectBuild struct{}

// buildPlane validates these families' blocks and fills in their defaults.
func (v *validator) buildPlane(s *Scenario) {}
