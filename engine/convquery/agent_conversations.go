package convquery

// Agent-scoped conversations (docs/api.md#agents-conversations;
// docs/fidelity.md G27, D29): the Conversations API's records plus the
// agent's debug chats, read with the Agents API's key. The shapes are the
// real service's recorded answers: every field present, null when empty,
// Python isoformat timestamps.

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/internal/wav"
	"github.com/agentplatform/mockplatform/store"
)

// Agent-scoped conversation messages and codes.
const (
	CodeRecordingNotFound = "RECORDING_NOT_FOUND"
	MsgRecordingNotFound  = "Recording not found for the given conversation."

	// AgentConvDefaultLimit and AgentConvMaxLimit bound the list's page.
	AgentConvDefaultLimit = 50
	AgentConvMaxLimit     = 100
)

// AudioDirections are the sides of a recording; the first is the default.
var AudioDirections = []string{"combined", "user", "agent"}

// pyTime is Python's isoformat of a UTC time; pyLocal without the zone.
const (
	pyTime  = "2006-01-02T15:04:05.000000-07:00"
	pyLocal = "2006-01-02T15:04:05.000000"
)

// AgentConvSummary is a conversation in the list.
type AgentConvSummary struct {
	AccountID          string        `json:"accountId"`
	AudioURL           *string       `json:"audioUrl"`
	Channel            string        `json:"channel"`
	ClientEnv          string        `json:"clientEnv"`
	ConversationID     string        `json:"conversationId"`
	CreatedAt          string        `json:"createdAt"`
	DeploymentID       *string       `json:"deploymentId"`
	Direction          string        `json:"direction"`
	Duration           int           `json:"duration"`
	FinishedAt         *string       `json:"finishedAt"`
	FromNumber         *string       `json:"fromNumber"`
	Handoff            bool          `json:"handoff"`
	HandoffDestination *string       `json:"handoffDestination"`
	HandoffReason      *string       `json:"handoffReason"`
	InProgress         bool          `json:"inProgress"`
	Language           *string       `json:"language"`
	Note               *string       `json:"note"`
	PolyScore          *float64      `json:"polyScore"`
	PolyaiDuration     int           `json:"polyaiDuration"`
	ProjectID          string        `json:"projectId"`
	ShortSummary       *ShortSummary `json:"shortSummary"`
	StartedAt          string        `json:"startedAt"`
	Tags               []string      `json:"tags"`
	ToNumber           *string       `json:"toNumber"`
	TotalDuration      int           `json:"totalDuration"`
	VariantID          *string       `json:"variantId"`
}

// ShortSummary is a conversation's summary (the mock writes none).
type ShortSummary struct {
	Heading string `json:"heading"`
	Content string `json:"content"`
}

// AgentConvDetail is a conversation by id, with turns, metrics and
// function events.
type AgentConvDetail struct {
	AgentConvSummary
	Turns          []AgentConvTurn              `json:"turns"`
	Metrics        map[string][]AgentConvMetric `json:"metrics"`
	FunctionEvents map[string][]map[string]any  `json:"functionEvents"`
}

// AgentConvMetric is one value a metric took.
type AgentConvMetric struct {
	Timestamp string `json:"timestamp"`
	Value     string `json:"value"`
}

// AgentConvTurn is a turn as the recorded answer shows it.
type AgentConvTurn struct {
	AgentResponse          string           `json:"agent_response"`
	AgentResponseDatetime  string           `json:"agent_response_datetime"`
	AsrLangCode            string           `json:"asr_lang_code"`
	BargeIn                bool             `json:"barge_in"`
	EnglishAgentResponse   string           `json:"english_agent_response"`
	Entities               []map[string]any `json:"entities"`
	Intents                []string         `json:"intents"`
	IsOOD                  bool             `json:"is_ood"`
	IsSilence              bool             `json:"is_silence"`
	Latency                TurnLatency      `json:"latency"`
	LLMRequests            []map[string]any `json:"llm_requests"`
	Metadata               map[string]any   `json:"metadata"`
	Reviews                []map[string]any `json:"reviews"`
	TranslatedUserInput    string           `json:"translated_user_input"`
	TtsLangCode            string           `json:"tts_lang_code"`
	TurnID                 int              `json:"turn_id"`
	UserInput              string           `json:"user_input"`
	UserInputAudioURL      string           `json:"user_input_audio_url"`
	UserInputDatetime      string           `json:"user_input_datetime"`
	UserInputDTMF          string           `json:"user_input_dtmf"`
	UserInputDTMFFinishKey string           `json:"user_input_dtmf_finish_key"`
}

func (AgentConvTurn) FieldRules() map[string]core.FieldRule {
	return map[string]core.FieldRule{"entities": {Nullable: true, Doc: "Always null: nothing in the mock fills entities.",
		Fidelity: &core.Fidelity{ID: "D29", Note: "null, as the recorded answer shows"}}}
}

// TurnLatency is a turn's latency as the recorded answer shows it.
type TurnLatency struct {
	Label                        *string  `json:"label"`
	PerceivedLatency             float64  `json:"perceived_latency"`
	PerceivedLatencyPercentile1d *float64 `json:"perceived_latency_percentile_1d"`
}

