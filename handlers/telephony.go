package handlers

// Telephony of the Agents API (docs/api.md#agents-connectors,
// docs/api.md#agents-numbers, docs/api.md#agents-inbound; docs/fidelity.md
// G13, M12.12-M12.16); the domain is engine/telephony's.

import "encoding/json"

// stringList reads a required, non-empty array of strings.
func stringList(f *fieldBody, name string) ([]string, bool) {
	if !f.require(name) {
		return nil, false
	}
	var list []string
	if err := json.Unmarshal(f.raw[name], &list); err != nil || list == nil {
		f.fail(name, "must be an array of strings")
		return nil, false
	}
	if len(list) == 0 {
		f.fail(name, "must have at least 1 item")
		return nil, false
	}
	return list, true
}
