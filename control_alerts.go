package mockplatform

// Control-plane operations of the alerts family.

import (
	"context"
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/store"
)

// EvaluateAlerts runs one alert evaluation pass now, and the webhook
// attempts it starts, before it returns (the timer keeps its cadence).
func (p *Platform) EvaluateAlerts() {
	_ = p.api.EvaluateAlerts(context.Background()) // fails only on a closed platform
}

// RecordFunctionError records a function error on a conversation now (an
// input of the function_errors metric).
func (p *Platform) RecordFunctionError(conversationID string) error {
	return p.api.RecordConversationEvent(conversationID, "function_error")
}

// RecordCrash records a call crash on a conversation now and ends it (an
// input of the call_crashes metric).
func (p *Platform) RecordCrash(conversationID string) error {
	return p.api.RecordConversationEvent(conversationID, "crash")
}

// RecordAPIError records a runtime API error of a project now (an input of
// the api_errors metric, besides 5xx answers of runtime families).
func (p *Platform) RecordAPIError(account, project string) error {
	return p.api.RecordAPIError(account, project)
}

// handleControlEvaluate handles "POST /_mock/alerts/evaluate".
func (p *Platform) handleControlEvaluate(c *gin.Context) {
	if err := p.api.EvaluateAlerts(c.Request.Context()); err != nil {
		controlError(c, http.StatusServiceUnavailable, err.Error())
		return
	}
	c.JSON(http.StatusOK, evaluatedAnswer{EvaluatedAt: p.Now()})
}

// handleControlAlertInput handles "POST /_mock/alerts/inputs".
func (p *Platform) handleControlAlertInput(c *gin.Context) {
	var req alertInput
	if !bindControl(c, maxControlSmall, &req, "body must be JSON: {kind, conversation_id} or {kind, account, project}") {
		return
	}
	var err error
	switch req.Kind {
	case "function_error":
		err = p.RecordFunctionError(req.ConversationID)
	case "crash":
		err = p.RecordCrash(req.ConversationID)
	case "api_error":
		err = p.RecordAPIError(req.Account, req.Project)
	default:
		controlError(c, http.StatusBadRequest, `kind must be function_error, crash or api_error`)
		return
	}
	if errors.Is(err, store.ErrNotFound) {
		controlError(c, http.StatusNotFound, "conversation not found")
		return
	}
	if err != nil {
		controlError(c, http.StatusBadRequest, err.Error())
		return
	}
	c.JSON(http.StatusOK, recordedAnswer{Recorded: req.Kind})
}
