package handlers

import "context"

// RequestInfo receives what the API learnt about a request whose context
// carries it (WithRequestInfo): the family that served it, as the journal
// records it. The platform's request log reads it after the request.
type RequestInfo struct {
	Family string
}

type requestInfoKey struct{}

// WithRequestInfo returns ctx carrying ri, which the API fills in.
func WithRequestInfo(ctx context.Context, ri *RequestInfo) context.Context {
	return context.WithValue(ctx, requestInfoKey{}, ri)
}

// noteFamily records the family of a request in its RequestInfo, if any.
func noteFamily(ctx context.Context, family string) {
	if ri, ok := ctx.Value(requestInfoKey{}).(*RequestInfo); ok {
		ri.Family = family
	}
}
