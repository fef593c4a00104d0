package mockplatform

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// testOnlyAllowed is the one package whose non-test files may import
// testing and go-cmp: the behaviour suite and its helpers.
const testOnlyAllowed = "mocktest"

// testTools are packages that only tests and the document generator
// (internal/docgen, which go generate runs) import: they generate and
// check the committed documents (docs/scenario.schema.json,
// docs/openapi.json, docs/control.openapi.json) with libraries that no
// binary needs.
var testTools = []string{"internal/schemagen", "internal/oapicheck", "internal/docgen", "internal/openapigen"}

// TestNoTestingInBinaries fails when a non-test Go file of the module,
// outside mocktest, imports testing or go-cmp, or one of the test tools:
// mockd (and any program that imports mockplatform) must link none of
// them. Nested modules are skipped.
func TestNoTestingInBinaries(t *testing.T) {
	t.Parallel()
	var files int
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path == "." {
				return nil
			}
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor" ||
				filepath.ToSlash(path) == testOnlyAllowed {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == "testing" || strings.HasPrefix(p, "github.com/google/go-cmp") {
				t.Errorf("%s imports %s (only %s/ may)", path, p, testOnlyAllowed)
			}
			for _, tool := range testTools {
				if p == "github.com/agentplatform/mockplatform/"+tool && !isTestTool(path) {
					t.Errorf("%s imports %s, which only tests may import", path, p)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 20 {
		t.Fatalf("checked only %d files", files)
	}
}

// isTestTool reports whether a file belongs to a test tool (which may
// import the others).
func isTestTool(path string) bool {
	for _, tool := range testTools {
		if strings.HasPrefix(filepath.ToSlash(path), tool+"/") {
			return true
		}
	}
	return false
}
