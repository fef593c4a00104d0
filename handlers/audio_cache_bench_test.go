package handlers

import "testing"

// BenchmarkVoiceTurn is a caller's turn in a call to the agent's number:
// the dialogue's reply, stored, and its audio cache lookup (a hit, after
// the first turns).
func BenchmarkVoiceTurn(b *testing.B) {
	h := newHarness(b)
	res, err := h.api.CallNumber("+14155550150", "")
	if err != nil {
		b.Fatal(err)
	}
	texts := []string{"what are your hours?", "order 12", "something else"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := h.api.Say(res.ConversationID, texts[i%len(texts)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
