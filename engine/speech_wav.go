package engine

// Synthetic speech: the audio the mock answers where the real service
// answers a recording (docs/api.md#agents-conversations-audio). A WAV file
// (RIFF, PCM 16-bit mono, 8 kHz, the telephony rate) whose length follows
// the text: 0.4 s per word plus 0.3 s of pause per utterance. Each word is
// a tone with a little noise, its pitch and the noise drawn from a
// generator seeded by the scenario seed and a hash of the word, so the
// bytes are the same for the same seed and text, on every run.

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
)

// Speech timing and format.
const (
	SpeechRate      = 8000 // samples per second
	speechWord      = 0.4  // seconds per word
	speechPause     = 0.3  // seconds after each utterance
	speechAmplitude = 8000
	// MaxSpeechSeconds bounds one file: a longer recording is cut there.
	MaxSpeechSeconds = 600
	wavHeaderLen     = 44
)

// Utterance is one stretch of a recording: the words said, and whether
// they are heard (a side of a split recording hears the other side as
// silence of the same length).
type Utterance struct {
	Text  string
	Heard bool
}

// SpeechDuration is how long an utterance lasts: 0.4 s per word plus
// 0.3 s, nothing for an empty text.
func SpeechDuration(text string) float64 {
	n := len(strings.Fields(text))
	if n == 0 {
		return 0
	}
	return float64(n)*speechWord + speechPause
}

// SpeechWAV renders utterances one after another as a WAV file, seeded by
// seed. The samples stop at MaxSpeechSeconds.
func SpeechWAV(seed int64, utts []Utterance) []byte {
	total := 0
	for _, u := range utts {
		total += int(math.Round(SpeechDuration(u.Text) * SpeechRate))
	}
	total = min(total, MaxSpeechSeconds*SpeechRate)
	out := make([]byte, wavHeaderLen, wavHeaderLen+2*total)
	writeWAVHeader(out, total)
	n := 0
	put := func(v float64) bool {
		if n >= total {
			return false
		}
		out = binary.LittleEndian.AppendUint16(out, uint16(int16(v)))
		n++
		return true
	}
	for _, u := range utts {
		words := strings.Fields(u.Text)
		if len(words) == 0 {
			continue
		}
		for _, w := range words {
			h := fnv.New64a()
			h.Write([]byte(strings.ToLower(w)))
			r := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
			freq := 110 + r.Float64()*220 // a voice's range, Hz
			samples := int(speechWord * SpeechRate)
			for i := range samples {
				v := 0.0
				if u.Heard {
					env := math.Sin(math.Pi * float64(i) / float64(samples)) // each word fades in and out
					v = env * speechAmplitude * (math.Sin(2*math.Pi*freq*float64(i)/SpeechRate) + 0.1*(r.Float64()*2-1))
				}
				if !put(v) {
					return out
				}
			}
		}
		for range int(math.Round(speechPause * SpeechRate)) {
			if !put(0) {
				return out
			}
		}
	}
	return out
}

// writeWAVHeader writes the 44-byte RIFF/WAVE header of n mono 16-bit
// samples at SpeechRate into b.
func writeWAVHeader(b []byte, n int) {
	le := binary.LittleEndian
	data := uint32(2 * n)
	copy(b[0:], "RIFF")
	le.PutUint32(b[4:], 36+data)
	copy(b[8:], "WAVEfmt ")
	le.PutUint32(b[16:], 16)           // fmt chunk size
	le.PutUint16(b[20:], 1)            // PCM
	le.PutUint16(b[22:], 1)            // mono
	le.PutUint32(b[24:], SpeechRate)   // sample rate
	le.PutUint32(b[28:], 2*SpeechRate) // byte rate
	le.PutUint16(b[32:], 2)            // block align
	le.PutUint16(b[34:], 16)           // bits per sample
	copy(b[36:], "data")
	le.PutUint32(b[40:], data)
}
