package handlers

// The answer shapes of the Conversations API (v3 and v2 share one, v1),
// rendered from the one record with the project's data access applied.

import (
	"strconv"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/engine/convquery"
	"github.com/agentplatform/mockplatform/internal/jsonw"
)

type convListV3 struct {
	Conversations []convV3 `json:"conversations"`
	Cursor        *string  `json:"cursor"`
	NextOffset    *int     `json:"next_offset,omitempty"`
}

// convListV2 is v3's list without cursors
// (docs/api.md#conversations-versions).
type convListV2 struct {
	Conversations []convV3 `json:"conversations"`
	NextOffset    *int     `json:"next_offset,omitempty"`
}

type convListV1 struct {
	Conversations []convV1 `json:"conversations"`
	NextOffset    *int     `json:"next_offset,omitempty"`
}

// convV3 is a v3 (and v2) conversation record
// (docs/api.md#conversations-record).
type convV3 struct {
	ID                 string         `json:"id"`
	AccountID          string         `json:"account_id"`
	ProjectID          string         `json:"project_id"`
	VariantID          string         `json:"variant_id"`
	VariantName        string         `json:"variant_name"`
	Environment        string         `json:"environment"`
	StartedAt          string         `json:"started_at"`
	Channel            string         `json:"channel"`
	FromNumber         string         `json:"from_number"`
	ToNumber           string         `json:"to_number"`
	InProgress         bool           `json:"in_progress"`
	NumTurns           int            `json:"num_turns"`
	TotalDuration      int            `json:"total_duration"`
	PolyaiDuration     int            `json:"polyai_duration"`
	Handoff            bool           `json:"handoff"`
	HandoffReason      string         `json:"handoff_reason"`
	HandoffDestination string         `json:"handoff_destination"`
	NumSilences        int            `json:"num_silences"`
	NumOOD             int            `json:"num_ood"`
	Metrics            map[string]any `json:"metrics"`
	State              map[string]any `json:"state"`
	Turns              []turnV3       `json:"turns"`
}

type turnV3 struct {
	UserInput             string            `json:"user_input"`
	UserInputDatetime     string            `json:"user_input_datetime"`
	BargeIn               bool              `json:"barge_in"`
	AgentResponse         string            `json:"agent_response"`
	AgentResponseDatetime string            `json:"agent_response_datetime"`
	Intents               []string          `json:"intents"`
	Entities              map[string]string `json:"entities"`
	IsOOD                 bool              `json:"is_ood"`
	IsSilence             bool              `json:"is_silence"`
	TranslatedUserInput   string            `json:"translated_user_input"`
	EnglishAgentResponse  string            `json:"english_agent_response"`
	Latency               *float64          `json:"latency,omitempty"`
}

// convV1 is a v1 record: null for empty text fields, no v3-only turn fields
// (docs/api.md#conversations-versions).
type convV1 struct {
	ID                 string         `json:"id"`
	AccountID          string         `json:"account_id"`
	ProjectID          string         `json:"project_id"`
	VariantID          *string        `json:"variant_id"`
	VariantName        *string        `json:"variant_name"`
	Environment        string         `json:"environment"`
	StartedAt          string         `json:"started_at"`
	Channel            string         `json:"channel"`
	FromNumber         *string        `json:"from_number"`
	ToNumber           *string        `json:"to_number"`
	InProgress         bool           `json:"in_progress"`
	NumTurns           int            `json:"num_turns"`
	TotalDuration      int            `json:"total_duration"`
	PolyaiDuration     int            `json:"polyai_duration"`
	Handoff            bool           `json:"handoff"`
	HandoffReason      *string        `json:"handoff_reason"`
	HandoffDestination *string        `json:"handoff_destination"`
	NumSilences        int            `json:"num_silences"`
	NumOOD             int            `json:"num_ood"`
	Metrics            map[string]any `json:"metrics"`
	State              map[string]any `json:"state"`
	Turns              []turnV1       `json:"turns"`
}

type turnV1 struct {
	UserInput             *string           `json:"user_input"`
	UserInputDatetime     string            `json:"user_input_datetime"`
	BargeIn               bool              `json:"barge_in"`
	AgentResponse         *string           `json:"agent_response"`
	AgentResponseDatetime string            `json:"agent_response_datetime"`
	Intents               []string          `json:"intents"`
	Entities              map[string]string `json:"entities"`
	IsOOD                 bool              `json:"is_ood"`
	IsSilence             bool              `json:"is_silence"`
}

// accountRef and projectRef are the prefixed ids of the data APIs
// ("ACCOUNT-t53y16r3").
func accountRef(id string) string { return prefixedRef("ACCOUNT-", id) }

func projectRef(id string) string { return prefixedRef("PROJECT-", id) }

// prefixedRef is id with the prefix, unless it has it already.
func prefixedRef(prefix, id string) string {
	if hasRefPrefix(prefix, id) {
		return id
	}
	return prefix + id
}

func hasRefPrefix(prefix, id string) bool {
	return len(id) > len(prefix) && strings.EqualFold(id[:len(prefix)], prefix)
}

