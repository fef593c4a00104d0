package handlers

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentplatform/mockplatform/store"
)

// A call through a connector with disableHandoff (docs/api.md#agents-inbound)
// is not handed off: the agent says the rule's reply, the call goes on and no
// handoff state is written. The same rule hands off a call of a connector
// that allows handoff.
func TestConnectorDisableHandoff(t *testing.T) {
	t.Parallel()
	y := strings.Replace(defaultYAML(t), "            phone_numbers: [\"+14155550150\"]\n",
		"            phone_numbers: [\"+14155550150\"]\n"+
			"          - id: CONNECTOR-00000002\n            name: No transfers\n            client_env: live\n"+
			"            disable_handoff: true\n            phone_numbers: [\"+14155550151\"]\n", 1)
	h := newHarness(t, y)
	for _, tc := range []struct {
		number  string
		handoff bool
	}{{"+14155550151", false}, {"+14155550150", true}} {
		call, err := h.api.CallNumber(tc.number, "+447700900123")
		if err != nil {
			t.Fatal(err)
		}
		r, err := h.api.Say(call.ConversationID, "let me talk to a human")
		if err != nil {
			t.Fatal(err)
		}
		if r.Response != "Transferring you to a live agent." || (r.Handoff != nil) != tc.handoff || r.Ended != tc.handoff {
			t.Fatalf("%s: Say = %+v, want handoff %v", tc.number, r, tc.handoff)
		}
		conv := h.conversation(call.ConversationID)
		if conv.Handoff != tc.handoff || conv.InProgress == tc.handoff {
			t.Fatalf("%s: record handoff %v in progress %v", tc.number, conv.Handoff, conv.InProgress)
		}
		_, err = h.store.GetHandoffState("us", "1001", "2001", call.ConversationID, "")
		if tc.handoff != (err == nil) || !tc.handoff && !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("%s: handoff state err = %v", tc.number, err)
		}
	}
}
