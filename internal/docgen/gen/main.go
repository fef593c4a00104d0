// Command gen writes the repository's generated documents (package
// docgen); go generate ./internal/docgen runs it.
package main

import (
	"flag"
	"log"
	"os"
	"path/filepath"

	"github.com/agentplatform/mockplatform/internal/docgen"
)

func main() {
	root := flag.String("root", "../..", "the repository's root")
	flag.Parse()
	for _, d := range docgen.Documents(*root) {
		b, err := d.Generate()
		if err != nil {
			log.Fatalf("%s: %v", d.File, err)
		}
		if err := os.WriteFile(filepath.Join(*root, d.File), b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
