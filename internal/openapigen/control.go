package openapigen

// The control plane's document (docs/control.openapi.json), from the root
// package's table of control routes.

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/agentplatform/mockplatform/internal/apispec"
)

// ControlInfo is what the control document says of itself.
type ControlInfo struct {
	Title, Description string
	Tags               []Tag
	// ErrorBody is a value of the error answer's type ({"error": "..."}).
	ErrorBody any
}

// Control generates the control plane's document from its routes.
func Control(info ControlInfo, routes []apispec.Route) ([]byte, error) {
	d, err := New(Options{AlwaysInput: true})
	if err != nil {
		return nil, err
	}
	errSchema := d.Schema(info.ErrorBody, false)
	for _, rt := range routes {
		d.Add(rt.Method, rt.Path, controlOp(d, rt, errSchema))
	}
	return d.Bytes(info.Title, info.Description, info.Tags, Obj{"securitySchemes": Obj{
		"controlToken": Obj{"type": "http", "scheme": "bearer",
			"description": "The control token mockd was given (--control-token, MOCKD_CONTROL_TOKEN); none is needed without one."},
	}})
}

// controlOp builds the operation object of a route.
func controlOp(d *Doc, rt apispec.Route, errSchema any) Obj {
	op := rt.Op
	o := Obj{"operationId": op.ID, "summary": op.Summary, "tags": []string{op.Tag}}
	if op.Doc != "" {
		o["description"] = op.Doc
	}
	o["security"] = []any{Obj{}, Obj{"controlToken": []any{}}}
	if op.Open {
		o["security"] = []any{}
	}
	var params []any
	_, names := Path(rt.Path)
	for _, n := range names {
		i := slices.IndexFunc(op.Path, func(p apispec.Param) bool { return p.Name == n })
		if i < 0 {
			d.Fail(fmt.Errorf("openapigen: %s %s: path parameter %s is not documented", rt.Method, rt.Path, n))
			continue
		}
		p := op.Path[i]
		p.Required = true
		params = append(params, controlParam("path", p))
	}
	for _, p := range op.Query {
		params = append(params, controlParam("query", p))
	}
	if params != nil {
		o["parameters"] = params
	}
	if op.Body != nil || len(op.BodyTypes) > 0 {
		content := Obj{}
		for _, mt := range op.BodyTypes {
			content[mt] = Obj{} // text of any of the types (no schema: JSON is YAML too)
			if op.Body != nil {
				content[mt] = Obj{"schema": Obj{"type": "string"}}
			}
		}
		if op.Body != nil {
			content["application/json"] = Obj{"schema": d.Schema(op.Body, true)}
		}
		o["requestBody"] = Obj{"required": !op.BodyOptional, "content": content}
	}
	out := Obj{}
	for status, rs := range ByStatus(op.Responses, func(r apispec.Response) int { return r.Status }) {
		out[strconv.Itoa(status)] = controlResponse(d, status, rs)
	}
	for _, status := range errorStatuses(rt) {
		if _, ok := out[strconv.Itoa(status)]; !ok { // else documented with a body of its own
			out[strconv.Itoa(status)] = d.Response("Error"+strconv.Itoa(status), func() Obj {
				return Obj{"description": errorDoc(status), "content": Obj{"application/json": Obj{"schema": errSchema}}}
			})
		}
	}
	o["responses"] = out
	return o
}

// errorStatuses are a route's own error statuses and the control guard's
// (docs/security.md#the-control-plane).
func errorStatuses(rt apispec.Route) []int {
	list := slices.Clone(rt.Op.Errors)
	if !rt.Op.Open {
		list = append(list, http.StatusUnauthorized, http.StatusForbidden, http.StatusInternalServerError)
	}
	if rt.Method == http.MethodPost {
		list = append(list, http.StatusUnsupportedMediaType)
	}
	if rt.Op.Body != nil || len(rt.Op.BodyTypes) > 0 {
		list = append(list, http.StatusBadRequest, http.StatusRequestEntityTooLarge)
	}
	slices.Sort(list)
	return slices.Compact(list)
}

func errorDoc(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "The control token is missing or wrong (mockd --control-token)."
	case http.StatusForbidden:
		return "Refused: a Host that is not loopback nor allowed, or a cross-site Origin (docs/security.md)."
	case http.StatusUnsupportedMediaType:
		return "The Content-Type is not one the operation takes (docs/security.md)."
	}
	return http.StatusText(status) + "."
}

// controlResponse is the response object of one status.
func controlResponse(d *Doc, status int, rs []apispec.Response) Obj {
	o := Obj{"description": http.StatusText(status) + "."}
	if rs[0].Doc != "" {
		o["description"] = rs[0].Doc
	}
	content := Obj{}
	for _, r := range rs {
		if r.Body == nil {
			continue
		}
		s := d.Schema(r.Body, false)
		mt := r.Type
		if mt == "" {
			mt = "application/json"
		}
		if prev, ok := content[mt].(Obj); ok {
			alts, _ := prev["schema"].(Obj)["oneOf"].([]any)
			if alts == nil {
				alts = []any{prev["schema"]}
			}
			s = Obj{"oneOf": append(alts, s)}
		}
		content[mt] = Obj{"schema": s}
	}
	if len(content) > 0 {
		o["content"] = content
	}
	return o
}

// controlParam is the parameter object of a path or query parameter.
func controlParam(in string, p apispec.Param) Obj {
	s := Obj{"type": "string"}
	if p.Type != "" {
		s["type"] = p.Type
	}
	if p.Enum != nil {
		s["enum"] = p.Enum
	}
	if p.Min != nil {
		s["minimum"] = *p.Min
	}
	o := Obj{"name": p.Name, "in": in, "schema": s, "description": p.Doc}
	if p.Required {
		o["required"] = true
	}
	return o
}
