package mockplatform

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The repository stands alone: its code, comments and documents point only
// at files and sections it contains. These tests check that every relative
// Markdown link and every docs/<file>.md#anchor cited in Go or Markdown
// resolves, that the fidelity ids cited after docs/fidelity.md exist, and
// that no text cites a document the repository does not hold (the
// interface specification's section numbers, notes on the real service,
// project files or tracker issues): describe the fact and cite
// docs/api.md, docs/fidelity.md and the other documents of docs/ instead.

// outsideRefs are the forms of a reference to a document outside the
// repository. They are written so that they do not match their own text.
var outsideRefs = []*regexp.Regexp{
	regexp.MustCompile(`\bCONTRAC[T]\b`),                      // the project's contract file
	regexp.MustCompile(`\.\./shared\b|/work/share[d]`),        // the project's shared folder
	regexp.MustCompile(`(?i)\bspec\s+(?:section\s*)?§?\s*\d`), // the spec and a section number
	regexp.MustCompile(`(?i)\bspec(?:'s|s)?\s+section\b`),     // a named section of the spec
	regexp.MustCompile(`(?i)\bnotes?\s*(?:§|section\s*\d)`),   // the notes and a section
	regexp.MustCompile(`(?i)\bissues?\s+#?\d`),                // a tracker issue by number
	regexp.MustCompile(`(?i)\b(?:libraries|real-service-notes|style-anchors|agent-platform)\.md\b`),
}

// repoFile is a text file of the repository that the checks read.
type repoFile struct {
	path  string // slash-separated, relative to the repository root
	lines []string
}

// repoTextFiles returns the files whose references are checked: Go, Markdown,
// YAML, shell scripts, Dockerfiles and the generated JSON documents, of this
// module and the nested ones.
func repoTextFiles(t *testing.T) []repoFile {
	t.Helper()
	var out []repoFile
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(name) {
		case ".go", ".md", ".yaml", ".yml", ".sh", ".json":
		default:
			if name != "Dockerfile" {
				return nil
			}
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, repoFile{path: filepath.ToSlash(p), lines: strings.Split(string(b), "\n")})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 100 {
		t.Fatalf("found %d files: run the test from the repository root", len(out))
	}
	return out
}

// commentMarker is what continues a comment or a paragraph on the next
// line, dropped when two lines are joined.
var commentMarker = regexp.MustCompile(`^\s*(?://+|#+)?\s*`)

// TestNoOutsideReferences fails on any reference to a document that the
// repository does not contain, also when a line break splits it.
func TestNoOutsideReferences(t *testing.T) {
	t.Parallel()
	for _, f := range repoTextFiles(t) {
		for i, line := range f.lines {
			joined := line
			if i+1 < len(f.lines) {
				joined += " " + commentMarker.ReplaceAllString(f.lines[i+1], "")
			}
			for _, re := range outsideRefs {
				// A match that starts on the next line is reported there.
				if loc := re.FindStringIndex(joined); loc != nil && loc[0] < len(line) {
					t.Errorf("%s:%d: %q cites a document outside the repository: state the fact and cite docs/ instead",
						f.path, i+1, joined[loc[0]:loc[1]])
				}
			}
		}
	}
}

