package mockdcontainer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/testcontainers/testcontainers-go"
)

// rootModule is the module whose Dockerfile and cmd/mockd build the image.
const rootModule = "github.com/agentplatform/mockplatform"

// ImageRepo is the repository name of images BuildImage builds; the tag is
// a digest of the binary and the Dockerfile, so an unchanged source reuses
// the image already in the engine.
const ImageRepo = "mockd"

// built caches, per process, the image built for a source, so that many
// containers in one test binary compile and build once. It holds only
// finished builds (source key -> image reference).
var built = struct {
	sync.Mutex
	refs map[string]string
}{refs: map[string]string{}}

// BuildImage compiles a static mockd (CGO_ENABLED=0, GOOS=linux, the
// flags of scripts/build-image.sh) and builds the repository's Dockerfile
// around it, as scripts/build-image.sh does, returning the image reference
// (mockd:<digest>). The image is kept in the engine. Run calls it unless
// WithImage names an image; call it once yourself (in TestMain) to share
// one build between many Run calls across packages.
//
// With no WithSource option, mockd is compiled from the
// github.com/agentplatform/mockplatform version in the current module's
// build list, and the Dockerfile is that module's.
func BuildImage(ctx context.Context, opts ...Option) (string, error) {
	r, err := newRequest(opts)
	if err != nil {
		return "", err
	}
	return buildImage(ctx, r.cs.source, r.cs.buildLog)
}

func buildImage(ctx context.Context, source string, logw io.Writer) (string, error) {
	key := source
	if key == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		key = "module:" + wd
	}
	built.Lock()
	defer built.Unlock()
	if ref, ok := built.refs[key]; ok {
		return ref, nil
	}

	dir, err := os.MkdirTemp("", "mockd-image-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	if err := os.MkdirAll(filepath.Join(dir, ".image", "data"), 0o755); err != nil {
		return "", err
	}
	// The Dockerfile's first step checks for the marker of a prepared context.
	if err := os.WriteFile(filepath.Join(dir, ".image", "made-by-scripts-build-image.sh"), nil, 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, ".image", "mockd")

	// Compile: in the source tree when given, else from the current
	// module, where the mockplatform dependency is resolved as for the
	// tests themselves.
	pkg, workdir, modDir := "./cmd/mockd", source, source
	if source == "" {
		pkg = rootModule + "/cmd/mockd"
		if modDir, err = moduleDir(ctx); err != nil {
			return "", err
		}
	}
	build := exec.CommandContext(ctx, goTool(), "build", "-trimpath", "-tags", "nomsgpack", "-ldflags=-s -w", "-o", bin, pkg)
	build.Dir = workdir
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	var stderr bytes.Buffer
	build.Stderr = &stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("mockdcontainer: go build %s: %w\n%s", pkg, err, stderr.String())
	}
	if err := copyCABundle(filepath.Join(dir, ".image", "ca-certificates.crt")); err != nil {
		return "", err
	}
	dockerfile, err := os.ReadFile(filepath.Join(modDir, "Dockerfile"))
	if err != nil {
		return "", fmt.Errorf("mockdcontainer: the mockplatform Dockerfile: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), dockerfile, 0o644); err != nil {
		return "", err
	}

	digest, err := fileDigest(bin, dockerfile)
	if err != nil {
		return "", err
	}
	if logw == nil {
		logw = io.Discard
	}
	provider, err := testcontainers.NewDockerProvider()
	if err != nil {
		return "", fmt.Errorf("mockdcontainer: %w", err)
	}
	defer provider.Close()
	ref, err := provider.BuildImage(ctx, &testcontainers.ContainerRequest{FromDockerfile: testcontainers.FromDockerfile{
		Context:        dir,
		Dockerfile:     "Dockerfile",
		Repo:           ImageRepo,
		Tag:            digest,
		KeepImage:      true,
		BuildLogWriter: logw,
	}})
	if err != nil {
		return "", fmt.Errorf("mockdcontainer: build image: %w", err)
	}
	built.refs[key] = ref
	return ref, nil
}

// caBundles are where Linux distributions and macOS keep the CA bundle.
var caBundles = []string{"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"}

// copyCABundle copies the host's CA bundle to dst (an empty file when the
// host has none), as scripts/build-image.sh does.
func copyCABundle(dst string) error {
	var data []byte
	for _, f := range caBundles {
		if b, err := os.ReadFile(f); err == nil && len(b) > 0 {
			data = b
			break
		}
	}
	return os.WriteFile(dst, data, 0o644)
}

// moduleDir is the directory of the mockplatform module in the current
// module's build list (a replace directory, a workspace module or the
// module cache).
func moduleDir(ctx context.Context) (string, error) {
	cmd := exec.CommandContext(ctx, goTool(), "list", "-m", "-f", "{{.Dir}}", rootModule)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("mockdcontainer: go list -m %s: %w\n%s", rootModule, err, stderr.String())
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return "", errors.New("mockdcontainer: " + rootModule + " has no source directory (go mod download it)")
	}
	return dir, nil
}

// goTool is the go command (GOROOT/bin/go when GOROOT is set, as under
// go test; else the one on PATH).
func goTool() string {
	if root := os.Getenv("GOROOT"); root != "" {
		return filepath.Join(root, "bin", "go")
	}
	return "go"
}

func fileDigest(path string, extra []byte) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	h.Write(extra)
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
