package mockdcontainer

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// TestConsumerModule is what a user who runs `go get` sees: it builds a
// file-system module proxy holding both modules of the working tree at the
// version the nested module requires (as the release steps in
// docs/releasing.md tag them), then builds and tests a throwaway consumer
// module that requires both, with no replace and no network (every other
// module comes from the local module cache). The consumer's tests start an
// in-process platform and, where Docker answers, a container built by
// Start itself from the module it downloaded, sharing one option list.
func TestConsumerModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a consumer module")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	version := requiredRootVersion(t, "go.mod")
	if got := workspaceReplaceVersion(t, filepath.Join(root, "go.work")); got != version {
		t.Fatalf("go.work replaces the root module at %s, mockdcontainer/go.mod requires %s: keep them equal", got, version)
	}

	proxy := t.TempDir()
	files := workingTreeFiles(t, root)
	var rootFiles, nestedFiles []modzip.File
	for _, f := range files {
		if rel, ok := strings.CutPrefix(f, "mockdcontainer/"); ok {
			nestedFiles = append(nestedFiles, treeFile{root: filepath.Join(root, "mockdcontainer"), path: rel})
			continue
		}
		rootFiles = append(rootFiles, treeFile{root: root, path: f})
	}
	publish(t, proxy, module.Version{Path: rootModule, Version: version}, root, rootFiles)
	publish(t, proxy, module.Version{Path: rootModule + "/mockdcontainer", Version: version}, filepath.Join(root, "mockdcontainer"), nestedFiles)

	consumer := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(consumer, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/consumer\n\ngo 1.26.0\n\nrequire (\n\t"+rootModule+" "+version+"\n\t"+rootModule+"/mockdcontainer "+version+"\n)\n")
	write("consumer_test.go", consumerTest)

	modcache := filepath.Join(t.TempDir(), "mod")
	goEnv := func(name string) string {
		out, err := exec.Command(goTool(), "env", name).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	env := append(os.Environ(),
		"GOWORK=off", "GOTOOLCHAIN=local", "GOSUMDB=off", "GOFLAGS=-modcacherw -mod=mod -trimpath", // -trimpath: build cache hits whatever the module cache directory
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(goEnv("GOMODCACHE"), "cache", "download")),
		"GOMODCACHE="+modcache,
		"TESTCONTAINERS_RYUK_DISABLED=true",
		"MOCKD_IMAGE=", // the consumer builds its image itself
	)
	run := func(args ...string) string {
		cmd := exec.Command(goTool(), args...)
		cmd.Dir, cmd.Env = consumer, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Run(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		t.Logf("go %s (%v)", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
		return out.String()
	}
	run("mod", "tidy")
	if data, _ := os.ReadFile(filepath.Join(consumer, "go.mod")); bytes.Contains(data, []byte("replace")) {
		t.Fatalf("consumer go.mod has a replace:\n%s", data)
	}
	out := run("test", "-count=1", "-v", "./...")
	for _, want := range []string{"--- PASS: TestInProcess", "TestContainer"} {
		if !strings.Contains(out, want) {
			t.Errorf("consumer test output lacks %q:\n%s", want, out)
		}
	}
	t.Logf("consumer tests:\n%s", out)
}

// consumerTest is the throwaway consumer's test file: one option list for
// both modules.
const consumerTest = `package consumer

import (
	"net/http"
	"testing"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/mockdcontainer"
)

var opts = []mockplatform.Option{mockplatform.WithSeed(7), mockplatform.WithClock(mockplatform.ClockManual)}

func chat(t *testing.T, m mockplatform.Mock) {
	req, _ := http.NewRequest("POST", m.RuntimeURL("us-1")+"/v1/acme/support/chat/create", http.NoBody)
	req.Header.Set("X-API-KEY", "test-chat-key")
	req.Header.Set("X-TOKEN", "test-connector-token")
	resp, err := m.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("chat create: %d", resp.StatusCode)
	}
	if n := len(m.Requests(mockplatform.RequestFilter{Family: "chat"})); n != 1 || m.Err() != nil {
		t.Fatalf("journal: %d chat requests, Err %v", n, m.Err())
	}
}

func TestInProcess(t *testing.T) {
	chat(t, mockplatform.Start(t, opts...))
}

func TestContainer(t *testing.T) {
	c := mockdcontainer.Start(t, opts...) // skips without Docker; builds the image from the downloaded module
	chat(t, c.World(t))
}
`

// treeFile is a file of the working tree, for modzip.Create.
type treeFile struct{ root, path string }

func (f treeFile) Path() string                 { return f.path }
func (f treeFile) Lstat() (os.FileInfo, error)  { return os.Lstat(filepath.Join(f.root, f.path)) }
func (f treeFile) Open() (io.ReadCloser, error) { return os.Open(filepath.Join(f.root, f.path)) }

// workingTreeFiles lists the files git would commit (tracked, and new ones
// not ignored), relative to root.
func workingTreeFiles(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("git ls-files: %v (the test needs the repository's git checkout)", err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(root, f)); err == nil { // not deleted in the working tree
			files = append(files, f)
		}
	}
	return files
}

// publish writes a module version into a file-system proxy (the GOPROXY
// protocol's layout: {module}/@v/{version}.info, .mod, .zip, and list).
func publish(t *testing.T, proxy string, m module.Version, dir string, files []modzip.File) {
	t.Helper()
	esc, err := module.EscapePath(m.Path)
	if err != nil {
		t.Fatal(err)
	}
	at := filepath.Join(proxy, filepath.FromSlash(esc), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	var zip bytes.Buffer
	if err := modzip.Create(&zip, m, files); err != nil {
		t.Fatalf("zip %s: %v", m, err)
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]string{"Version": m.Version, "Time": "2026-01-01T00:00:00Z"})
	for name, data := range map[string][]byte{
		m.Version + ".zip": zip.Bytes(), m.Version + ".mod": gomod, m.Version + ".info": info, "list": []byte(m.Version + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// requiredRootVersion is the version of the root module a go.mod requires.
func requiredRootVersion(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Require {
		if r.Mod.Path == rootModule {
			return r.Mod.Version
		}
	}
	t.Fatalf("%s does not require %s", path, rootModule)
	return ""
}

// workspaceReplaceVersion is the version at which go.work replaces the
// root module with the working tree.
func workspaceReplaceVersion(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.ParseWork(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Replace {
		if r.Old.Path == rootModule {
			return r.Old.Version
		}
	}
	t.Fatalf("%s does not replace %s", path, rootModule)
	return ""
}