var (
	// mdLink is an inline Markdown link or image: [text](target).
	mdLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// mdRefDef is a reference definition: [name]: target.
	mdRefDef = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)`)
	// htmlLink is an href or src of inline HTML.
	htmlLink = regexp.MustCompile(`\b(?:href|src)="([^"]+)"`)
	// inlineCode is a code span, whose text is not a link.
	inlineCode = regexp.MustCompile("`+[^`]*`+")
	// docCite is a docs/<file>.md reference, with an optional anchor,
	// as code comments and documents write it.
	docCite = regexp.MustCompile(`\bdocs/([A-Za-z0-9_.-]+\.md)(?:#([A-Za-z0-9_-]+))?`)
	// fidelityCite is docs/fidelity.md followed by the ids it cites:
	// "docs/fidelity.md G16", "docs/fidelity.md M12.5, D22", "D1–D6".
	fidelityCite = regexp.MustCompile(`docs/fidelity\.md,?((?:(?:\s*[,;]?\s*(?:and\s+)?|[–-])[GDM][0-9]+(?:\.[0-9]+)?\b)+)`)
	fidelityID   = regexp.MustCompile(`[GDM][0-9]+(?:\.[0-9]+)?`)
	// repoPath is a relative path to a source or document file, as a code
	// span names one: handlers/chat.go, scenario/default.yaml.
	repoPath = regexp.MustCompile(`^(?:\./)?[a-z][a-z0-9_-]*(?:/[A-Za-z0-9_.-]+)+\.(?:go|md|yaml|yml|json|sh)$`)
)

// TestDocLinks fails on a relative link of a Markdown file, or a
// docs/<file>.md[#anchor] cited in Go or Markdown, whose file or anchor does
// not exist.
func TestDocLinks(t *testing.T) {
	t.Parallel()
	files := repoTextFiles(t)
	anchors := map[string]map[string]bool{} // Markdown file → its anchors
	for _, f := range files {
		if strings.HasSuffix(f.path, ".md") {
			anchors[f.path] = markdownAnchors(f.lines)
		}
	}
	checked := 0
	// check resolves target against the directory dir (a link of file
	// from, on line).
	check := func(from string, line int, dir, target string) {
		checked++
		file, frag, _ := strings.Cut(target, "#")
		dest := from
		if file != "" {
			dest = path.Clean(path.Join(dir, file))
			if _, err := os.Stat(filepath.FromSlash(dest)); err != nil {
				t.Errorf("%s:%d: %s: no file %s in the repository", from, line, target, dest)
				return
			}
		}
		if frag == "" || !strings.HasSuffix(dest, ".md") {
			return
		}
		if a, ok := anchors[dest]; !ok || !a[frag] {
			t.Errorf("%s:%d: %s: %s has no anchor #%s", from, line, target, dest, frag)
		}
	}
	for _, f := range files {
		isMD := strings.HasSuffix(f.path, ".md")
		if !isMD && !strings.HasSuffix(f.path, ".go") {
			continue
		}
		fence := ""
		for i, line := range f.lines {
			if isMD {
				if m := fenceOpen(line); m != "" && (fence == "" || strings.HasPrefix(m, fence)) {
					if fence == "" {
						fence = m
					} else {
						fence = ""
					}
					continue
				}
				if fence != "" {
					continue
				}
				text := inlineCode.ReplaceAllString(line, "")
				var targets []string
				for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
					targets = append(targets, m[1])
				}
				for _, m := range htmlLink.FindAllStringSubmatch(text, -1) {
					targets = append(targets, m[1])
				}
				if m := mdRefDef.FindStringSubmatch(text); m != nil {
					targets = append(targets, m[1])
				}
				for _, tg := range targets {
					if isRelative(tg) {
						check(f.path, i+1, path.Dir(f.path), tg)
					}
				}
				// A file of the repository named in a code span: from the
				// repository root, or from the document's directory.
				for _, span := range inlineCode.FindAllString(line, -1) {
					p := strings.Trim(span, "` ")
					if !repoPath.MatchString(p) || strings.HasPrefix(p, "docs/") {
						continue // docs/ paths are checked below
					}
					if _, err := os.Stat(filepath.FromSlash(path.Join(path.Dir(f.path), p))); err == nil {
						continue
					}
					check(f.path, i+1, ".", p)
				}
			}
			// docs/<file>.md[#anchor] as text, in code and documents alike:
			// relative to the repository root.
			for _, m := range docCite.FindAllStringSubmatchIndex(line, -1) {
				if m[0] > 0 && isPathRune(rune(line[m[0]-1])) {
					continue // part of a longer path
				}
				target := "docs/" + line[m[2]:m[3]]
				if m[4] >= 0 {
					target += "#" + line[m[4]:m[5]]
				}
				check(f.path, i+1, ".", target)
			}
		}
	}
	if checked < 100 {
		t.Errorf("checked %d links: the scan finds too few", checked)
	}
}

