package mockplatform

import (
	"errors"
	"testing"
)

// A call to the default scenario's connector number (+14155550150,
// CONNECTOR-00000001, live) reaches the support agent: a voice
// conversation of the connector's environment, which a caller can talk to.
func TestDialConnectorNumber(t *testing.T) {
	p := Start(t, WithoutListener())
	r, err := p.Dial("+14155550150", "+447700900123")
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	conv, err := p.Conversation(r.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	if conv.Channel != "VOICE-SIP" || conv.Environment != "live" || conv.State["connector_id"] != "CONNECTOR-00000001" ||
		conv.FromNumber != "+447700900123" || !conv.InProgress {
		t.Fatalf("call record = channel %q env %q connector %v from %q in progress %v",
			conv.Channel, conv.Environment, conv.State["connector_id"], conv.FromNumber, conv.InProgress)
	}
	say, err := p.Say(r.ConversationID, "what are your hours?")
	if err != nil || say.Response != "We are open 9am to 5pm, Monday to Friday." {
		t.Fatalf("Say = %+v, %v", say, err)
	}
	if _, err := p.Dial("+19995550000", ""); !errors.Is(err, ErrNotRouted) {
		t.Fatalf("Dial of an unknown number: err = %v, want ErrNotRouted", err)
	}
}