// appendJSONRef appends prefixedRef(prefix, id) as a JSON string.
func appendJSONRef(b []byte, prefix, id string) []byte {
	b = append(b, '"')
	if !hasRefPrefix(prefix, id) {
		b = append(b, prefix...)
	}
	return append(jsonw.AppendText(b, id), '"')
}

func nonNil[M ~map[string]V, V any](m M) M {
	if m == nil {
		return M{}
	}
	return m
}

func renderConvV3(c *engine.Conversation, now time.Time, acc convquery.DataAccess, latency bool) convV3 {
	total, polyai := convquery.Durations(c, now)
	out := convV3{
		ID: c.ID, AccountID: accountRef(c.AccountID), ProjectID: projectRef(c.ProjectID),
		VariantID: c.VariantID, VariantName: c.VariantName, Environment: c.Environment,
		StartedAt: engine.IsoTime(c.StartedAt), Channel: c.Channel, FromNumber: c.FromNumber, ToNumber: c.ToNumber,
		InProgress: c.InProgress, NumTurns: c.NumTurns(), TotalDuration: total, PolyaiDuration: polyai,
		Handoff: c.Handoff, HandoffReason: c.HandoffReason, HandoffDestination: c.HandoffDestination,
		NumSilences: c.NumSilences, NumOOD: c.NumOOD, Metrics: map[string]any{}, State: nonNil(c.State),
		Turns: []turnV3{},
	}
	if acc.Metrics {
		out.Metrics = nonNil(c.Metrics)
	}
	if !acc.Transcripts {
		return out
	}
	out.Turns = make([]turnV3, len(c.Turns))
	for i, t := range c.Turns {
		tv := turnV3{
			UserInput: t.UserInput, UserInputDatetime: engine.IsoTime(t.UserInputAt), BargeIn: t.BargeIn,
			AgentResponse: t.AgentResponse, AgentResponseDatetime: engine.IsoTime(t.AgentResponseAt),
			Intents: t.Intents, Entities: nonNil(t.Entities), IsOOD: t.IsOOD, IsSilence: t.IsSilence,
			TranslatedUserInput: t.TranslatedUserInput, EnglishAgentResponse: t.EnglishAgentResponse,
		}
		if tv.Intents == nil {
			tv.Intents = []string{}
		}
		if latency {
			l := t.Latency.Seconds()
			tv.Latency = &l
		}
		out.Turns[i] = tv
	}
	return out
}

// orNull is nil for an empty string (v1 has null where v3 has "").
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// renderConvV1 is the v1 record (docs/api.md#conversations-versions).
func renderConvV1(c *engine.Conversation, now time.Time, acc convquery.DataAccess) convV1 {
	v := renderConvV3(c, now, acc, false)
	out := convV1{
		ID: v.ID, AccountID: v.AccountID, ProjectID: v.ProjectID,
		VariantID: orNull(v.VariantID), VariantName: orNull(v.VariantName), Environment: v.Environment,
		StartedAt: v.StartedAt, Channel: v.Channel, FromNumber: orNull(v.FromNumber), ToNumber: orNull(v.ToNumber),
		InProgress: v.InProgress, NumTurns: v.NumTurns, TotalDuration: v.TotalDuration, PolyaiDuration: v.PolyaiDuration,
		Handoff: v.Handoff, HandoffReason: orNull(v.HandoffReason), HandoffDestination: orNull(v.HandoffDestination),
		NumSilences: v.NumSilences, NumOOD: v.NumOOD, Metrics: v.Metrics, State: v.State,
		Turns: make([]turnV1, len(v.Turns)),
	}
	for i, t := range v.Turns {
		out.Turns[i] = turnV1{
			UserInput: orNull(t.UserInput), UserInputDatetime: t.UserInputDatetime, BargeIn: t.BargeIn,
			AgentResponse: orNull(t.AgentResponse), AgentResponseDatetime: t.AgentResponseDatetime,
			Intents: t.Intents, Entities: t.Entities, IsOOD: t.IsOOD, IsSilence: t.IsSilence,
		}
	}
	return out
}

