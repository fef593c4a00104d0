package mockplatform_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform"
)

// TestReadmePython runs the README's Python example (standard library
// only) against a platform on a real socket: it creates a world, runs a
// chat, advances the world's clock and deletes the world. It skips where
// python3 is missing.
func TestReadmePython(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	code := readmeBlock(t, "One mockd for a whole CI job: worlds", "python")
	p := mockplatform.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-")
	cmd.Stdin = strings.NewReader(code)
	cmd.Env = append(os.Environ(), "MOCKD_URL="+p.URL(), "MOCKD_CONTROL_TOKEN=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python3: %v\n%s", err, stderr.String())
	}
	want := "We are open 9am to 5pm, Monday to Friday.\nworld clock: 2026-01-01T00:30:00Z\n"
	if got := stdout.String(); got != want {
		t.Errorf("output = %q, want %q (stderr: %s)", got, want, stderr.String())
	}
	if n := len(p.Worlds()); n != 0 {
		t.Errorf("%d worlds left: the example deletes its world", n)
	}
	if n := len(p.Requests(mockplatform.RequestFilter{Family: "chat"})); n != 0 || !p.Now().Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("the default world saw %d chat requests, clock %v: the example's world leaked", n, p.Now())
	}
}
