package store

import (
	"fmt"
	"testing"

	json "github.com/goccy/go-json"
)

// BenchmarkConvCodec compares the per-call costs the cache trades: decoding
// the stored JSON versus copying or normalising a decoded conversation.
func BenchmarkConvCodec(b *testing.B) {
	c := mkConv("us", "acc", "proj", "c1", base)
	c.State["count"] = 3 // an int set by a dialogue
	raw, err := json.Marshal(c)
	if err != nil {
		b.Fatal(err)
	}
	dec, err := decodeConvJSON(string(raw))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeConvJSON(string(raw)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(c); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encodeConv", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := encodeConv(c, len(raw)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("copy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			copyConv(dec)
		}
	})
	b.Run("normalise", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := normConv(c); !ok {
				b.Fatal("not normalisable")
			}
		}
	})
}

// BenchmarkUpdateConversationHot updates few conversations repeatedly
// (the chat respond pattern: a conversation gets several turns in a row).
func BenchmarkUpdateConversationHot(b *testing.B) {
	s := openBench(b)
	bulkLoad(b, s, 100)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_, err := s.UpdateConversation("us", fmt.Sprintf("b%07d", i%100), func(c *Conversation) error {
			c.NumSilences++
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkGetConversationHot(b *testing.B) {
	s := openBench(b)
	bulkLoad(b, s, 100)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := s.GetConversation("us", fmt.Sprintf("b%07d", i%100)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
