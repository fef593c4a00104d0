package convquery

// Retrieval modes of the Conversations API v3
// (docs/api.md#conversations-retrieval; docs/fidelity.md M11.6): transcript
// search (full text), semantic search (vector similarity) and a random
// sample. The mock computes them over the records in the time bounds at
// request time; nothing is indexed ahead.

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

// turnTexts are the texts transcript search looks at: user inputs, agent
// responses, or both.
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

// transcriptScorer ranks by full-text match over the turns: a conversation
// matches when at least one query word occurs in it. Rank: the whole query
// as a phrase first, then the number of distinct query words found, then
// the number of occurrences (ties: older first).
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

// embeddingDims is the size of the semantic embedding.
const embeddingDims = 512

// semanticThreshold is the least cosine similarity of a semantic hit.
const semanticThreshold = 0.1

// embed is a deterministic, dependency-free text embedding: hashed
// character trigrams of the normalised text (lowercase words separated by
// one space), with signed feature hashing, L2-normalised. Texts that share
// word fragments are close; it is not a language model.
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

// semanticScorer ranks by the cosine similarity of the query's embedding and
// the embedding of the whole transcript (user and agent turns); hits are
// those at or above semanticThreshold.
func semanticScorer(query string) func(*store.Conversation) (float64, bool) {
	q := embed(query)
	return func(c *store.Conversation) (float64, bool) {
		s := cosine(q, embed(strings.Join(turnTexts(c, ""), " ")))
		return s, s >= semanticThreshold
	}
}

// sampleScorer orders records by a seeded hash of their id: a random
// permutation that is the same for the same scenario seed and filters, so
// a sample is reproducible and pages through it without repeats.
func sampleScorer(seed int64, filterHash string) func(*store.Conversation) (float64, bool) {
	prefix := strconv.FormatInt(seed, 10) + "|" + filterHash + "|"
	return func(c *store.Conversation) (float64, bool) {
		h := fnv.New64a()
		h.Write([]byte(prefix))
		h.Write([]byte(c.ID))
		return float64(h.Sum64()>>11) / (1 << 53), true
	}
}
