package faults

import (
	"strings"
	"testing"
)

func TestPatternMatch(t *testing.T) {
	tests := []struct {
		pattern string
		path    string
		want    bool
	}{
		{"", "/anything/at/all", true},
		{"", "", true},
		{"/", "/", true},
		{"/", "", true},
		{"/", "/v1", false},
		{"/v1/acme/support/chat/respond", "/v1/acme/support/chat/respond", true},
		{"/v1/acme/support/chat/respond", "/v1/acme/support/chat/respond/", true},
		{"/v1/acme/support/chat/respond/", "/v1/acme/support/chat/respond", true},
		{"/v1/acme/support/chat/respond", "/v1/acme/support/chat", false},
		{"/v1/acme/support/chat/respond", "/v1/acme/support/chat/respond/x", false},
		{"/v1/acme/support/chat/respond", "/v1/ACME/support/chat/respond", false},
		// "*" is exactly one segment.
		{"/v1/*/*/chat/respond", "/v1/acme/support/chat/respond", true},
		{"/v1/*/*/chat/respond", "/v1/acme/chat/respond", false},
		{"/v1/*/*/chat/respond", "/v1/a/b/c/chat/respond", false},
		{"/v1/*", "/v1", false},
		{"/v1/*", "/v1/x", true},
		{"/*", "/", false},
		// "**" is zero or more segments.
		{"/**", "/", true},
		{"/**", "", true},
		{"/**", "/a/b/c", true},
		{"/v1/**", "/v1", true},
		{"/v1/**", "/v1/", true},
		{"/v1/**", "/v1/a/b", true},
		{"/v1/**", "/v2/a", false},
		{"/**/respond", "/respond", true},
		{"/**/respond", "/v1/acme/support/chat/respond", true},
		{"/**/respond", "/v1/acme/support/chat/respond/more", false},
		{"/v1/**/chat/*", "/v1/chat/respond", true},
		{"/v1/**/chat/*", "/v1/a/b/chat/respond", true},
		{"/v1/**/chat/*", "/v1/a/b/chat", false},
		{"/**/chat/**", "/chat", true},
		{"/**/chat/**", "/x/chat/y/z", true},
		{"/**/chat/**", "/x/chats/y", false},
		{"/**/a/**/b", "/a/x/a/y/b", true},
		{"/**/a/**/b", "/a/b/a", false},
		{"/**/**/x", "/x", true},
		{"/**/*/x", "/x", false},
		{"/**/*/x", "/q/x", true},
		{"/a/**/a/b", "/a/a/a/b", true},
		{"/a/**/a/b", "/a/a/b/a/b", true},
		{"/a/**/a/b", "/a/b", false},
		// Globs within a segment.
		{"/conversations/CONV-*", "/conversations/CONV-123", true},
		{"/conversations/CONV-*", "/conversations/CONV-", true},
		{"/conversations/CONV-*", "/conversations/conv-123", false},
		{"/conversations/CONV-*", "/conversations/CONV-1/messages", false},
		{"/conversations/CONV-*/messages", "/conversations/CONV-1/messages", true},
		{"/conversations/CONV-?", "/conversations/CONV-1", true},
		{"/conversations/CONV-?", "/conversations/CONV-12", false},
		{"/conversations/[abc]x", "/conversations/bx", true},
		{"/conversations/[abc]x", "/conversations/dx", false},
	}
	for _, tt := range tests {
		p, err := compilePattern(tt.pattern)
		if err != nil {
			t.Fatalf("compilePattern(%q): %v", tt.pattern, err)
		}
		if got := p.match(tt.path); got != tt.want {
			t.Errorf("pattern %q, path %q: match = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func TestPatternErrors(t *testing.T) {
	tests := []struct {
		pattern string
		want    string
	}{
		{"v1/chat", `must start with "/"`},
		{"*", `must start with "/"`},
		{"/v1//chat", "empty segment"},
		{"/v1/a**", `"**" must be a whole segment`},
		{"/v1/***", `"**" must be a whole segment`},
		{"/v1/[a", "bad glob segment"},
		{`/v1/a\`, "bad glob segment"},
	}
	for _, tt := range tests {
		_, err := compilePattern(tt.pattern)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("compilePattern(%q) = %v, want error containing %q", tt.pattern, err, tt.want)
		}
	}
}

func BenchmarkPatternMatch(b *testing.B) {
	p, err := compilePattern("/**/a/**/b/**/c")
	if err != nil {
		b.Fatal(err)
	}
	path := "/" + strings.Repeat("a/", 30) + "b/x/y"
	for b.Loop() {
		p.match(path)
	}
}
