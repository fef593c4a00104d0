package handlers

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/internal/jsonw"

	"github.com/gin-gonic/gin"
)

// shape is the error body shape of a family.
type shape int

const (
	// shapeEnvelope: {"success":false,"error","error_id","error_code","error_message","data":null}
	// (chat, conversations v2/v3; docs/fidelity.md M3).
	shapeEnvelope shape = iota + 1
	// shapeBuilder: {"message","errors":[{"field","message"}]} (agents,
	// alerts, webhooks; docs/fidelity.md M3, D10).
	shapeBuilder
	// shapeErrorMessage: {"error_message"} (conversations v1, concurrency,
	// external events, handoff; docs/fidelity.md M3).
	shapeErrorMessage
	// shapeDNI: {"success":false,"error":<status text>,"message"} (docs/fidelity.md G19).
	shapeDNI
	// shapeOutbound: {"error","code"} (docs/fidelity.md G18).
	shapeOutbound
	// shapeMessaging: {"error","message"} (docs/fidelity.md G20: clients read either key).
	shapeMessaging
	// shapeControl: {"error"} (the mock's own control plane).
	shapeControl
)

// render writes err in the shape of the request's family.
func (a *API) render(c *gin.Context, err error) {
	var e *engine.Error
	if !errors.As(err, &e) {
		a.Log.Error("internal error", "path", c.Request.URL.Path, "err", err)
		e = &engine.Error{Kind: engine.KindInternal, Message: "Internal server error."}
	}
	for k, v := range e.Headers {
		c.Header(k, v)
	}
	stateOf(c).code = e.Code // for the coverage counts
	status := e.HttpStatus()
	if e.Body != nil {
		c.Data(status, "application/json", e.Body)
		c.Abort()
		return
	}
	sh := shapeControl
	if f := familyOf(c); f != nil {
		sh = f.Shape
		if sh == shapeBuilder && a.View().Fidelity(engine.SwitchBuilderErrors) == "envelope" {
			sh = shapeEnvelope
		}
	}
	if sh == shapeEnvelope {
		buf := jsonw.GetBuf()
		*buf = appendEnvelope(*buf, envelope{Error: e.Message, ErrorID: correlationID(c), ErrorCode: e.ErrorCode(), ErrorMessage: e.Message})
		answerBuf(c, status, buf)
		c.Abort()
		return
	}
	c.AbortWithStatusJSON(status, errorBody(sh, e, status, correlationID(c)))
}

func errorBody(sh shape, e *engine.Error, status int, corr string) any {
	switch sh {
	case shapeEnvelope:
		return envelope{Error: e.Message, ErrorID: corr, ErrorCode: e.ErrorCode(), ErrorMessage: e.Message}
	case shapeBuilder:
		fields := e.Fields
		if fields == nil {
			fields = []engine.FieldError{}
		}
		return builderError{Message: e.Message, Errors: fields}
	case shapeErrorMessage:
		return errorMessageError{ErrorMessage: e.Message}
	case shapeDNI:
		return dniError{Error: http.StatusText(status), Message: e.Message}
	case shapeOutbound:
		return outboundError{Code: e.ErrorCode(), Error: e.Message}
	case shapeMessaging:
		return messagingError{Error: e.Message, Message: e.Message}
	default:
		return controlError{Error: e.Message}
	}
}

// shapeBodies are each shape's error body and name, for the document.
var shapeBodies = map[shape]ErrorBody{
	shapeEnvelope:     {Name: "Envelope", Body: envelope{}},
	shapeBuilder:      {Name: "Builder", Body: builderError{}},
	shapeErrorMessage: {Name: "ErrorMessage", Body: errorMessageError{}},
	shapeDNI:          {Name: "DNI", Body: dniError{}},
	shapeOutbound:     {Name: "Outbound", Body: outboundError{}},
	shapeMessaging:    {Name: "Messaging", Body: messagingError{}},
	shapeControl:      {Name: "Control", Body: controlError{}},
}

// ErrorBody is an error body a family answers, for the document.
type ErrorBody struct {
	Name string // the shape's: "Envelope", "Builder", …
	Body any
	// Fidelity marks a body that a fidelity switch selects.
	Fidelity *engine.Fidelity
}

// ErrorBodies are the error bodies a family answers (docs/fidelity.md D10).
func (f *Family) ErrorBodies() []ErrorBody {
	out := []ErrorBody{shapeBodies[f.Shape]}
	if f.Shape == shapeBuilder {
		env := shapeBodies[shapeEnvelope]
		env.Fidelity = &engine.Fidelity{ID: "D10", Switch: engine.SwitchBuilderErrors, Value: "envelope", Note: "the standard envelope"}
		out = append(out, env)
	}
	return out
}

type (
	errorMessageError struct {
		ErrorMessage string `json:"error_message"`
	}
	// outboundError and messagingError keep their keys in map order.
	outboundError struct {
		Code  string `json:"code"`
		Error string `json:"error"`
	}
	messagingError struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	controlError struct {
		Error string `json:"error"`
	}
)

// envelope is the real service's standard error envelope (docs/api.md#errors;
// docs/fidelity.md M3).
type envelope struct {
	Success      bool            `json:"success"`
	Error        string          `json:"error"`
	ErrorID      string          `json:"error_id"`
	ErrorCode    string          `json:"error_code"`
	ErrorMessage string          `json:"error_message"`
	Data         json.RawMessage `json:"data"`
}

func (e envelope) MarshalJSON() ([]byte, error) {
	type plain envelope
	p := plain(e)
	p.Data = json.RawMessage("null")
	return json.Marshal(p)
}

// appendEnvelope appends the JSON of v, as its MarshalJSON writes it.
func appendEnvelope(b []byte, v envelope) []byte {
	b = append(b, `{"success":`...)
	b = strconv.AppendBool(b, v.Success)
	b = append(b, `,"error":`...)
	b = jsonw.AppendString(b, v.Error)
	b = append(b, `,"error_id":`...)
	b = jsonw.AppendString(b, v.ErrorID)
	b = append(b, `,"error_code":`...)
	b = jsonw.AppendString(b, v.ErrorCode)
	b = append(b, `,"error_message":`...)
	b = jsonw.AppendString(b, v.ErrorMessage)
	return append(b, `,"data":null}`...)
}

type builderError struct {
	Message string              `json:"message"`
	Errors  []engine.FieldError `json:"errors"`
}

type dniError struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
	Message string `json:"message"`
}