// appendConvV3 appends renderConvV3(c, now, acc, latency) as encoding/json
// would, or reports false.
func appendConvV3(b []byte, c *engine.Conversation, now time.Time, acc convquery.DataAccess, latency bool) ([]byte, bool) {
	b, ok := appendConvHead(b, c, now, acc, false)
	if !ok {
		return b, false
	}
	b = append(b, `,"turns":[`...)
	if acc.Transcripts {
		for i := range c.Turns {
			t := &c.Turns[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"user_input":`...)
			b = jsonw.AppendString(b, t.UserInput)
			b = append(b, `,"user_input_datetime":`...)
			b = jsonw.AppendISOTime(b, t.UserInputAt)
			b = append(b, `,"barge_in":`...)
			b = strconv.AppendBool(b, t.BargeIn)
			b = append(b, `,"agent_response":`...)
			b = jsonw.AppendString(b, t.AgentResponse)
			b = append(b, `,"agent_response_datetime":`...)
			b = jsonw.AppendISOTime(b, t.AgentResponseAt)
			b = appendTurnUnderstanding(b, t)
			b = append(b, `,"translated_user_input":`...)
			b = jsonw.AppendString(b, t.TranslatedUserInput)
			b = append(b, `,"english_agent_response":`...)
			b = jsonw.AppendString(b, t.EnglishAgentResponse)
			if latency {
				b = append(b, `,"latency":`...)
				if b, ok = jsonw.AppendFloat(b, t.Latency.Seconds()); !ok {
					return b, false
				}
			}
			b = append(b, '}')
		}
	}
	return append(b, "]}"...), true
}

// appendTurnUnderstanding appends the members v1 and v2 turns share after
// the agent's response.
func appendTurnUnderstanding(b []byte, t *engine.Turn) []byte {
	b = append(b, `,"intents":`...)
	if t.Intents == nil {
		b = append(b, "[]"...)
	} else {
		b = jsonw.AppendStrings(b, t.Intents)
	}
	b = append(b, `,"entities":`...)
	b = jsonw.AppendStringMap(b, nonNil(t.Entities))
	b = append(b, `,"is_ood":`...)
	b = strconv.AppendBool(b, t.IsOOD)
	b = append(b, `,"is_silence":`...)
	return strconv.AppendBool(b, t.IsSilence)
}

// appendConvV1 appends renderConvV1(c, now, acc) as encoding/json would.
func appendConvV1(b []byte, c *engine.Conversation, now time.Time, acc convquery.DataAccess) ([]byte, bool) {
	b, ok := appendConvHead(b, c, now, acc, true)
	if !ok {
		return b, false
	}
	b = append(b, `,"turns":[`...)
	if acc.Transcripts {
		for i := range c.Turns {
			t := &c.Turns[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"user_input":`...)
			b = jsonw.AppendNullString(b, orNull(t.UserInput))
			b = append(b, `,"user_input_datetime":`...)
			b = jsonw.AppendISOTime(b, t.UserInputAt)
			b = append(b, `,"barge_in":`...)
			b = strconv.AppendBool(b, t.BargeIn)
			b = append(b, `,"agent_response":`...)
			b = jsonw.AppendNullString(b, orNull(t.AgentResponse))
			b = append(b, `,"agent_response_datetime":`...)
			b = jsonw.AppendISOTime(b, t.AgentResponseAt)
			b = appendTurnUnderstanding(b, t)
			b = append(b, '}')
		}
	}
	return append(b, "]}"...), true
}

// appendConvHead appends a record's fields before its turns (v1: empty
// text fields as null).
func appendConvHead(b []byte, c *engine.Conversation, now time.Time, acc convquery.DataAccess, v1 bool) ([]byte, bool) {
	text := func(b []byte, s string) []byte {
		if v1 && s == "" {
			return append(b, "null"...)
		}
		return jsonw.AppendString(b, s)
	}
	total, polyai := convquery.Durations(c, now)
	b = append(b, `{"id":`...)
	b = jsonw.AppendString(b, c.ID)
	b = append(b, `,"account_id":`...)
	b = appendJSONRef(b, "ACCOUNT-", c.AccountID)
	b = append(b, `,"project_id":`...)
	b = appendJSONRef(b, "PROJECT-", c.ProjectID)
	b = append(b, `,"variant_id":`...)
	b = text(b, c.VariantID)
	b = append(b, `,"variant_name":`...)
	b = text(b, c.VariantName)
	b = append(b, `,"environment":`...)
	b = jsonw.AppendString(b, c.Environment)
	b = append(b, `,"started_at":`...)
	b = jsonw.AppendISOTime(b, c.StartedAt)
	b = append(b, `,"channel":`...)
	b = jsonw.AppendString(b, c.Channel)
	b = append(b, `,"from_number":`...)
	b = text(b, c.FromNumber)
	b = append(b, `,"to_number":`...)
	b = text(b, c.ToNumber)
	b = append(b, `,"in_progress":`...)
	b = strconv.AppendBool(b, c.InProgress)
	b = append(b, `,"num_turns":`...)
	b = strconv.AppendInt(b, int64(c.NumTurns()), 10)
	b = append(b, `,"total_duration":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	b = append(b, `,"polyai_duration":`...)
	b = strconv.AppendInt(b, int64(polyai), 10)
	b = append(b, `,"handoff":`...)
	b = strconv.AppendBool(b, c.Handoff)
	b = append(b, `,"handoff_reason":`...)
	b = text(b, c.HandoffReason)
	b = append(b, `,"handoff_destination":`...)
	b = text(b, c.HandoffDestination)
	b = append(b, `,"num_silences":`...)
	b = strconv.AppendInt(b, int64(c.NumSilences), 10)
	b = append(b, `,"num_ood":`...)
	b = strconv.AppendInt(b, int64(c.NumOOD), 10)
	b = append(b, `,"metrics":`...)
	var ok bool
	if acc.Metrics {
		b, ok = jsonw.AppendObject(b, nonNil(c.Metrics))
	} else {
		b, ok = append(b, "{}"...), true
	}
	if !ok {
		return b, false
	}
	b = append(b, `,"state":`...)
	return jsonw.AppendObject(b, nonNil(c.State))
}
