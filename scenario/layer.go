package scenario

// Layers: a scenario without accounts (only faults, limits, fidelity
// switches, webhook or messaging settings, a name, a seed or a start) adds
// to a base scenario instead of replacing it (docs/scenarios.md#layers).

// DefaultAlias is the name that stands for the built-in scenario where a
// scenario file is named (mockd --scenario default, mockd scenario default).
const DefaultAlias = "default"

// IsLayer reports whether s is a layer: a scenario without accounts.
func (s *Scenario) IsLayer() bool { return s != nil && len(s.Accounts) == 0 }

// Compose is the scenario a list of scenarios gives: them merged in order,
// on top of base when every one of them is a layer (base nil: the built-in
// scenario). An empty list gives nil (the caller's own default applies).
func (voc *Vocabulary) Compose(base *Scenario, list ...*Scenario) (*Scenario, error) {
	layers := 0
	for _, s := range list {
		if s.IsLayer() {
			layers++
		}
	}
	if layers > 0 && layers == len(list) {
		for _, s := range list { // bounds are reported at the layer's own positions
			if err := CheckBounds(s); err != nil {
				return nil, err
			}
		}
		if base == nil {
			base = voc.Default()
		}
		list = append([]*Scenario{base}, list...)
	}
	switch len(list) {
	case 0:
		return nil, nil
	case 1:
		return list[0], nil
	}
	return voc.Merge(list...)
}
