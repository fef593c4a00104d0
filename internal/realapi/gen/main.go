// Command gen writes internal/realapi/facts.json from the real service's
// OpenAPI documents (a directory of *.json files, given with -docs or
// $REAL_OPENAPI_DIR). Without either it says so and writes nothing: the
// committed facts stay as they are.
//
//	go run ./internal/realapi/gen -docs DIR
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/agentplatform/mockplatform/internal/realapi"
)

func main() {
	docs := flag.String("docs", os.Getenv(realapi.DocsEnv), "the directory of the real OpenAPI documents")
	out := flag.String("out", filepath.Join("internal", "realapi", realapi.FactsFile), "the facts file to write")
	flag.Parse()
	if *docs == "" {
		fmt.Fprintf(os.Stderr, "gen: no documents (give -docs or $%s): %s left as it is\n", realapi.DocsEnv, *out)
		return
	}
	f, err := realapi.Extract(*docs)
	if err != nil {
		log.Fatal(err)
	}
	b, err := f.Marshal()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatal(err)
	}
}
