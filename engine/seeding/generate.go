package seeding

// Scenario generators (Project.Generate): N realistic conversation records
// over a time range with a seeded mix, seeded once per load.

import (
	"fmt"
	"hash/fnv"
	"time"

	"github.com/agentplatform/mockplatform/engine/dialogue"
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

// generatorSeed is a generator's own seed, or one derived from the
// scenario's and its place.
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

// genVocab is what the generated callers and agents say.
func genVocab() store.GenVocab {
	v := store.GenVocab{Greetings: genGreetings, OOD: genOOD, Fallback: dialogue.DefaultFallback,
		HumanAsk: "Can I speak to a human please?", HumanReply: "Transferring you to a live agent.",
		HumanIntent: "live_agent", HandoffDestination: "live_agent_queue"}
	for _, t := range genTopics {
		v.Topics = append(v.Topics, store.GenTopic{Intent: t.intent, User: t.user, Agent: t.agent})
	}
	return v
}

// genSpec is the store's description of a generator.
func genSpec(sc *scenario.Scenario, acct *scenario.Account, proj *scenario.Project, gi int, g *scenario.Generator, now time.Time) *store.GenSpec {
	s1, s2 := generatorSeed(sc, acct, proj, gi, g)
	weights := func(m map[string]int) store.GenWeights {
		k, w := scenario.SortedWeights(m)
		return store.GenWeights{Keys: k, Weights: w}
	}
	sp := &store.GenSpec{Region: acct.Region, AccountID: acct.ID, ProjectID: proj.ID, Seed1: s1, Seed2: s2,
		Count: g.Count, From: g.From, To: g.To, Now: now,
		Channels: weights(g.Channels), Environments: weights(g.Environments), Languages: weights(g.Languages),
		Variants: weights(g.Variants), Handoff: scenario.DefaultGenHandoff, OOD: scenario.DefaultGenOOD,
		DurationMin: time.Duration(g.Duration.Min), DurationMax: time.Duration(g.Duration.Max),
		TurnsMin: g.Turns.Min, TurnsMax: g.Turns.Max,
		AgentNumber: "+1800555" + fmt.Sprintf("%04d", fnv32(acct.ID+"/"+proj.ID)%10000), Vocab: genVocab()}
	for _, k := range sp.Variants.Keys {
		id, name := "", ""
		if v := proj.Variant(k); v != nil {
			id, name = v.ID, v.Name
		}
		sp.VariantIDs, sp.VariantNames = append(sp.VariantIDs, id), append(sp.VariantNames, name)
	}
	if g.Handoff != nil {
		sp.Handoff = *g.Handoff
	}
	if g.OOD != nil {
		sp.OOD = *g.OOD
	}
	return sp
}

func fnv32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// seedGenerated adds each project's generators to the store, which makes
// records from them when read.
func seedGenerated(st *store.Store, sc *scenario.Scenario, now time.Time, prog *Reporter) error {
	for ai := range sc.Accounts {
		acct := &sc.Accounts[ai]
		for pi := range acct.Projects {
			proj := &acct.Projects[pi]
			for gi := range proj.Generate {
				g := &proj.Generate[gi]
				if err := st.Generate(genSpec(sc, acct, proj, gi, g, now), prog.part("generating conversations", g.Count)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
