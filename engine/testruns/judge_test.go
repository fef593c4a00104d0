package testruns

import (
	"testing"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// TestJudge: a case passes when every assertion holds, fails when one
// does not, and is an error when its conversation ended before its last
// message; a case without messages is judged on the greeting.
func TestJudge(t *testing.T) {
	t.Parallel()
	conv := &store.Conversation{ID: "AS_CHAT_x", Turns: []store.Turn{
		{AgentResponse: "Hello."},
		{UserInput: "hours?", AgentResponse: "We open at 9am.", Intents: []string{"opening_hours"}},
	}}
	reply := func(s string) scenario.TestAssertion { return scenario.TestAssertion{ReplyContains: s} }
	call := func(s string) scenario.TestAssertion { return scenario.TestAssertion{FunctionCall: s} }
	for _, tc := range []struct {
		name       string
		turns      []string
		said       int
		assertions []scenario.TestAssertion
		status     string
		failures   int
	}{
		{"passes", []string{"hours?"}, 1, []scenario.TestAssertion{reply("9AM"), call("opening_hours")}, testPassed, 0},
		{"a reply is missing", []string{"hours?"}, 1, []scenario.TestAssertion{reply("refund")}, testFailed, 0},
		{"a rule did not answer", []string{"hours?"}, 1, []scenario.TestAssertion{call("refunds")}, testFailed, 1},
		{"ended early", []string{"hours?", "more?"}, 1, []scenario.TestAssertion{reply("9am")}, testError, 0},
		{"no messages", nil, 0, []scenario.TestAssertion{reply("hello")}, testPassed, 0},
	} {
		c := &caseRun{Turns: tc.turns, Said: tc.said, Assertions: tc.assertions}
		c.judge(conv)
		if c.Status != tc.status || len(c.Results.FunctionCallFailures) != tc.failures || c.Raw.ID != conv.ID || len(c.Raw.Turns) != 2 {
			t.Errorf("%s: status %s, results %+v, raw %+v", tc.name, c.Status, c.Results, c.Raw)
		}
	}
}
