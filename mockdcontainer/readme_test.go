package mockdcontainer

// The README's instructions for the unpublished modules and its
// testcontainers snippet work as written: a throwaway module runs the
// README's go mod edit commands against this working tree, offline (the
// dependencies from the module cache), compiles the snippet and runs its
// in-process test (the container one needs Docker: the container tests
// cover it).

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeBlock returns the first fenced block of lang under the README
// heading.
func readmeBlock(t *testing.T, heading, lang string) string {
	t.Helper()
	data, err := os.ReadFile("../README.md")
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
	t.Fatalf("README.md: no ```%s block under %q", lang, heading)
	return ""
}

func TestReadmeModuleSetup(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a consumer module")
	}
	setup := readmeBlock(t, "Adding the Go modules to your module", "sh")
	snippet := readmeBlock(t, "From Go with testcontainers", "go")
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "checkout_test.go"), []byte(snippet), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "CLONE="+root, "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOPROXY=off",
		"GOSUMDB=off", "TESTCONTAINERS_RYUK_DISABLED=true")
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run(goTool(), "mod", "init", "example.com/checkout")
	run("sh", "-euc", setup)
	run(goTool(), "vet", ".")
	out := run(goTool(), "test", "-count=1", "-v", "-run", "^TestCheckoutInProcess$", ".")
	if !strings.Contains(out, "--- PASS: TestCheckoutInProcess") {
		t.Fatalf("the README's in-process test did not pass:\n%s", out)
	}
}
