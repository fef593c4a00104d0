package faults

import (
	"testing"
	"time"
)

func TestParsePreset(t *testing.T) {
	t.Parallel()
	if _, err := testVoc.ParsePreset("messaging.expire_session_after:x"); err == nil {
		t.Fatal("bad argument accepted")
	}
	if _, err := testVoc.ParsePreset("messaging.drop_socket:1"); err == nil {
		t.Fatal("argument accepted")
	}
	if p, err := testVoc.ParsePreset("messaging.delay_chunks:1s"); err != nil || p.D != time.Second {
		t.Fatal("delay_chunks")
	}
	if p, err := testVoc.ParsePreset("outbound.outcome:busy"); err != nil || p.Value != "busy" {
		t.Fatal("outbound.outcome")
	}
	if _, err := testVoc.ParsePreset("outbound.outcome:maybe"); err == nil {
		t.Fatal("bad outcome accepted")
	}
}

// Every preset of the table parses with a valid argument, and every name
// the table lists is known.
func TestPresetTable(t *testing.T) {
	t.Parallel()
	args := map[ArgKind]string{ArgNone: "", ArgCount: ":2", ArgDuration: ":1s"}
	for _, p := range testVoc.Presets {
		arg := args[p.Arg]
		if p.Arg == ArgOneOf {
			arg = ":" + p.Values[0]
		}
		if !testVoc.KnownPreset(p.Name + arg) {
			t.Errorf("%s%s is not known", p.Name, arg)
		}
	}
	if testVoc.KnownPreset("no.such.preset") {
		t.Error("an unknown name is known")
	}
}
