package handlers

// Bodies that are not JSON, and routes whose bodies may be larger than
// the instance's limit (an audio upload).

// Media documents a body that is not JSON: its media type and, for a
// form, its parts. As an Op's Body the request is read raw; as a
// Response's Body the answer is bytes of that type.
type Media struct {
	Type  string
	Parts []MediaPart
}

// MediaPart is a part of a form.
type MediaPart struct {
	Name   string
	Binary bool // a file, else text
	Doc    string
}

// routeBodyLimits maps the paths of routes with a body limit of their own
// (Op.MaxBody) to it: by path alone, as no other route with a body shares
// such a path.
func routeBodyLimits(routes []Route) map[string]int64 {
	out := map[string]int64{}
	for _, r := range routes {
		if n := r.Op.MaxBody; n > out[r.Path] {
			out[r.Path] = n
		}
	}
	return out
}
