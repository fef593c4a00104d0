package handlers

// Concurrent calls (docs/api.md#concurrency; docs/fidelity.md M11.7,
// M11.13): the peak number of concurrent conversations per 5-minute
// interval, computed from the conversation records' start and end times.
// In-progress conversations count up to now.

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/engine/convquery"
	"github.com/agentplatform/mockplatform/internal/jsonw"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
)

// famConcurrency is peak concurrency (docs/api.md#concurrency).
var famConcurrency = &Family{
	Name: "concurrency", Base: "runtime", Shape: shapeErrorMessage,
	Credential: scenario.KindConversations, Headers: []string{"X-Api-Key"}, Forbid: true,
	Marks:    []string{"/concurrency"},
	Doc:      "Peak concurrent conversations per 5 minutes (docs/api.md#concurrency).",
	Schemes:  conversationsSchemes,
	Security: [][]string{{"conversationsKey"}},
	Routes:   concurrencyRoutes,
}

// concurrencyRoutes are its routes.
var concurrencyRoutes = []Route{
	route("GET /v1/:account/:project/conversations/concurrency", (*API).handleConcurrencyGet, opConcurrency),
}

var opConcurrency = &Op{ID: "concurrencyGet", Summary: "Peak concurrent conversations",
	Doc: "The peak number of concurrent conversations per 5-minute interval, over at most 7 days, " +
		"optionally by variant (docs/api.md#concurrency).",
	Query: []Param{
		{Name: "start_time", Type: "date-time", Required: true, Doc: "Rounded down to the 5-minute mark."},
		{Name: "end_time", Type: "date-time", Required: true, Doc: "After start_time, at most 7 days later; rounded up to the 5-minute mark."},
		{Name: "client_env", Enum: scenario.Environments, Doc: "Default live."},
		{Name: "variant_id"},
		{Name: "variant_name", Doc: "Not with variant_id."},
		{Name: "language"},
		{Name: "phone_number"},
		{Name: "slice_by", Enum: convquery.ConcSlices, Doc: "variant gives one series per variant; language and phone_number answer 501."},
	},
	Responses: []Response{ok(200, convquery.ConcurrencyResponse{})}, Errors: []int{400, 404, 501}}

func parseConcQuery(c *gin.Context) (*convquery.ConcQuery, error) {
	get := c.Query
	q := &convquery.ConcQuery{Env: "live"}
	rawStart, rawEnd := get("start_time"), get("end_time")
	if rawStart == "" {
		return nil, convquery.ConcInvalid(convquery.MsgConcStartRequired)
	}
	if rawEnd == "" {
		return nil, convquery.ConcInvalid(convquery.MsgConcEndRequired)
	}
	start, err := time.Parse(time.RFC3339Nano, rawStart)
	if err != nil {
		return nil, convquery.ConcInvalid("start_time must be an ISO 8601 date-time such as 2026-03-01T14:15:00Z.")
	}
	end, err := time.Parse(time.RFC3339Nano, rawEnd)
	if err != nil {
		return nil, convquery.ConcInvalid("end_time must be an ISO 8601 date-time such as 2026-03-01T16:35:00Z.")
	}
	if !end.After(start) || end.Sub(start) > convquery.ConcurrencyWindow {
		return nil, convquery.ConcInvalid(convquery.MsgConcRange)
	}
	// docs/api.md#concurrency: start rounded down, end rounded up to the
	// 5-minute mark.
	q.Start = start.UTC().Truncate(convquery.ConcurrencyStep)
	q.End = end.UTC().Truncate(convquery.ConcurrencyStep)
	if q.End.Before(end) {
		q.End = q.End.Add(convquery.ConcurrencyStep)
	}
	if v := get("client_env"); v != "" {
		if !slices.Contains(scenario.Environments, v) {
			return nil, convquery.ConcInvalid(convquery.MsgConcEnvInvalid)
		}
		q.Env = v
	}
	q.VariantID, q.VariantName = get("variant_id"), get("variant_name")
	if q.VariantID != "" && q.VariantName != "" {
		return nil, convquery.ConcInvalid(convquery.MsgConcVariantBoth)
	}
	q.Language, q.Phone = get("language"), get("phone_number")
	switch s := get("slice_by"); s {
	case "":
	case "variant":
		q.ByVariant = true
	case "language", "phone_number":
		return nil, &engine.Error{Kind: engine.KindNotImplemented, Message: fmt.Sprintf(convquery.MsgConcSliceNotImpl, s)}
	default:
		return nil, convquery.ConcInvalid(convquery.MsgConcSliceInvalid)
	}
	return q, nil
}

// handleConcurrencyGet handles "GET {runtime}/v1/{account}/{project}/conversations/concurrency".
func (a *API) handleConcurrencyGet(c *gin.Context) error {
	q, err := parseConcQuery(c)
	if err != nil {
		return err
	}
	p := principal(c)
	groups, series, err := a.ConvQuery().ConcurrencySeries(p.Region, p.Account.ID, p.Project.ID, q, a.Clock().Now())
	if err != nil {
		return err
	}
	n := int(q.End.Sub(q.Start) / convquery.ConcurrencyStep)
	account, project := accountRef(p.Account.ID), projectRef(p.Project.ID)
	// The answer in one pass (encoding/json's bytes, handlers/jsonw.go):
	// a week is 2,016 intervals.
	answerJSON(c, http.StatusOK, func(b []byte) ([]byte, bool) {
		b = append(b, `{"account_id":`...)
		b = jsonw.AppendString(b, account)
		b = append(b, `,"project_id":`...)
		b = jsonw.AppendString(b, project)
		b = append(b, `,"intervals":[`...)
		first := true
		for t := range n {
			at := q.Start.Add(time.Duration(t) * convquery.ConcurrencyStep)
			for g := range series {
				if !first {
					b = append(b, ',')
				}
				first = false
				b = append(b, `{"time":"`...)
				b = at.AppendFormat(b, time.RFC3339)
				b = append(b, `","max_concurrent_conversations":`...)
				b = strconv.AppendInt(b, int64(series[g][t]), 10)
				if q.ByVariant {
					b = append(b, `,"variant_id":`...)
					b = jsonw.AppendString(b, groups[g].Id)
					b = append(b, `,"variant_name":`...)
					b = jsonw.AppendString(b, groups[g].Name)
				}
				b = append(b, '}')
			}
		}
		return append(b, "]}"...), true
	}, func() any { return convquery.ConcurrencyAnswer(account, project, q, n, groups, series) })
	return nil
}
