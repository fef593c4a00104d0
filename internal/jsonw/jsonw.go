// Package jsonw writes JSON straight from values into bytes, byte for byte
// as encoding/json would (escapes, float format, sorted map keys), for the
// HTTP edge's hot answers. Append* report false for a value encoding/json
// refuses, so that the caller falls back to it.
package jsonw

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// bufs recycles answer buffers.
var bufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

func GetBuf() *[]byte { return bufs.Get().(*[]byte) }

func PutBuf(b *[]byte) {
	if cap(*b) > 1<<20 {
		return // do not keep huge buffers
	}
	*b = (*b)[:0]
	bufs.Put(b)
}

const hexDigits = "0123456789abcdef"

// safe[b]: an ASCII byte encoding/json writes unescaped (escapeHTML on).
var safe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// AppendString appends s as encoding/json does (escapeHTML on).
func AppendString(dst []byte, s string) []byte {
	return append(AppendText(append(dst, '"'), s), '"')
}

// AppendText appends s as AppendString does, without the quotes.
func AppendText(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && safeWord(s, i) {
			i += 8
			continue
		}
		if b := s[i]; b < utf8.RuneSelf {
			if safe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}

// safeWord reports whether the 8 bytes of s at i are all safe, using the
// exact "some byte is zero" test ((v - 0x01..) &^ v & 0x80..) on the word
// xor each escaped byte repeated.
func safeWord(s string, i int) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	_ = s[i+7]
	w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
	zero := func(v uint64) uint64 { return (v - lo) &^ v & hi }
	return (w&hi)|((w-0x20*lo)&^w&hi)|zero(w^('"'*lo))|zero(w^('\\'*lo))|
		zero(w^('<'*lo))|zero(w^('>'*lo))|zero(w^('&'*lo)) == 0
}

// AppendFloat appends a float64 as encoding/json does; ok is false for
// NaN and infinities.
func AppendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// AppendValue appends a free-form value as encoding/json does; ok is
// false when encoding/json would refuse it.
func AppendValue(b []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return AppendString(b, v), true
	case bool:
		return strconv.AppendBool(b, v), true
	case float64:
		return AppendFloat(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case map[string]any:
		return AppendObject(b, v)
	case []any:
		if v == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = AppendValue(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case []string:
		return AppendStrings(b, v), true
	default:
		enc, err := json.Marshal(v)
		if err != nil {
			return b, false
		}
		return append(b, enc...), true
	}
}

type mapEntry[V any] struct {
	k string
	v V
}

// sortedEntries appends m's entries to es (a caller's stack buffer) in key
// order.
func sortedEntries[V any](es []mapEntry[V], m map[string]V) []mapEntry[V] {
	for k, v := range m {
		es = append(es, mapEntry[V]{k, v})
	}
	slices.SortFunc(es, func(a, b mapEntry[V]) int { return strings.Compare(a.k, b.k) })
	return es
}

// AppendObject appends a map with sorted keys (null if nil).
func AppendObject(b []byte, m map[string]any) ([]byte, bool) {
	if m == nil {
		return append(b, "null"...), true
	}
	var buf [16]mapEntry[any]
	b = append(b, '{')
	for i, e := range sortedEntries(buf[:0], m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, e.k)
		b = append(b, ':')
		var ok bool
		if b, ok = AppendValue(b, e.v); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// AppendStringMap appends a map[string]string with sorted keys (null if nil).
func AppendStringMap(b []byte, m map[string]string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	var buf [16]mapEntry[string]
	b = append(b, '{')
	for i, e := range sortedEntries(buf[:0], m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, e.k)
		b = append(b, ':')
		b = AppendString(b, e.v)
	}
	return append(b, '}')
}

// AppendStrings appends a []string (null if nil).
func AppendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, s)
	}
	return append(b, ']')
}

// AppendNullString appends a *string (null if nil).
func AppendNullString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return AppendString(b, *s)
}

// AppendISOTime appends t in RFC3339Nano UTC as a JSON string, formatting
// years 0 to 9999 by hand (hot in conversation pages) and others with
// AppendFormat.
func AppendISOTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	sec := t.Unix()
	if sec < minISOSec || sec > maxISOSec {
		b = t.UTC().AppendFormat(b, time.RFC3339Nano)
		return append(b, '"')
	}
	days, rem := sec/86400, sec%86400
	if rem < 0 {
		days, rem = days-1, rem+86400
	}
	y, m, d := civilDate(days)
	hh, mm, ss := int(rem/3600), int(rem/60%60), int(rem%60)
	var f [32]byte // 2006-01-02T15:04:05.999999999Z"
	put2 := func(i, v int) { f[i], f[i+1] = pairs[2*v], pairs[2*v+1] }
	put2(0, y/100)
	put2(2, y%100)
	put2(5, m)
	put2(8, d)
	put2(11, hh)
	put2(14, mm)
	put2(17, ss)
	f[4], f[7], f[10], f[13], f[16] = '-', '-', 'T', ':', ':'
	n := 19
	if ns := t.Nanosecond(); ns != 0 {
		f[19] = '.' // trailing zeros trimmed, as RFC3339Nano does
		put2(20, ns/10_000_000)
		put2(22, ns/100_000%100)
		put2(24, ns/1000%100)
		put2(26, ns/10%100)
		f[28] = byte('0' + ns%10)
		n = 29
		for f[n-1] == '0' {
			n--
		}
	}
	f[n], f[n+1] = 'Z', '"'
	return append(b, f[:n+2]...)
}

// The Unix seconds of 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
const (
	minISOSec = -62167219200
	maxISOSec = 253402300799
)

// civilDate is the date of a day counted from 1970-01-01 (Howard Hinnant's
// days-to-civil algorithm).
func civilDate(days int64) (year, month, day int) {
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097                                  // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // [0, 399]
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // [0, 365]
	mp := (5*doy + 2) / 153                                // [0, 11]
	day = int(doy - (153*mp+2)/5 + 1)
	month = int(mp + 3)
	if month > 12 {
		month -= 12
	}
	year = int(yoe + era*400)
	if month <= 2 {
		year++
	}
	return year, month, day
}

// pairs holds the two decimal digits of 0 to 99, at 2n.
const pairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"
