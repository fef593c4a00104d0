//go:build unix

package mockplatform_test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// docBlock returns the first fenced block of language lang under the
// heading of a Markdown file.
func docBlock(t *testing.T, file, heading, lang string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var block []string
	section, inBlock := false, false
	sc := bufio.NewScanner(bytes.NewReader(data))
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
	t.Fatalf("%s: no ```%s block under the heading %q", file, lang, heading)
	return ""
}

// TestCoverageRecipesAsWritten: docs/coverage.md's Go recipe is the test
// coverage_recipe_test.go runs, and its shell recipe runs as written under
// sh from the repository's root (its own mockd built from this working
// tree, on a free loopback port instead of 8080), printing the lines its
// "#> " comments document.
func TestCoverageRecipesAsWritten(t *testing.T) {
	t.Parallel()
	goBlock := docBlock(t, "docs/coverage.md", "Go recipe", "go")
	src, err := os.ReadFile("coverage_recipe_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), goBlock) {
		t.Errorf("docs/coverage.md's Go recipe is not coverage_recipe_test.go's test:\n%s", goBlock)
	}

	gobin := requireGo(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not on PATH: the shell recipe needs it")
	}
	shell, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("sh is not on PATH")
	}
	block := docBlock(t, "docs/coverage.md", "Shell recipe", "sh")
	var want []string
	for line := range strings.SplitSeq(block, "\n") {
		if rest, ok := strings.CutPrefix(line, "#> "); ok {
			want = append(want, rest)
		}
	}
	addr := freeLoopbackAddr(t)
	tmp := t.TempDir()
	script := filepath.Join(tmp, "recipe.sh")
	if err := os.WriteFile(script, []byte(strings.ReplaceAll(block, readmeAddr, addr)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, shell, script)
	cmd.Env = append(offlineGoEnv(t, gobin), "TMPDIR="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if runErr != nil || stderr.Len() > 0 {
		log, _ := os.ReadFile(filepath.Join(tmp, "mockd.log"))
		t.Fatalf("the shell recipe failed: %v\nstderr:\n%s\nstdout:\n%s\nmockd log:\n%s", runErr, stderr.Bytes(), stdout.Bytes(), log)
	}
	if got := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the shell recipe printed:\n%s\nits comments document:\n%s", stdout.String(), strings.Join(want, "\n"))
	}
	for _, f := range []string{"coverage-shard-1.json", "coverage-shard-1.xml", "coverage.md"} {
		if fi, err := os.Stat(filepath.Join(tmp, f)); err != nil || fi.Size() == 0 {
			t.Errorf("the recipe left no %s: %v", f, err)
		}
	}
}
