package mockplatform

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// wallClockAllowed is the one file that may read the wall clock: the
// virtual clock itself (docs/time.md).
const wallClockAllowed = "clock/clock.go"

// wallClockFuncs read the wall clock: time.Now, and time.Since and
// time.Until, which call it behind the scenes.
var wallClockFuncs = map[string]bool{"Now": true, "Since": true, "Until": true}

// TestNoWallClock fails when a non-test Go file of the module, other than
// clock/clock.go, reads the wall clock: a "time.Now(" in its text (what a
// plain grep finds), or any reference to time.Now, time.Since or time.Until
// through whatever name the file imports "time" as (which also catches a
// function value such as jwt.WithTimeFunc(time.Now)). Comments do not count.
// Nested modules (a directory with its own go.mod) are not part of this
// module and are skipped.
func TestNoWallClock(t *testing.T) {
	t.Parallel()
	grep := regexp.MustCompile(`\btime\.Now\(`)
	var files int
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			if path != "." {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.ToSlash(path) == wallClockAllowed {
			return nil
		}
		files++
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		for _, hit := range wallClockUses(fset, f) {
			t.Errorf("%s: reads the wall clock (time.Since and time.Until call time.Now); use the platform's clock (a.clock.Now()) instead", hit)
		}
		// The plain grep, on code with comments blanked out.
		code := append([]byte(nil), src...)
		for _, cg := range f.Comments {
			for i := fset.Position(cg.Pos()).Offset; i < fset.Position(cg.End()).Offset; i++ {
				if code[i] != '\n' {
					code[i] = ' '
				}
			}
		}
		for _, loc := range grep.FindAllIndex(code, -1) {
			line := 1 + strings.Count(string(code[:loc[0]]), "\n")
			t.Errorf("%s:%d: contains time.Now(", path, line)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 {
		t.Fatalf("only %d Go files checked: is the test running from the module root?", files)
	}
}

// wallClockUses returns the positions of references to the wall clock
// functions of package time in f.
func wallClockUses(fset *token.FileSet, f *ast.File) []string {
	names := map[string]bool{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if path != "time" {
			continue
		}
		name := "time"
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "." {
			// A dot import makes Now a bare identifier: flag the import.
			return []string{fset.Position(imp.Pos()).String() + ": dot import of package time"}
		}
		names[name] = true
	}
	if len(names) == 0 {
		return nil
	}
	var hits []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && names[id.Name] && id.Obj == nil && wallClockFuncs[sel.Sel.Name] {
			hits = append(hits, fset.Position(sel.Pos()).String()+": time."+sel.Sel.Name)
		}
		return true
	})
	return hits
}

func TestWallClockUsesFindsAliases(t *testing.T) {
	t.Parallel()
	src := `package x
import (
	tm "time"
	"github.com/golang-jwt/jwt/v5"
)
// time.Now() in a comment does not count.
var opt = jwt.WithTimeFunc(tm.Now)
func f() { _ = tm.Since(tm.Time{}) }
func g(tm struct{ Now func() }) { tm.Now() } // a local shadows the import
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	got := wallClockUses(fset, f)
	want := []string{"x.go:7:28: time.Now", "x.go:8:16: time.Since"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("hits = %q, want %q", got, want)
	}
}
