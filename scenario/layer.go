package scenario

// Layers: a scenario without accounts adds to a base scenario instead of
// replacing it (docs/scenarios.md#layers).

// DefaultAlias names the built-in scenario where a scenario file is named.
const DefaultAlias = "default"

// IsLayer reports whether s is a layer: a scenario without accounts.
func (s *Scenario) IsLayer() bool { return s != nil && len(s.Accounts) == 0 }

// Compose merges scenarios in order, on top of base (nil: the built-in
// one) when all are layers. An empty list gives nil.
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
