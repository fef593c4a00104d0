package mockplatform_test

// The README's snippets are tested as written: TestReadmeGoSnippet compiles
// and runs the Go test of "In a Go test" in a throwaway module, and
// TestReadmeCurlSession (readme_unix_test.go) runs the shell session of
// "A curl session against the default scenario" under sh, checking every
// output line against the README's own comments.

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readmeBlock returns the first fenced block of language lang in the README
// section whose heading is heading.
func readmeBlock(t *testing.T, heading, lang string) string {
	t.Helper()
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var block []string
	section, inBlock := false, false
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case inBlock && line == "```":
			return strings.Join(block, "\n") + "\n"
		case inBlock:
			block = append(block, line)
		case strings.HasPrefix(line, "#"):
			section = strings.TrimLeft(line, "# ") == heading
		case section && line == "```"+lang:
			inBlock = true
		}
	}
	t.Fatalf("README.md: no ```%s block under the heading %q", lang, heading)
	return ""
}

// requireGo skips the test when the go command is not on PATH.
func requireGo(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: the README snippets need it")
	}
	return gobin
}

// offlineGoEnv is the environment for go commands run by these tests: no
// network (every module comes from the module cache), go.mod updated as
// needed, the local toolchain, no workspace.
func offlineGoEnv(t *testing.T, gobin string) []string {
	t.Helper()
	out, err := exec.Command(gobin, "env", "GOFLAGS").Output()
	if err != nil {
		t.Fatalf("go env GOFLAGS: %v", err)
	}
	flags := strings.TrimSpace(string(out) + " -mod=mod")
	return append(os.Environ(), "GOFLAGS="+flags, "GOPROXY=off", "GOSUMDB=off", "GOWORK=off", "GOTOOLCHAIN=local")
}

// TestReadmeGoSnippet writes the README's Go test into a module of its own
// that requires this working tree (a replace directive) and runs it.
func TestReadmeGoSnippet(t *testing.T) {
	t.Parallel()
	gobin := requireGo(t)
	src := readmeBlock(t, "In a Go test", "go")
	if !strings.Contains(src, "func TestSupportBot(t *testing.T)") {
		t.Fatalf("the README's Go snippet no longer defines TestSupportBot:\n%s", src)
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module example.com/readmesnippet\n\ngo 1.26\n\n" +
		"require github.com/agentplatform/mockplatform v0.0.0\n\n" +
		"replace github.com/agentplatform/mockplatform => " + strconv.Quote(root) + "\n"
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "support_test.go": []byte(src)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gobin, "test", "-count=1", "-v", "-run", "^TestSupportBot$", ".")
	cmd.Dir = dir
	cmd.Env = offlineGoEnv(t, gobin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test of the README's Go snippet: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestSupportBot") {
		t.Fatalf("the README's TestSupportBot did not run:\n%s", out)
	}
}

// expectedOutputs reads the outputs a shell block documents: a comment
// line "# {...}" is one output line (JSON), continued by comment lines
// that start with "#  "; "…" stands for any text. Other comments are prose.
func expectedOutputs(block string) []string {
	var want []string
	for line := range strings.SplitSeq(block, "\n") {
		switch {
		case strings.HasPrefix(line, "# {"):
			want = append(want, strings.TrimPrefix(line, "# "))
		case strings.HasPrefix(line, "#  ") && len(want) > 0:
			want[len(want)-1] += strings.TrimSpace(strings.TrimPrefix(line, "#"))
		}
	}
	return want
}

// outputPattern turns a documented output into an anchored regexp.
func outputPattern(doc string) *regexp.Regexp {
	parts := strings.Split(doc, "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}

func TestReadmeExpectedOutputs(t *testing.T) {
	t.Parallel()
	block := "cmd\n# {\"a\":1,\n#  \"b\":\"…\"}\n# prose\ncmd2 # inline\n# {\"c\":2}\n"
	got := expectedOutputs(block)
	want := []string{`{"a":1,"b":"…"}`, `{"c":2}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("expectedOutputs = %q, want %q", got, want)
	}
	if re := outputPattern(want[0]); !re.MatchString(`{"a":1,"b":"x y"}`) || re.MatchString(`{"a":1,"b":"x"} tail`) {
		t.Fatalf("outputPattern(%q) = %v", want[0], re)
	}
}
