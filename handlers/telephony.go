package handlers

// Telephony of the Agents API: connectors and phone numbers
// (docs/api.md#agents-connectors, docs/api.md#agents-numbers,
// docs/api.md#agents-inbound; docs/fidelity.md G13, M12.12-M12.16). The
// routes are in telephony_connectors.go and telephony_numbers.go; the
// domain and its storage in engine/telephony, inbound calls in the
// engine's telephony.go.

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
