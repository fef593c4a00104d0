// Package seeding writes a scenario's conversation records into a store,
// explicit and generated, reporting the progress of long loads.
package seeding

import (
	"time"

	"github.com/agentplatform/mockplatform/engine/dialogue"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// Conversations writes a scenario's seeded conversations and handoff
// states, then its generators. now is the clock's start; prog may be nil.
func Conversations(st *store.Store, sc *scenario.Scenario, now time.Time, prog *Reporter) error {
	for ai := range sc.Accounts {
		acct := &sc.Accounts[ai]
		for pi := range acct.Projects {
			proj := &acct.Projects[pi]
			for i := range proj.Conversations {
				if err := st.PutConversation(seedConversation(acct, proj, &proj.Conversations[i])); err != nil {
					return err
				}
			}
			for _, h := range proj.HandoffStates {
				hs := &store.HandoffState{Region: acct.Region, AccountID: acct.ID, ProjectID: proj.ID,
					ID: h.ID, SharedID: h.SharedID, Data: h.Data, CreatedAt: now}
				if err := st.PutHandoffState(hs); err != nil {
					return err
				}
			}
		}
	}
	return seedGenerated(st, sc, now, prog)
}

func seedConversation(acct *scenario.Account, proj *scenario.Project, s *scenario.Conversation) *store.Conversation {
	env := s.Environment
	if env == "" {
		env = "live"
	}
	c := &store.Conversation{
		ID: s.ID, Region: acct.Region, AccountID: acct.ID, ProjectID: proj.ID,
		Environment: env, Channel: s.Channel, StartedAt: s.StartedAt.UTC(),
		InProgress: s.InProgress, FromNumber: s.FromNumber, ToNumber: s.ToNumber,
		Language: s.Language, Metrics: map[string]any{}, State: map[string]any{}, Turns: []store.Turn{},
	}
	if v := proj.Variant(s.Variant); v != nil {
		c.VariantID, c.VariantName = v.ID, v.Name
	}
	for k, v := range s.Metrics {
		c.Metrics[k] = v
	}
	for k, v := range s.State {
		c.State[k] = v
	}
	last := c.StartedAt
	for _, t := range s.Turns {
		at := c.StartedAt.Add(t.At.D())
		lat := t.Latency.D()
		if lat <= 0 {
			lat = dialogue.DefaultLatency
		}
		turn := store.Turn{UserInput: t.User, UserInputAt: at, AgentResponse: t.Agent,
			AgentResponseAt: at.Add(lat), Intents: append([]string{}, t.Intents...), Entities: map[string]string{},
			IsOOD: t.OOD, IsSilence: t.Silence, Latency: lat}
		c.Turns = append(c.Turns, turn)
		if t.OOD {
			c.NumOOD++
		}
		if t.Silence {
			c.NumSilences++
		}
		last = turn.AgentResponseAt
	}
	if h := s.Handoff; h != nil {
		c.Handoff, c.HandoffDestination, c.HandoffReason, c.SharedID = true, h.Destination, h.Reason, h.SharedID
	}
	if !s.InProgress {
		end := c.StartedAt.Add(s.Duration.D())
		if s.Duration == 0 {
			end = last
		}
		c.EndedAt = end
	}
	return c
}
