package faults

// testVoc is the vocabulary of this package's tests: a few families and a
// preset of each argument kind (the platform's own comes from its family
// table).
var testVoc = &Vocabulary{
	Families: []string{"chat", "messaging", "agents", "alerts", "outbound", "external_events", "dni"},
	Presets: []Preset{
		{Name: "alerts_limit", Family: "alerts"},
		{Name: "messaging.expire_session_after", Family: "messaging", Arg: ArgCount},
		{Name: "messaging.drop_socket", Family: "messaging"},
		{Name: "messaging.delay_chunks", Family: "messaging", Arg: ArgDuration},
		{Name: "outbound.outcome", Family: "outbound", Arg: ArgOneOf, Values: []string{"answered", "busy"}},
	},
}

// newSet is a set of testVoc.
func newSet(seed int64) *Set { return NewSet(testVoc, seed) }
