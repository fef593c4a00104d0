package handlers

// The edge's part of the request journal (package journal): each request
// the API served, and each step the timeline ran, becomes an entry.

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/coverage"
	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/journal"
)

// journalRequest journals a request the API served.
func (a *API) journalRequest(c *gin.Context, st *reqState) {
	r, rec := c.Request, &st.rec
	e := journal.Raw{Entry: journal.Entry{
		Time:          rec.at,
		Method:        r.Method,
		Path:          r.URL.Path,
		Region:        engine.RegionOf(r.URL.Path),
		Status:        rec.Status(),
		CorrelationID: st.correlation,
		Fault:         st.fault,
		Warnings:      st.warnings,
	}, RawQuery: r.URL.RawQuery, Header: r.Header, Request: st.body, Response: rec.body}
	if r.Context().Value(http.ServerContextKey) == nil {
		// An in-process request's maker may reuse its header map; net/http's
		// server makes one per request and never writes it after the handler.
		e.Header = r.Header.Clone()
	}
	if f := st.family; f != nil {
		e.Family = f.Name
		noteFamily(r.Context(), f.Name)
	}
	if st.hasJournalStatus {
		e.Status = st.journalStatus
	}
	if rec.own != nil {
		// The adopted buffer becomes the entry's; nothing reads it again.
		e.Buf, rec.own, rec.body = rec.own, nil, nil
	}
	a.journal.AddRaw(e)
}

// journalActivity journals a timeline step as the request it stands for
// and counts its operation's answer in the coverage as the timeline's.
func (a *API) journalActivity(act engine.Activity) {
	if op := a.tab.catalogue.OperationIndex(act.Step.Operation); op >= 0 {
		a.coverage.Request(op, act.Status, act.Code, act.Fault, act.Preset, coverage.SourceTimeline)
	}
	step := act.Step
	a.journal.AddRaw(journal.Raw{Entry: journal.Entry{Time: act.Time, Family: act.Family, Method: act.Method,
		Path: act.Path, Region: act.Region, Status: act.Status, Fault: act.Fault, Source: act.Source, Timeline: &step},
		RawQuery: act.Query, Request: act.Request, Response: act.Response})
}
