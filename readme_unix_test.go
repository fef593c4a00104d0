//go:build unix

package mockplatform_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readmeAddr is the listen address the README's curl session uses.
const readmeAddr = "127.0.0.1:8080"

// TestReadmeCurlSession runs the README's curl session as written, under
// the shell its block names (sh: dash on Debian), from the repository's
// root, so it builds and starts a mockd of this working tree. Only the
// address changes: a free loopback port instead of 8080. Every line the
// session prints must match the output its comments document, in order,
// and it must leave no mockd behind.
func TestReadmeCurlSession(t *testing.T) {
	t.Parallel()
	gobin := requireGo(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not on PATH: the README's curl session needs it")
	}
	shell, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("sh is not on PATH")
	}
	block := readmeBlock(t, "A curl session against the default scenario", "sh")
	if !strings.Contains(block, readmeAddr) {
		t.Fatalf("the README's curl session no longer uses %s:\n%s", readmeAddr, block)
	}
	want := expectedOutputs(block)
	if len(want) == 0 {
		t.Fatalf("the README's curl session documents no output:\n%s", block)
	}

	addr := freeLoopbackAddr(t)
	tmp := t.TempDir()
	script := filepath.Join(tmp, "session.sh")
	if err := os.WriteFile(script, []byte(strings.ReplaceAll(block, readmeAddr, addr)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, shell, script)
	cmd.Env = append(offlineGoEnv(t, gobin), "TMPDIR="+tmp)
	// The session and the mockd it starts form one process group, so that
	// a session that hangs is ended whole.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if cmd.Process != nil {
		// Whatever happened, nothing of the session outlives the test.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	log, _ := os.ReadFile(filepath.Join(tmp, "mockd.log"))
	if runErr != nil || stderr.Len() > 0 {
		t.Fatalf("the curl session failed: %v\nstderr:\n%s\nstdout:\n%s\nmockd log:\n%s", runErr, stderr.Bytes(), stdout.Bytes(), log)
	}

	got := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(want):
			t.Errorf("output line %d is not documented in the README: %s", i+1, got[i])
		case i >= len(got):
			t.Errorf("output line %d is missing; the README documents: %s", i+1, want[i])
		case !outputPattern(want[i]).MatchString(got[i]):
			t.Errorf("output line %d:\n got: %s\nwant: %s", i+1, got[i], want[i])
		}
	}
	if t.Failed() {
		t.Logf("mockd log:\n%s", log)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("mockd still listens on %s after the session", addr)
	} else if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Logf("dial %s after the session: %v", addr, err)
	}
}

// freeLoopbackAddr returns a loopback address with a port that was free a
// moment ago.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}
