package engine

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The engine_ files are the HTTP-free engine: none of them imports gin, so
// none can reach a request.
func TestEngineFilesImportNoGin(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("engine_*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no engine files: %v", err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, "github.com/gin-gonic/") {
				t.Errorf("%s imports %s: the engine must not see requests", f, p)
			}
		}
	}
}
