package handlers

// Scenario generators: N realistic conversation records over a time range
// with a seeded mix of channels, variants, environments, languages,
// durations, turns, out-of-domain turns and handoffs (scenario
// Project.Generate). They run in seedGenerated, once per scenario load into the
// snapshot that Reset restores.

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// genTopic is one reason to call, with what the caller and agent say.
type genTopic struct {
	intent string
	user   []string
	agent  []string
}

var genTopics = []genTopic{
	{"order_status",
		[]string{"Where is my order?", "I want to check the status of order 4821.", "Has my parcel shipped yet?", "My delivery is late."},
		[]string{"Let me look that up for you.", "Your order is on its way and should arrive tomorrow.", "I can see it was dispatched this morning.", "Could you give me your order number?"}},
	{"billing",
		[]string{"I have a question about my invoice.", "Why was I charged twice this month?", "Can I change my payment method?", "My bill looks wrong."},
		[]string{"I can help with billing questions.", "I can see two payments; one will be refunded.", "You can update your card in your account settings.", "Let me check your last invoice."}},
	{"refund",
		[]string{"I would like a refund.", "How long does a refund take?", "I returned the item last week and want my money back.", "Can you refund my order?"},
		[]string{"Refunds take three to five working days.", "I have started your refund.", "I can see your return has arrived.", "Let me check whether your order can be refunded."}},
	{"opening_hours",
		[]string{"What are your opening hours?", "Are you open on Sunday?", "When does the store close today?"},
		[]string{"We are open 9am to 5pm, Monday to Friday.", "We are closed on Sundays.", "Today we close at 5pm."}},
	{"booking",
		[]string{"I want to book a table for four.", "Can I change my reservation to Friday?", "I need to cancel my booking."},
		[]string{"What time would you like to book?", "Your reservation has been moved to Friday.", "Your booking has been cancelled."}},
	{"address_change",
		[]string{"I moved and need to update my address.", "Please change my delivery address.", "How do I update my details?"},
		[]string{"I can update your address for you.", "What is the new address?", "Your details have been updated."}},
}

var genGreetings = []string{"Hi, how can I help you today?", "Hello, thanks for calling. How can I help?", "Welcome! What can I do for you?"}

var genOOD = []string{"blorp", "purple monkey dishwasher", "uh what", "asdf", "the weather on mars"}

// genRand is a generator's seeded random source.
type genRand struct{ *rand.Rand }

func (r genRand) pick(keys []string, weights []int) string {
	total := 0
	for _, w := range weights {
		total += max(w, 0)
	}
	if total == 0 || len(keys) == 0 {
		return ""
	}
	n := r.IntN(total)
	for i, w := range weights {
		if w <= 0 {
			continue
		}
		if n < w {
			return keys[i]
		}
		n -= w
	}
	return keys[len(keys)-1]
}

func (r genRand) between(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + r.Int64N(hi-lo+1)
}

func (r genRand) hex(n int) string {
	const alpha = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = alpha[r.IntN(16)]
	}
	return string(b)
}

func (r genRand) digits(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	return string(b)
}

// generatorSeed is a generator's seed: its own, or one derived from the
// scenario's seed, the account, the project and the generator's position.
func generatorSeed(sc *scenario.Scenario, acct *scenario.Account, proj *scenario.Project, i int, g *scenario.Generator) (uint64, uint64) {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s/%d", acct.ID, proj.ID, i)
	if g.Seed != 0 {
		return uint64(g.Seed), h.Sum64()
	}
	seed := sc.Seed
	if seed == 0 {
		seed = 1
	}
	return uint64(seed) ^ 0x5851f42d4c957f2d, h.Sum64()
}

