package mockplatform

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
// docs/openapi.json, docs/control.openapi.json, docs/parity.md) with
// libraries and data (internal/realapi's facts) that no binary needs.
var testTools = []string{"internal/schemagen", "internal/oapicheck", "internal/docgen", "internal/openapigen", "internal/realapi"}

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

// layers ranks the module's packages: a package imports only packages of a
// lower rank, so imports point one way (cmd/mockd → mockplatform →
// handlers → engine → the engine's family packages → engine/core →
// store, faults, scenario, clock, coverage) and a request travels edge →
// engine → store and back. Every package under engine/ has a rank.
var layers = map[string]int{
	"clock": 0, "coverage": 0, "faults": 1, "store": 1, "scenario": 2, "timeline": 3, "journal": 3,
	// What the engine's packages share, and the conversation rules.
	"engine/core": 4, "engine/dialogue": 4,
	// The engine's family packages: each a service with its own state.
	"engine/audio": 5, "engine/convquery": 5, "engine/seeding": 5, "engine/telephony": 5, "engine/testruns": 5,
	"engine": 6, "handlers": 7, "console": 8, ".": 9, "mocktest": 10, "cmd/mockd": 11,
}

// skipsLayer lists what a package may not import although it ranks lower:
// the edge reaches the store only through the engine.
var skipsLayer = map[string][]string{"handlers": {"store"}}

// TestImportsPointOneWay fails when a package of the module imports one
// of the same or a higher rank, when the engine or one of its packages
// imports gin (they never see a request), when the edge imports the store,
// or when a package under engine/ has no rank.
func TestImportsPointOneWay(t *testing.T) {
	t.Parallel()
	const module = "github.com/agentplatform/mockplatform"
	engineDirs, err := filepath.Glob("engine/*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range engineDirs {
		if dir := filepath.ToSlash(filepath.Dir(f)); layers[dir] == 0 {
			t.Errorf("package %s has no rank in layers", dir)
		}
	}
	for pkg, rank := range layers {
		files, err := filepath.Glob(filepath.Join(pkg, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("package %s: no files (%v)", pkg, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range file.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if strings.HasPrefix(pkg, "engine") && strings.HasPrefix(p, "github.com/gin-gonic/") {
					t.Errorf("%s imports %s: the engine never sees a request", f, p)
				}
				rel, ok := strings.CutPrefix(p, module)
				if !ok {
					continue
				}
				rel = strings.TrimPrefix(rel, "/")
				if rel == "" {
					rel = "."
				}
				if r, ranked := layers[rel]; ranked && r >= rank {
					t.Errorf("%s imports %s: imports point one way (%s ranks %d, %s %d)", f, p, pkg, rank, rel, r)
				}
				if slices.Contains(skipsLayer[pkg], rel) {
					t.Errorf("%s imports %s: it reaches it through the engine only", f, p)
				}
			}
		}
	}
}
