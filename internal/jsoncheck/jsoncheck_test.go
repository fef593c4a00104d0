package jsoncheck

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckJSON(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	tooDeep := strings.Repeat(`{"a":`, MaxDepth) + "[" + "]" + strings.Repeat("}", MaxDepth)
	for _, tc := range []struct {
		in   string
		want *Error
	}{
		{`{"id":"E1"}`, nil},
		{` {"id":"E1"} ` + "\n", nil},
		{`[1,"a",null,true,{"a":{"a":1}},[]]`, nil},
		{`"text"`, nil},
		{`12.5e3`, nil},
		{`null`, nil},
		{`{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}`, nil}, // one key per object
		{deep, nil},
		{``, &Error{0, "holds no JSON value"}},
		{`   `, &Error{0, "holds no JSON value"}},
		{`{"id":"E1"}}}}`, &Error{11, "has data after the JSON value"}},
		{`{"id":"E1"} {"id":"E2"}`, &Error{12, "has data after the JSON value"}},
		{`1 2`, &Error{2, "has data after the JSON value"}},
		{`{"id":"E1"}x`, &Error{11, "has data after the JSON value"}},
		{`{"id":"E1","id":"E2"}`, &Error{11, `has the key "id" twice in one object`}},
		{`{"id":"E1","\u0069d":"E2"}`, &Error{11, `has the key "id" twice in one object`}},
		{`{"a":[{"b":1, "b":2}]}`, &Error{14, `has the key "b" twice in one object`}},
		{tooDeep, &Error{int64(5 * MaxDepth), "nests arrays and objects deeper than 64 levels"}},
		{`{"a":`, &Error{5, "ends before its JSON value is complete"}},
		{`[1,2`, &Error{4, "ends before its JSON value is complete"}},
		{`{"a" 1}`, &Error{5, "is not valid JSON: invalid character '1' after object key"}},
		{"\x00", &Error{0, "is not valid JSON: invalid character '\\x00' looking for beginning of value"}},
	} {
		err := Check([]byte(tc.in))
		if tc.want == nil {
			if err != nil {
				t.Errorf("Check(%.40q) = %v, want nil", tc.in, err)
			}
			continue
		}
		got, ok := err.(*Error)
		if !ok {
			t.Errorf("Check(%.40q) = %v, want %v", tc.in, err, tc.want)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Check(%.40q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// BenchmarkCheckJSON measures the strict reader on a chat message and on
// a body of about 1 MiB (the default body limit), against encoding/json's
// own validity check.
func BenchmarkCheckJSON(b *testing.B) {
	small := []byte(`{"conversation_id":"CONV-5061916695","message":"I want to check my order 12345","metadata":{"channel":"web"}}`)
	var big strings.Builder
	big.WriteString(`{"items":[`)
	for i := 0; big.Len() < 1<<20; i++ {
		if i > 0 {
			big.WriteByte(',')
		}
		fmt.Fprintf(&big, `{"id":"item-%d","name":"a name","tags":["x","y"],"n":%d}`, i, i)
	}
	big.WriteString(`]}`)
	for _, tc := range []struct {
		name string
		data []byte
	}{{"chat", small}, {"1MiB", []byte(big.String())}} {
		b.Run(tc.name+"/CheckJSON", func(b *testing.B) {
			b.SetBytes(int64(len(tc.data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := Check(tc.data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/json.Valid", func(b *testing.B) {
			b.SetBytes(int64(len(tc.data)))
			for b.Loop() {
				if !json.Valid(tc.data) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