// generate writes a generator's conversations (and the handoff states of
// those handed off). now is the clock's start: a conversation still running
// at now is in progress, with the turns up to now.
func generate(st *store.Store, sc *scenario.Scenario, acct *scenario.Account, proj *scenario.Project, gi int, g *scenario.Generator, ids genIDs, now time.Time) error {
	s1, s2 := generatorSeed(sc, acct, proj, gi, g)
	r := genRand{rand.New(rand.NewPCG(s1, s2))}
	chanKeys, chanW := scenario.SortedWeights(g.Channels)
	envKeys, envW := scenario.SortedWeights(g.Environments)
	langKeys, langW := scenario.SortedWeights(g.Languages)
	varKeys, varW := scenario.SortedWeights(g.Variants)
	handoff, ood := scenario.DefaultGenHandoff, scenario.DefaultGenOOD
	if g.Handoff != nil {
		handoff = *g.Handoff
	}
	if g.OOD != nil {
		ood = *g.OOD
	}
	agentNumber := "+1800555" + fmt.Sprintf("%04d", fnv32(acct.ID+"/"+proj.ID)%10000)
	span := g.To.Sub(g.From).Nanoseconds()
	batch := make([]*store.Conversation, 0, genBatch)
	var handoffs []*store.HandoffState
	flush := func() error {
		if err := st.PutConversations(batch); err != nil {
			return err
		}
		for _, hs := range handoffs {
			if err := st.PutHandoffState(hs); err != nil {
				return err
			}
		}
		batch, handoffs = batch[:0], handoffs[:0]
		return nil
	}
	for range g.Count {
		c := &store.Conversation{
			Region: acct.Region, AccountID: acct.ID, ProjectID: proj.ID,
			Environment: r.pick(envKeys, envW), Channel: r.pick(chanKeys, chanW),
			StartedAt: g.From.Add(time.Duration(r.Int64N(span))).UTC(),
			Language:  r.pick(langKeys, langW), Metrics: map[string]any{}, Turns: []store.Turn{},
		}
		if vid := r.pick(varKeys, varW); vid != "" {
			if v := proj.Variant(vid); v != nil {
				c.VariantID, c.VariantName = v.ID, v.Name
			}
		}
		voice := len(c.Channel) >= 5 && c.Channel[:5] == "VOICE"
		if voice {
			c.FromNumber = "+1415555" + r.digits(4)
			c.ToNumber = agentNumber
		}
		dur := time.Duration(r.between(int64(g.Duration.Min), int64(g.Duration.Max))).Truncate(time.Second)
		nTurns := int(r.between(int64(g.Turns.Min), int64(g.Turns.Max)))
		topic := genTopics[r.IntN(len(genTopics))]
		handedOff := r.Float64() < handoff
		end := c.StartedAt.Add(dur)
		live := !now.Before(c.StartedAt) && now.Before(end)
		for t := range nTurns {
			at := c.StartedAt
			if nTurns > 1 {
				at = c.StartedAt.Add(dur * time.Duration(t) / time.Duration(nTurns))
			}
			lat := time.Duration(r.between(400, 1500)) * time.Millisecond
			turn := store.Turn{UserInputAt: at, AgentResponseAt: at.Add(lat), Latency: lat,
				Intents: []string{}, Entities: map[string]string{}}
			switch {
			case t == 0:
				turn.AgentResponse = genGreetings[r.IntN(len(genGreetings))]
				turn.Latency, turn.AgentResponseAt = 0, at
			case handedOff && t == nTurns-1:
				turn.UserInput, turn.AgentResponse = "Can I speak to a human please?", "Transferring you to a live agent."
				turn.Intents = []string{"live_agent"}
			case r.Float64() < ood:
				turn.UserInput, turn.AgentResponse, turn.IsOOD = genOOD[r.IntN(len(genOOD))], DefaultFallback, true
			default:
				turn.UserInput = topic.user[r.IntN(len(topic.user))]
				turn.AgentResponse = topic.agent[r.IntN(len(topic.agent))]
				turn.Intents = []string{topic.intent}
			}
			if live && turn.UserInputAt.After(now) {
				break
			}
			if turn.IsOOD {
				c.NumOOD++
			}
			c.Turns = append(c.Turns, turn)
		}
		if live {
			c.InProgress = true
		} else {
			c.EndedAt = end
			if handedOff {
				c.Handoff, c.HandoffDestination, c.HandoffReason = true, "live_agent_queue", topic.intent
			}
		}
		if err := ids.assign(c, r, voice); err != nil {
			return err
		}
		batch = append(batch, c)
		if c.Handoff {
			handoffs = append(handoffs, &store.HandoffState{Region: c.Region, AccountID: c.AccountID, ProjectID: c.ProjectID,
				ID: c.ID, Data: map[string]any{"topic": topic.intent, "channel": c.Channel}, CreatedAt: c.EndedAt})
		}
		if len(batch) == genBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// genBatch is the number of records stored per transaction.
const genBatch = 10_000

// genIDs are the conversation ids ("region/id") of one seeding run: the
// explicit seeds' and those the generators gave.
type genIDs map[string]bool

// seededIDs lists the explicit seeds' ids, which generated ids avoid.
func seededIDs(sc *scenario.Scenario) genIDs {
	ids := genIDs{}
	for _, a := range sc.Accounts {
		for _, p := range a.Projects {
			for _, c := range p.Conversations {
				ids[a.Region+"/"+c.ID] = true
			}
		}
	}
	return ids
}

// assign gives c an id (voice: CA + 32 hex, as real voice calls; text:
// CONV- + 16 digits) and the built-in state. An id already taken (by an
// explicit seed or another generated record) is drawn again.
func (ids genIDs) assign(c *store.Conversation, r genRand, voice bool) error {
	for range 10 {
		if voice {
			c.ID = "CA" + r.hex(32)
		} else {
			c.ID = "CONV-" + r.digits(16)
		}
		key := c.Region + "/" + c.ID
		if ids[key] {
			continue
		}
		ids[key] = true
		c.State = map[string]any{"conversation_id": c.ID, "channel": c.Channel, "client_env": c.Environment,
			"variant_id": c.VariantID, "asr_lang_code": c.Language}
		return nil
	}
	return fmt.Errorf("generate: could not allocate a conversation id in %s", c.Region)
}

func fnv32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// seedGenerated writes the generated conversations of each project's
// generators (in declaration order, after the explicit seeds).
func seedGenerated(st *store.Store, sc *scenario.Scenario, now time.Time) error {
	ids := seededIDs(sc)
	for ai := range sc.Accounts {
		acct := &sc.Accounts[ai]
		for pi := range acct.Projects {
			proj := &acct.Projects[pi]
			for gi := range proj.Generate {
				if err := generate(st, sc, acct, proj, gi, &proj.Generate[gi], ids, now); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
