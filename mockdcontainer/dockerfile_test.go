package mockdcontainer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
)

// TestDockerfileWithoutContext: `docker build .` on a fresh clone (no
// .image/ yet) stops at its first step, and the message names
// scripts/build-image.sh.
func TestDockerfileWithoutContext(t *testing.T) {
	testcontainers.SkipIfProviderIsNotHealthy(t)
	dir := t.TempDir()
	for _, name := range []string{"Dockerfile", ".dockerignore"} {
		data, err := os.ReadFile(filepath.Join("..", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	provider, err := testcontainers.NewDockerProvider()
	if err != nil {
		t.Fatal(err)
	}
	defer provider.Close()
	var log strings.Builder
	start := time.Now()
	_, err = provider.BuildImage(t.Context(), &testcontainers.ContainerRequest{FromDockerfile: testcontainers.FromDockerfile{
		Context: dir, Dockerfile: "Dockerfile", Repo: "mockd-fresh-clone", Tag: "never", BuildLogWriter: &log,
	}})
	if err == nil {
		t.Fatal("docker build without .image/ succeeded")
	}
	if msg := err.Error() + log.String(); !strings.Contains(msg, "made-by-scripts-build-image.sh: file does not exist") {
		t.Fatalf("build error does not name scripts/build-image.sh:\n%v\n%s", err, log.String())
	}
	t.Logf("failed in %v: %v", time.Since(start).Round(time.Millisecond), err)
}