// AgentConvPage is a page of the list.
type AgentConvPage struct {
	Conversations []AgentConvSummary `json:"conversations"`
	Count         int                `json:"count"`
	Limit         int                `json:"limit"`
	Offset        int                `json:"offset"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func pyTimeOf(t time.Time) string { return t.UTC().Format(pyTime) }

// hasRecording reports an ended voice call.
func hasRecording(c *store.Conversation) bool {
	return strings.HasPrefix(c.Channel, "VOICE") && !c.InProgress
}

// agentConvSummary renders a record for the list, or withAudio for the get.
func agentConvSummary(c *store.Conversation, now time.Time, withAudio bool) AgentConvSummary {
	total, polyai := Durations(c, now)
	s := AgentConvSummary{AccountID: c.AccountID, Channel: c.Channel, ClientEnv: c.Environment, ConversationID: c.ID,
		CreatedAt: pyTimeOf(c.StartedAt), Direction: "inbound", Duration: total, FromNumber: nullable(c.FromNumber),
		Handoff: c.Handoff, HandoffDestination: nullable(c.HandoffDestination), HandoffReason: nullable(c.HandoffReason),
		InProgress: c.InProgress, Language: nullable(c.Language), PolyaiDuration: polyai, ProjectID: c.ProjectID,
		StartedAt: pyTimeOf(c.StartedAt), Tags: []string{}, ToNumber: nullable(c.ToNumber), TotalDuration: total,
		VariantID: nullable(c.VariantID)}
	if c.State["direction"] == "outbound" {
		s.Direction = "outbound"
	}
	if !c.InProgress && !c.EndedAt.IsZero() {
		s.FinishedAt = nullable(pyTimeOf(c.EndedAt))
	}
	if withAudio && hasRecording(c) {
		s.AudioURL = nullable("conversations/" + c.ID + "/audio")
	}
	return s
}

// agentConvDetail renders a record for the get, as data access allows
// (M11.8).
func agentConvDetail(c *store.Conversation, now time.Time, access DataAccess) AgentConvDetail {
	d := AgentConvDetail{AgentConvSummary: agentConvSummary(c, now, true), Turns: []AgentConvTurn{},
		Metrics: map[string][]AgentConvMetric{}, FunctionEvents: map[string][]map[string]any{}}
	if access.Transcripts {
		for i, t := range c.Turns {
			turn := AgentConvTurn{AgentResponse: t.AgentResponse, AgentResponseDatetime: pyTimeOf(t.AgentResponseAt),
				BargeIn: t.BargeIn, EnglishAgentResponse: t.EnglishAgentResponse, Intents: slices.Clone(t.Intents),
				IsOOD: t.IsOOD, IsSilence: t.IsSilence, Latency: TurnLatency{PerceivedLatency: t.Latency.Seconds()},
				LLMRequests: []map[string]any{}, Metadata: maps.Clone(t.Metadata), Reviews: []map[string]any{},
				TranslatedUserInput: t.TranslatedUserInput, TurnID: i + 1, UserInput: t.UserInput,
				UserInputDatetime: pyTimeOf(t.UserInputAt)}
			if i > 0 || t.UserInput != "" { // the greeting has no languages
				turn.AsrLangCode, turn.TtsLangCode = c.Language, c.TTSLanguage
			}
			if turn.Intents == nil {
				turn.Intents = []string{}
			}
			if turn.Metadata == nil {
				turn.Metadata = map[string]any{}
			}
			d.Turns = append(d.Turns, turn)
		}
	}
	if access.Metrics && len(c.Metrics) > 0 {
		at := c.StartedAt
		if n := len(c.Turns); n > 0 {
			at = c.Turns[n-1].AgentResponseAt
		}
		ts := at.UTC().Format(pyLocal)
		for k, v := range c.Metrics {
			var vals []string
			switch x := v.(type) {
			case []any:
				for _, e := range x {
					vals = append(vals, fmt.Sprint(e))
				}
			case []string:
				vals = x
			default:
				vals = []string{fmt.Sprint(x)}
			}
			for _, val := range vals {
				d.Metrics[k] = append(d.Metrics[k], AgentConvMetric{Timestamp: ts, Value: val})
			}
		}
	}
	return d
}

// agentConversation finds a stored conversation of ag's project or a
// debug chat; anything else is CONVERSATIONS_NOT_FOUND.
func (s *Service) agentConversation(p *core.Principal, ag Agent, id string) (*store.Conversation, error) {
	c, err := s.env.Store.GetConversation(p.Region, id)
	switch {
	case err == nil && c.AccountID == ag.AccountID && c.ProjectID == ag.ID:
		return c, nil
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	return s.agents.DebugChat(p.Region, ag, id)
}

// AgentConversation reads a conversation of the agent of the path by id.
func (s *Service) AgentConversation(p *core.Principal, agent, id string) (AgentConvDetail, error) {
	ag, err := s.agents.Agent(p, agent)
	if err != nil {
		return AgentConvDetail{}, err
	}
	c, err := s.agentConversation(p, ag, id)
	if err != nil {
		return AgentConvDetail{}, err
	}
	return agentConvDetail(c, s.env.Clock.Now(), DataAccessOf(p.Account.Project(ag.ID))), nil
}

// ConversationAudio is an ended voice call's recording as WAV
// (docs/api.md#agents-conversations-audio): user, agent or combined, each
// side silent while the other speaks. redacted changes nothing.
func (s *Service) ConversationAudio(p *core.Principal, agent, id, direction, redacted string) ([]byte, error) {
	var fields []core.FieldError
	if direction == "" {
		direction = AudioDirections[0]
	} else if !slices.Contains(AudioDirections, direction) {
		fields = append(fields, core.FieldError{Field: "direction", Message: "must be one of: " + strings.Join(AudioDirections, ", ")})
	}
	if redacted != "" && redacted != "true" && redacted != "false" {
		fields = append(fields, core.FieldError{Field: "redacted", Message: "must be a boolean"})
	}
	if len(fields) > 0 {
		return nil, core.Invalid(core.CodeValidation, core.MsgValidationFailed, fields...)
	}
	ag, err := s.agents.Agent(p, agent)
	if err != nil {
		return nil, err
	}
	c, err := s.agentConversation(p, ag, id)
	if err != nil {
		return nil, err
	}
	if !hasRecording(c) {
		return nil, core.Errf(core.KindNotFound, CodeRecordingNotFound, MsgRecordingNotFound)
	}
	var utts []wav.Utterance
	for _, t := range c.Turns {
		utts = append(utts, wav.Utterance{Text: t.UserInput, Heard: direction != "agent"},
			wav.Utterance{Text: t.AgentResponse, Heard: direction != "user"})
	}
	return wav.Recording(uint64(s.env.View().Scenario().Seed), utts), nil
}

// AgentConversations is a page of the agent's conversations, newest first
// (docs/api.md#agents-conversations-list); count counts them all.
func (s *Service) AgentConversations(p *core.Principal, agent string, vals url.Values) (AgentConvPage, error) {
	limit, offset, err := core.ReadPage(vals, AgentConvDefaultLimit, AgentConvMaxLimit)
	if err != nil {
		return AgentConvPage{}, err
	}
	ag, err := s.agents.Agent(p, agent)
	if err != nil {
		return AgentConvPage{}, err
	}
	debug, err := s.agents.DebugChats(p.Region, ag)
	if err != nil {
		return AgentConvPage{}, err
	}
	slices.SortFunc(debug, func(x, y *store.Conversation) int { return compareNewest(x, y) })
	sq := store.ConversationQuery{Region: p.Region, AccountID: ag.AccountID, ProjectID: ag.ID, Desc: true}
	stored := 0
	count := sq
	count.Select = func(*store.Summary) bool { stored++; return false }
	if _, err := s.env.Store.EachConversation(count, nil); err != nil {
		return AgentConvPage{}, err
	}
	page := AgentConvPage{Conversations: []AgentConvSummary{}, Count: stored + len(debug), Limit: limit, Offset: offset}
	if offset >= page.Count {
		return page, nil
	}
	// Skip the stored records before offset-len(debug) unread, then merge.
	skip := max(0, offset-len(debug))
	if skip > 0 {
		before := sq
		before.Limit = skip
		if sq.After, err = s.env.Store.EachConversation(before, nil); err != nil {
			return AgentConvPage{}, err
		}
	}
	sq.Limit = limit + len(debug)
	recs, _, err := s.env.Store.ListConversations(sq)
	if err != nil {
		return AgentConvPage{}, err
	}
	merged := mergeNewest(recs, debug, skip)
	now := s.env.Clock.Now()
	for _, m := range merged {
		if m.pos >= offset && m.pos < offset+limit {
			page.Conversations = append(page.Conversations, agentConvSummary(m.c, now, false))
		}
	}
	return page, nil
}

// compareNewest orders by start, then id, both descending.
func compareNewest(x, y *store.Conversation) int {
	if c := y.StartedAt.Compare(x.StartedAt); c != 0 {
		return c
	}
	return strings.Compare(y.ID, x.ID)
}

type placed struct {
	c   *store.Conversation
	pos int
}

// mergeNewest merges stored records (from store position skip) with the
// debug chats, newest first, placing each. A debug chat newer than recs[0]
// when skip > 0 belongs before the page and is left out.
func mergeNewest(recs, debug []*store.Conversation, skip int) []placed {
	var out []placed
	i, j := 0, 0
	for i < len(recs) || j < len(debug) {
		takeDebug := i == len(recs) || (j < len(debug) && compareNewest(debug[j], recs[i]) < 0)
		if takeDebug {
			if skip == 0 || i > 0 {
				out = append(out, placed{c: debug[j], pos: skip + i + j})
			}
			j++
			continue
		}
		out = append(out, placed{c: recs[i], pos: skip + i + j})
		i++
	}
	return out
}
