package store

import (
	"encoding/base64"
	"errors"
	"math"
	"slices"
	"strconv"
	"time"
	"unsafe"

	json "github.com/goccy/go-json"
)

// A hand-written JSON encoder for Conversation (the compact encoder's JSON
// round trip), byte-for-byte identical to goccy/go-json's json.Marshal but
// without reflection. Values it cannot reproduce exactly are left to goccy
// (a rejected one sends the whole record there, so errors are goccy's).
// Update appendConv with any change of Conversation, Turn or Event
// (TestEncodeConvMatchesGoccy).

// errEncFallback makes encodeConv use goccy for the whole record.
var errEncFallback = errors.New("store: encode fallback")

// encodeConv returns the JSON encoding of c; hint is a capacity guess.
func encodeConv(c *Conversation, hint int) (string, error) {
	b, err := appendConv(make([]byte, 0, max(hint, 512)), c)
	if err != nil {
		if b, err = json.Marshal(c); err != nil {
			return "", err
		}
	}
	if cap(b)-len(b) > len(b)/4 {
		return string(b), nil // do not keep much unused capacity alive
	}
	// b is not used after this: share its memory with the string.
	return unsafe.String(unsafe.SliceData(b), len(b)), nil
}

func appendConv(b []byte, c *Conversation) ([]byte, error) {
	var err error
	b = append(b, `{"id":`...)
	b = appendStr(b, c.ID)
	b = append(b, `,"region":`...)
	b = appendStr(b, c.Region)
	b = append(b, `,"account_id":`...)
	b = appendStr(b, c.AccountID)
	b = append(b, `,"project_id":`...)
	b = appendStr(b, c.ProjectID)
	b = append(b, `,"variant_id":`...)
	b = appendStr(b, c.VariantID)
	b = append(b, `,"variant_name":`...)
	b = appendStr(b, c.VariantName)
	b = append(b, `,"environment":`...)
	b = appendStr(b, c.Environment)
	b = append(b, `,"channel":`...)
	b = appendStr(b, c.Channel)
	if c.ChatChannel != "" {
		b = append(b, `,"chat_channel":`...)
		b = appendStr(b, c.ChatChannel)
	}
	b = append(b, `,"started_at":`...)
	if b, err = appendTime(b, c.StartedAt); err != nil {
		return nil, err
	}
	b = append(b, `,"ended_at":`...)
	if b, err = appendTime(b, c.EndedAt); err != nil {
		return nil, err
	}
	b = append(b, `,"in_progress":`...)
	b = strconv.AppendBool(b, c.InProgress)
	b = append(b, `,"from_number":`...)
	b = appendStr(b, c.FromNumber)
	b = append(b, `,"to_number":`...)
	b = appendStr(b, c.ToNumber)
	b = append(b, `,"language":`...)
	b = appendStr(b, c.Language)
	if c.TTSLanguage != "" {
		b = append(b, `,"tts_language":`...)
		b = appendStr(b, c.TTSLanguage)
	}
	b = append(b, `,"handoff":`...)
	b = strconv.AppendBool(b, c.Handoff)
	b = append(b, `,"handoff_reason":`...)
	b = appendStr(b, c.HandoffReason)
	b = append(b, `,"handoff_destination":`...)
	b = appendStr(b, c.HandoffDestination)
	b = append(b, `,"num_silences":`...)
	b = strconv.AppendInt(b, int64(c.NumSilences), 10)
	b = append(b, `,"num_ood":`...)
	b = strconv.AppendInt(b, int64(c.NumOOD), 10)
	b = append(b, `,"metrics":`...)
	if b, err = appendObject(b, c.Metrics); err != nil {
		return nil, err
	}
	b = append(b, `,"state":`...)
	if b, err = appendObject(b, c.State); err != nil {
		return nil, err
	}
	if len(c.IntegrationAttributes) > 0 {
		b = append(b, `,"integration_attributes":`...)
		if b, err = appendObject(b, c.IntegrationAttributes); err != nil {
			return nil, err
		}
	}
	b = append(b, `,"turns":`...)
	if c.Turns == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range c.Turns {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendTurn(b, &c.Turns[i]); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	if len(c.FunctionErrors) > 0 {
		b = append(b, `,"function_errors":`...)
		if b, err = appendTimes(b, c.FunctionErrors); err != nil {
			return nil, err
		}
	}
	if len(c.Crashes) > 0 {
		b = append(b, `,"crashes":`...)
		if b, err = appendTimes(b, c.Crashes); err != nil {
			return nil, err
		}
	}
	if len(c.AwaitedEvents) > 0 {
		b = append(b, `,"awaited_events":`...)
		b = appendStrs(b, c.AwaitedEvents)
	}
	if len(c.Events) > 0 {
		b = append(b, `,"events":[`...)
		for i, e := range c.Events {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b = appendStr(b, e.ID)
			b = append(b, `,"received_at":`...)
			if b, err = appendTime(b, e.ReceivedAt); err != nil {
				return nil, err
			}
			b = append(b, `,"content_type":`...)
			b = appendStr(b, e.ContentType)
			b = append(b, `,"payload":`...)
			if e.Payload == nil {
				b = append(b, "null"...)
			} else {
				b = append(b, '"')
				b = base64.StdEncoding.AppendEncode(b, e.Payload)
				b = append(b, '"')
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if c.SharedID != "" {
		b = append(b, `,"shared_id":`...)
		b = appendStr(b, c.SharedID)
	}
	return append(b, '}'), nil
}

func appendTurn(b []byte, t *Turn) ([]byte, error) {
	var err error
	b = append(b, `{"user_input":`...)
	b = appendStr(b, t.UserInput)
	b = append(b, `,"user_input_datetime":`...)
	if b, err = appendTime(b, t.UserInputAt); err != nil {
		return nil, err
	}
	if t.BargeIn {
		b = append(b, `,"barge_in":true`...)
	}
	b = append(b, `,"agent_response":`...)
	b = appendStr(b, t.AgentResponse)
	b = append(b, `,"agent_response_datetime":`...)
	if b, err = appendTime(b, t.AgentResponseAt); err != nil {
		return nil, err
	}
	b = append(b, `,"intents":`...)
	if t.Intents == nil {
		b = append(b, "null"...)
	} else {
		b = appendStrs(b, t.Intents)
	}
	b = append(b, `,"entities":`...)
	if b, err = appendEntities(b, t.Entities); err != nil {
		return nil, err
	}
	if t.IsOOD {
		b = append(b, `,"is_ood":true`...)
	}
	if t.IsSilence {
		b = append(b, `,"is_silence":true`...)
	}
	if t.TranslatedUserInput != "" {
		b = append(b, `,"translated_user_input":`...)
		b = appendStr(b, t.TranslatedUserInput)
	}
	if t.EnglishAgentResponse != "" {
		b = append(b, `,"english_agent_response":`...)
		b = appendStr(b, t.EnglishAgentResponse)
	}
	b = append(b, `,"latency":`...)
	b = strconv.AppendInt(b, int64(t.Latency), 10)
	if len(t.Metadata) > 0 {
		b = append(b, `,"metadata":`...)
		if b, err = appendObject(b, t.Metadata); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendEntities appends a map[string]string with sorted keys (null if
// nil).
func appendEntities(b []byte, m map[string]string) ([]byte, error) {
	return appendMap(b, m, func(b []byte, v string) ([]byte, error) { return appendStr(b, v), nil })
}

// appendMap appends a map with sorted keys (null if nil), each value with
// appendVal.
func appendMap[V any](b []byte, m map[string]V, appendVal func([]byte, V) ([]byte, error)) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	var keyBuf [16]string
	keys := keyBuf[:0]
	for k := range m {
		if !plainString(k) {
			// goccy sorts keys by their escaped form: let it do the map.
			enc, err := json.Marshal(m)
			if err != nil {
				return nil, errEncFallback
			}
			return append(b, enc...), nil
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStr(b, k)
		b = append(b, ':')
		if b, err = appendVal(b, m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendTime appends t as time.Time.MarshalJSON does (RFC 3339 with
// nanoseconds; years outside [0, 9999] are an error).
func appendTime(b []byte, t time.Time) ([]byte, error) {
	b = append(b, '"')
	b, err := t.AppendText(b)
	if err != nil {
		return nil, errEncFallback
	}
	return append(b, '"'), nil
}

func appendTimes(b []byte, ts []time.Time) ([]byte, error) {
	var err error
	b = append(b, '[')
	for i, t := range ts {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = appendTime(b, t); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

func appendStrs(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStr(b, s)
	}
	return append(b, ']')
}

// appendStr appends s as a JSON string, verbatim when plainString, else
// goccy's encoding.
func appendStr(b []byte, s string) []byte {
	if !plainString(s) {
		enc, err := json.Marshal(s)
		if err != nil { // cannot happen for a string
			panic(err)
		}
		return append(b, enc...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainString: s is encoded verbatim between quotes.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// appendObject appends a free-form object with sorted keys (null if nil).
func appendObject(b []byte, m map[string]any) ([]byte, error) {
	return appendMap(b, m, appendValue)
}

// appendValue appends a free-form value; JSON types directly, others
// through goccy.
func appendValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendStr(b, v), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errEncFallback
		}
		if abs := math.Abs(v); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
			return strconv.AppendFloat(b, v, 'e', -1, 64), nil
		}
		return strconv.AppendFloat(b, v, 'f', -1, 64), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case map[string]any:
		return appendObject(b, v)
	case []any:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		var err error
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	default:
		enc, err := json.Marshal(v)
		if err != nil {
			return nil, errEncFallback
		}
		return append(b, enc...), nil
	}
}
