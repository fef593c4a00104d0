// Package wav makes and reads the audio the mock serves: 16-bit PCM mono
// 16 kHz WAV files. Speech stands in for synthesized speech, in integer
// arithmetic so the same inputs give the same bytes on every machine.
package wav

import (
	"encoding/binary"
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"time"
)

// The format of the files Speech makes.
const (
	SampleRate    = 16000
	BitsPerSample = 16
	Channels      = 1
	HeaderSize    = 44
)

// The pace of Speech: a pause at each end and a fixed length per word.
const (
	PerWord = 400 * time.Millisecond
	Ends    = 300 * time.Millisecond
)

// SpeechDuration is how long the speech of text lasts.
func SpeechDuration(text string) time.Duration {
	return Ends + time.Duration(len(strings.Fields(text)))*PerWord
}

func samplesOf(d time.Duration) int { return int(d * SampleRate / time.Second) }

// Speech is the WAV file of text said in voice: a tone per word over a
// little noise, between pauses. The bytes depend on seed, voice and text
// only.
func Speech(seed uint64, voice, text string) []byte {
	words := strings.Fields(text)
	n := samplesOf(SpeechDuration(text))
	out := header(n)
	rng := rand.New(rand.NewPCG(seed, hash(voice+"\x00"+text)))
	pitch := 100 + uint32(hash(voice)%150) // Hz
	lead, word := samplesOf(Ends/2), samplesOf(PerWord)
	voiced := word * 4 / 5
	attack, release := SampleRate/50, SampleRate/25
	var ph0, ph1 uint32
	for i := range n {
		var v int32
		if k := i - lead; k >= 0 && k/word < len(words) {
			w, at := k/word, k%word
			if at < voiced {
				over := 300 + uint32(hash(words[w])%600)
				ph0 += pitch * (1 << 32 / SampleRate)
				ph1 += over * (1 << 32 / SampleRate)
				v = (tri(ph0)*2 + tri(ph1)) / 3
				env := min(at, attack) * min(voiced-at, release)
				v = int32(int64(v) * int64(env) / int64(attack*release))
			}
		}
		v += int32(rng.IntN(257)) - 128 // the noise floor
		binary.LittleEndian.PutUint16(out[HeaderSize+2*i:], uint16(int16(v)))
	}
	return out
}

// tri is a triangle wave of a phase, at about a third of full scale.
func tri(ph uint32) int32 {
	x := int32(ph>>16) - 32768 // -32768..32767, a sawtooth
	if x < 0 {
		x = -x
	}
	return (x - 16384) * 2 / 3
}

func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// header is a PCM header for n samples, followed by room for them.
func header(n int) []byte {
	data := 2 * n
	b := make([]byte, HeaderSize+data)
	copy(b, "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+data))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1) // PCM
	binary.LittleEndian.PutUint16(b[22:], Channels)
	binary.LittleEndian.PutUint32(b[24:], SampleRate)
	binary.LittleEndian.PutUint32(b[28:], SampleRate*Channels*BitsPerSample/8)
	binary.LittleEndian.PutUint16(b[32:], Channels*BitsPerSample/8)
	binary.LittleEndian.PutUint16(b[34:], BitsPerSample)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(data))
	return b
}

// Info is what a WAV header says.
type Info struct {
	Format        int // 1 PCM, 3 IEEE float, 0xFFFE extensible
	Channels      int
	SampleRate    int
	BitsPerSample int
	DataBytes     int // present, even if the chunk announces more
	Duration      time.Duration
}

// ErrNotWAV is the error of Parse for bytes that are not a WAV file.
var ErrNotWAV = errors.New("not a WAV file")

// Parse reads a PCM or float WAV file's header; its errors wrap ErrNotWAV.
func Parse(b []byte) (Info, error) {
	var in Info
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return in, errors.Join(ErrNotWAV, errors.New("no RIFF/WAVE signature"))
	}
	fmtSeen := false
	for p := 12; p+8 <= len(b); {
		id, size := string(b[p:p+4]), int(binary.LittleEndian.Uint32(b[p+4:]))
		body := b[p+8:]
		switch id {
		case "fmt ":
			if size < 16 || len(body) < 16 {
				return in, errors.Join(ErrNotWAV, errors.New("short fmt chunk"))
			}
			in.Format = int(binary.LittleEndian.Uint16(body))
			in.Channels = int(binary.LittleEndian.Uint16(body[2:]))
			in.SampleRate = int(binary.LittleEndian.Uint32(body[4:]))
			in.BitsPerSample = int(binary.LittleEndian.Uint16(body[14:]))
			if in.Channels == 0 || in.SampleRate == 0 || in.BitsPerSample == 0 {
				return in, errors.Join(ErrNotWAV, errors.New("a format of no channels, rate or sample size"))
			}
			fmtSeen = true
		case "data":
			if !fmtSeen {
				return in, errors.Join(ErrNotWAV, errors.New("data before the fmt chunk"))
			}
			in.DataBytes = min(size, len(body))
			frame := in.Channels * ((in.BitsPerSample + 7) / 8)
			in.Duration = time.Duration(int64(in.DataBytes/frame) * int64(time.Second) / int64(in.SampleRate))
			return in, nil
		}
		if size > len(body) {
			break
		}
		p += 8 + size + size&1 // chunks are padded to an even length
	}
	return in, errors.Join(ErrNotWAV, errors.New("no data chunk"))
}

// Utterance is one stretch of a recording; an unheard one is silence
// (the other side of a split recording).
type Utterance struct {
	Text  string
	Heard bool
}

// MaxRecording bounds a recording: a longer one is cut there.
const MaxRecording = 10 * time.Minute

// Recording is the WAV file of utterances one after another (a
// conversation's recording); the bytes depend on seed and utts only.
func Recording(seed uint64, utts []Utterance) []byte {
	total := 0
	for _, u := range utts {
		if strings.TrimSpace(u.Text) != "" {
			total += samplesOf(SpeechDuration(u.Text))
		}
	}
	out := header(min(total, samplesOf(MaxRecording)))
	at := HeaderSize
	for _, u := range utts {
		if strings.TrimSpace(u.Text) == "" || at >= len(out) {
			continue
		}
		if u.Heard {
			copy(out[at:], Speech(seed, "", u.Text)[HeaderSize:])
		}
		at += 2 * samplesOf(SpeechDuration(u.Text))
	}
	return out
}
