package core

import (
	"fmt"
	"net/url"
	"strconv"
)

// ReadPage reads limit (1 to max, default def) and offset (at least 0)
// of a list's query.
func ReadPage(vals url.Values, def, maxLimit int) (limit, offset int, err error) {
	var fields []FieldError
	limit = def
	if v := vals.Get("limit"); vals.Has("limit") {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxLimit {
			fields = append(fields, FieldError{Field: "limit", Message: fmt.Sprintf("must be an integer from 1 to %d", maxLimit)})
		}
		limit = n
	}
	if v := vals.Get("offset"); vals.Has("offset") {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			fields = append(fields, FieldError{Field: "offset", Message: "must be an integer of at least 0"})
		}
		offset = n
	}
	if len(fields) > 0 {
		return 0, 0, Invalid(CodeValidation, MsgValidationFailed, fields...)
	}
	return limit, offset, nil
}