// TestFidelityCitations fails when code or a document cites, after
// docs/fidelity.md, an id (G…, D…, M…) that the register does not define.
func TestFidelityCitations(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("docs/fidelity.md")
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	row := regexp.MustCompile(`^\|\s*([GD][0-9]+|M[0-9]+\.[0-9]+)\b`)
	head := regexp.MustCompile(`^###\s+(M[0-9]+)\b`)
	for _, line := range strings.Split(string(b), "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			defined[m[1]] = true
		}
		if m := head.FindStringSubmatch(line); m != nil {
			defined[m[1]] = true
		}
	}
	for _, id := range []string{"G1", "G23", "D24", "M1.6", "M14"} {
		if !defined[id] {
			t.Fatalf("the register parser finds no %s: update it with docs/fidelity.md's format", id)
		}
	}
	cited := 0
	for _, f := range repoTextFiles(t) {
		if !strings.HasSuffix(f.path, ".go") && !strings.HasSuffix(f.path, ".md") {
			continue
		}
		for i, line := range f.lines {
			joined := line
			if i+1 < len(f.lines) {
				joined += " " + commentMarker.ReplaceAllString(f.lines[i+1], "")
			}
			for _, m := range fidelityCite.FindAllStringSubmatchIndex(joined, -1) {
				if m[0] >= len(line) {
					continue
				}
				for _, id := range fidelityID.FindAllString(joined[m[2]:m[3]], -1) {
					cited++
					if !defined[id] {
						t.Errorf("%s:%d: docs/fidelity.md has no entry %s", f.path, i+1, id)
					}
				}
			}
		}
	}
	if cited < 50 {
		t.Errorf("found %d cited ids: the scan finds too few", cited)
	}
}

// isRelative reports whether a link target points into the repository
// (not a URL with a scheme, a protocol-relative URL or an e-mail address).
func isRelative(target string) bool {
	if strings.HasPrefix(target, "//") || strings.HasPrefix(target, "/") {
		return false
	}
	if i := strings.IndexAny(target, ":/#"); i >= 0 && target[i] == ':' {
		return false
	}
	return true
}

// isPathRune reports whether r can be part of a path before "docs/".
func isPathRune(r rune) bool {
	return r == '/' || r == '.' || r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// fenceOpen returns the fence of a fenced code block line ("```", "~~~~"),
// or "".
func fenceOpen(line string) string {
	s := strings.TrimLeft(line, " ")
	if len(line)-len(s) > 3 {
		return ""
	}
	for _, c := range []string{"`", "~"} {
		n := len(s) - len(strings.TrimLeft(s, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

var (
	htmlID      = regexp.MustCompile(`<[a-zA-Z][^>]*\s(?:id|name)="([^"]+)"`)
	heading     = regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	headingLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	headingHTML = regexp.MustCompile(`<[^>]+>`)
)

// markdownAnchors returns the anchors of a Markdown document: explicit
// id and name attributes, and the identifiers GitHub gives its headings
// (lower case, punctuation dropped, spaces as hyphens; a repeated one gets
// -1, -2, ...).
func markdownAnchors(lines []string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := ""
	for _, line := range lines {
		if m := fenceOpen(line); m != "" && (fence == "" || strings.HasPrefix(m, fence)) {
			if fence == "" {
				fence = m
			} else {
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		for _, m := range htmlID.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		text := headingLink.ReplaceAllString(m[2], "$1")
		text = headingHTML.ReplaceAllString(text, "")
		var slug strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				slug.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				slug.WriteRune(r)
			}
		}
		s := slug.String()
		if n := seen[s]; n > 0 {
			seen[s] = n + 1
			s += "-" + strconv.Itoa(n)
		} else {
			seen[s] = 1
		}
		out[s] = true
	}
	return out
}
