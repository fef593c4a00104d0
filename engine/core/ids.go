package core

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// Alphabets of ids.
const (
	Digits     = "0123456789"
	HexDigits  = "0123456789abcdef"
	UpperAlnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	Base62     = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// IDs are an instance's seeded id streams; correlation ids have their own
// so errors and control calls do not shift resource ids. Reseed before use.
type IDs struct {
	mu   sync.Mutex // guards rng and corr: a leaf
	rng  *rand.Rand
	corr *rand.Rand
}

// Reseed restarts the streams from a seed (0 means 1).
func (ids *IDs) Reseed(seed int64) {
	if seed == 0 {
		seed = 1
	}
	s := uint64(seed)
	ids.mu.Lock()
	ids.rng = rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
	ids.corr = rand.New(rand.NewPCG(s^0xc2b2ae3d27d4eb4f, s))
	ids.mu.Unlock()
}

// NewID returns prefix plus n seeded random characters of alphabet.
func (ids *IDs) NewID(prefix, alphabet string, n int) string {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	var b strings.Builder
	b.Grow(len(prefix) + n)
	b.WriteString(prefix)
	for range n {
		b.WriteByte(alphabet[ids.rng.IntN(len(alphabet))])
	}
	return b.String()
}

// NewUUID returns a random (version 4 layout) UUID from the seeded stream.
func (ids *IDs) NewUUID() string {
	ids.mu.Lock()
	hi, lo := ids.rng.Uint64(), ids.rng.Uint64()
	ids.mu.Unlock()
	return formatUUID(hi, lo)
}

// NewUUIDv7 returns a version 7 UUID of t's Unix milliseconds.
func (ids *IDs) NewUUIDv7(t time.Time) string {
	u := ids.NewUUID() // random bits, version 4 layout
	ms := uint64(t.UnixMilli())
	h := fmt.Sprintf("%012x", ms&0xffffffffffff)
	return h[:8] + "-" + h[8:12] + "-7" + u[15:18] + u[18:]
}

// NewCorrelationID returns a UUID from the correlation stream.
func (ids *IDs) NewCorrelationID() string {
	ids.mu.Lock()
	hi, lo := ids.corr.Uint64(), ids.corr.Uint64()
	ids.mu.Unlock()
	return formatUUID(hi, lo)
}

func formatUUID(hi, lo uint64) string {
	return FormatUUIDBits(hi&^0xf000|0x4000, lo&^(0xc<<60)|0x8<<60)
}

// FormatUUIDBits formats 128 bits as a UUID.
func FormatUUIDBits(hi, lo uint64) string {
	var u [16]byte
	binary.BigEndian.PutUint64(u[:8], hi)
	binary.BigEndian.PutUint64(u[8:], lo)
	var b [36]byte // 8-4-4-4-12 hex digits
	hex.Encode(b[0:8], u[0:4])
	hex.Encode(b[9:13], u[4:6])
	hex.Encode(b[14:18], u[6:8])
	hex.Encode(b[19:23], u[8:10])
	hex.Encode(b[24:36], u[10:16])
	b[8], b[13], b[18], b[23] = '-', '-', '-', '-'
	return string(b[:])
}
