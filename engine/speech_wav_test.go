package engine

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// wavInfo parses the header SpeechWAV writes and returns the samples.
func wavInfo(t *testing.T, b []byte) []int16 {
	t.Helper()
	le := binary.LittleEndian
	if len(b) < 44 || string(b[0:4]) != "RIFF" || string(b[8:16]) != "WAVEfmt " || string(b[36:40]) != "data" {
		t.Fatalf("not a WAV header: %q", b[:min(len(b), 44)])
	}
	if le.Uint32(b[4:]) != uint32(len(b)-8) || le.Uint32(b[40:]) != uint32(len(b)-44) {
		t.Fatalf("chunk sizes %d, %d for %d bytes", le.Uint32(b[4:]), le.Uint32(b[40:]), len(b))
	}
	if le.Uint16(b[20:]) != 1 || le.Uint16(b[22:]) != 1 || le.Uint32(b[24:]) != SpeechRate || le.Uint16(b[34:]) != 16 {
		t.Fatalf("format: pcm %d, channels %d, rate %d, bits %d", le.Uint16(b[20:]), le.Uint16(b[22:]), le.Uint32(b[24:]), le.Uint16(b[34:]))
	}
	s := make([]int16, (len(b)-44)/2)
	for i := range s {
		s[i] = int16(le.Uint16(b[44+2*i:]))
	}
	return s
}

func TestSpeechWAVDuration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		utts    []Utterance
		seconds float64
	}{
		{nil, 0},
		{[]Utterance{{Text: "  ", Heard: true}}, 0},
		{[]Utterance{{Text: "hello", Heard: true}}, 0.7},
		{[]Utterance{{Text: "one two three four five six seven eight nine ten", Heard: true}}, 4.3},
		{[]Utterance{{Text: "hi there", Heard: true}, {Text: "good day to you", Heard: false}}, 1.1 + 1.9},
	} {
		s := wavInfo(t, SpeechWAV(1, tc.utts))
		if got := float64(len(s)) / SpeechRate; got != tc.seconds {
			t.Errorf("%v: %v s, want %v", tc.utts, got, tc.seconds)
		}
	}
}

func TestSpeechWAVDeterministic(t *testing.T) {
	t.Parallel()
	utts := []Utterance{{Text: "Hi, how can I help you today?", Heard: true}}
	a, b := SpeechWAV(7, utts), SpeechWAV(7, utts)
	if !bytes.Equal(a, b) {
		t.Fatal("the same seed and text gave other bytes")
	}
	if bytes.Equal(a, SpeechWAV(8, utts)) {
		t.Fatal("another seed gave the same bytes")
	}
	if bytes.Equal(a, SpeechWAV(7, []Utterance{{Text: "Hi, how can I help you tomorrow?", Heard: true}})) {
		t.Fatal("another text gave the same bytes")
	}
}

func TestSpeechWAVSilenceAndBound(t *testing.T) {
	t.Parallel()
	s := wavInfo(t, SpeechWAV(1, []Utterance{{Text: "hello", Heard: true}, {Text: "world", Heard: false}}))
	word := int(speechWord * SpeechRate)
	loud := false
	for _, v := range s[:word] {
		loud = loud || v > 1000 || v < -1000
	}
	if !loud {
		t.Fatal("a heard word is silent")
	}
	for i, v := range s[word:] {
		if v != 0 {
			t.Fatalf("sample %d after the heard word is %d, want silence", word+i, v)
		}
	}
	long := wavInfo(t, SpeechWAV(1, []Utterance{{Text: strings.Repeat("word ", 2000), Heard: true}}))
	if len(long) != MaxSpeechSeconds*SpeechRate {
		t.Fatalf("%d samples, want the bound %d", len(long), MaxSpeechSeconds*SpeechRate)
	}
}
