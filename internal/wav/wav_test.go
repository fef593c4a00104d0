package wav

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSpeechDuration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want time.Duration
	}{
		{"", 300 * time.Millisecond},
		{"Hello.", 700 * time.Millisecond},
		{"  We are open 9am to 5pm, Monday to Friday. ", 3900 * time.Millisecond},
		{"one two three four five six seven eight nine ten", 4300 * time.Millisecond},
	} {
		if got := SpeechDuration(tc.text); got != tc.want {
			t.Errorf("SpeechDuration(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestSpeechIsAWAVOfItsDuration(t *testing.T) {
	t.Parallel()
	text := "one two three four five six seven eight nine ten"
	b := Speech(1, "en-US-Neural2-A", text)
	in, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	want := Info{Format: 1, Channels: 1, SampleRate: 16000, BitsPerSample: 16, DataBytes: 2 * 68800, Duration: 4300 * time.Millisecond}
	if diff := cmp.Diff(want, in); diff != "" {
		t.Fatalf("info (-want +got):\n%s", diff)
	}
	if len(b) != HeaderSize+in.DataBytes {
		t.Fatalf("%d bytes, want %d", len(b), HeaderSize+in.DataBytes)
	}
	// It is not silence: the words are louder than the noise floor.
	loud := 0
	for i := HeaderSize; i+1 < len(b); i += 2 {
		if v := int16(binary.LittleEndian.Uint16(b[i:])); v > 2000 || v < -2000 {
			loud++
		}
	}
	if loud < 68800/4 {
		t.Fatalf("only %d loud samples", loud)
	}
}

func TestSpeechIsDeterministic(t *testing.T) {
	t.Parallel()
	a := Speech(7, "v", "Hello there.")
	if !bytes.Equal(a, Speech(7, "v", "Hello there.")) {
		t.Fatal("the same inputs gave different bytes")
	}
	for name, other := range map[string][]byte{
		"seed": Speech(8, "v", "Hello there."), "voice": Speech(7, "w", "Hello there."), "text": Speech(7, "v", "Hello where."),
	} {
		if bytes.Equal(a, other) {
			t.Errorf("another %s gave the same bytes", name)
		}
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	good := Speech(1, "v", "Hi.")
	// A file with an extra chunk before the data, and a data chunk that
	// announces more than the file holds.
	extra := append([]byte{}, good[:36]...)
	extra = append(extra, "LIST\x03\x00\x00\x00abc\x00"...)
	extra = append(extra, good[36:]...)
	binary.LittleEndian.PutUint32(extra[len(extra)-len(good)+40:], 1<<30)
	in, err := Parse(extra)
	if err != nil {
		t.Fatal(err)
	}
	if in.DataBytes != len(good)-HeaderSize || in.Duration != 700*time.Millisecond {
		t.Fatalf("info %+v", in)
	}
	bad := map[string][]byte{
		"empty":       nil,
		"text":        []byte("not audio at all"),
		"no fmt":      []byte("RIFF\x00\x00\x00\x00WAVEdata\x00\x00\x00\x00"),
		"short fmt":   []byte("RIFF\x00\x00\x00\x00WAVEfmt \x04\x00\x00\x00\x01\x00\x01\x00"),
		"no data":     good[:36],
		"zero format": append(append([]byte{}, good[:22]...), make([]byte, 22)...),
	}
	for name, b := range bad {
		if _, err := Parse(b); !errors.Is(err, ErrNotWAV) {
			t.Errorf("%s: err = %v, want ErrNotWAV", name, err)
		}
	}
}

func BenchmarkSpeech(b *testing.B) {
	for b.Loop() {
		Speech(1, "en-US-Neural2-A", "We are open 9am to 5pm, Monday to Friday.")
	}
}
