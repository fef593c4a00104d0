package convquery

// Retrieval modes of the Conversations API v3
// (docs/api.md#conversations-retrieval; docs/fidelity.md M11.6), computed
// at request time over the records in the time bounds.

import (
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/agentplatform/mockplatform/store"
)

// tokens splits text into lowercase words of letters and digits.
func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// turnTexts are the user, agent or both sides' texts.
func turnTexts(c *store.Conversation, turnType string) []string {
	var out []string
	for _, t := range c.Turns {
		if turnType != "agent" && t.UserInput != "" {
			out = append(out, t.UserInput)
		}
		if turnType != "user" && t.AgentResponse != "" {
			out = append(out, t.AgentResponse)
		}
	}
	return out
}

// transcriptScorer ranks full-text matches: phrase first, then distinct
// query words found, then occurrences.
func transcriptScorer(query, turnType string) func(*store.Conversation) (float64, bool) {
	terms := map[string]bool{}
	for _, t := range tokens(query) {
		terms[t] = true
	}
	phrase := strings.Join(tokens(query), " ")
	return func(c *store.Conversation) (float64, bool) {
		found := map[string]bool{}
		occurrences, phraseHit := 0, false
		for _, text := range turnTexts(c, turnType) {
			words := tokens(text)
			for _, w := range words {
				if terms[w] {
					found[w] = true
					occurrences++
				}
			}
			if !phraseHit && phrase != "" && strings.Contains(" "+strings.Join(words, " ")+" ", " "+phrase+" ") {
				phraseHit = true
			}
		}
		if len(found) == 0 {
			return 0, false
		}
		score := float64(len(found))*1e6 + float64(occurrences)
		if phraseHit {
			score += 1e12
		}
		return score, true
	}
}

const embeddingDims = 512

// semanticThreshold is the least cosine similarity of a semantic hit.
const semanticThreshold = 0.1

// embed is a deterministic text embedding: signed hashed character
// trigrams, L2-normalised. Not a language model.
func embed(text string) []float64 {
	v := make([]float64, embeddingDims)
	norm := " " + strings.Join(tokens(text), " ") + " "
	r := []rune(norm)
	for i := 0; i+3 <= len(r); i++ {
		h := fnv.New32a()
		h.Write([]byte(string(r[i : i+3])))
		x := h.Sum32()
		sign := 1.0
		if x&(1<<31) != 0 {
			sign = -1
		}
		v[x%embeddingDims] += sign
	}
	var sum float64
	for _, x := range v {
		sum += x * x
	}
	if sum == 0 {
		return v
	}
	n := math.Sqrt(sum)
	for i := range v {
		v[i] /= n
	}
	return v
}

func cosine(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// semanticScorer ranks by cosine similarity to the whole transcript, hits
// at or above semanticThreshold.
func semanticScorer(query string) func(*store.Conversation) (float64, bool) {
	q := embed(query)
	return func(c *store.Conversation) (float64, bool) {
		s := cosine(q, embed(strings.Join(turnTexts(c, ""), " ")))
		return s, s >= semanticThreshold
	}
}

// sampleScorer orders by a seeded hash of the id: reproducible, and pages
// without repeats.
func sampleScorer(seed int64, filterHash string) func(*store.Conversation) (float64, bool) {
	prefix := strconv.FormatInt(seed, 10) + "|" + filterHash + "|"
	return func(c *store.Conversation) (float64, bool) {
		h := fnv.New64a()
		h.Write([]byte(prefix))
		h.Write([]byte(c.ID))
		return float64(h.Sum64()>>11) / (1 << 53), true
	}
}
