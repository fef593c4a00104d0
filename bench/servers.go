package main

// The two servers under load: mockd, built from the checkout, and the bare
// server (this binary started again with bareEnv). Both are pinned to the
// same CPUs with taskset, which execs, so the pid is the server's own and
// /proc/<pid>/status is its memory.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// findRepo returns the mockplatform checkout around dir: the nearest
// directory upwards whose go.mod is the mockplatform module.
func findRepo(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(b, []byte("module github.com/agentplatform/mockplatform\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no mockplatform checkout around the working directory: use -repo or -mockd")
		}
		dir = parent
	}
}

// buildMockd builds cmd/mockd of repo into dir and returns the binary.
func buildMockd(ctx context.Context, repo, dir string) (string, error) {
	bin := filepath.Join(dir, "mockd")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/mockd")
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/mockd: %v\n%s", err, out)
	}
	return bin, nil
}

// server is a started server process.
type server struct {
	name    string
	addr    string // 127.0.0.1:port
	pid     int
	started time.Time
	ready   time.Duration // from start until it listened
	cmd     *exec.Cmd
	logPath string
	exited  chan struct{}
	waitErr error
}

// addrPattern finds the listen address in a server's first lines: mockd's
// "control:   http://ADDR/_mock" or the bare server's "listening on ADDR".
var addrPattern = regexp.MustCompile(`(?:control:\s+http://(\S+)/_mock|^listening on (\S+))`)

// startServer starts argv pinned to cpus (when pin is set), with stderr in
// logPath, and waits up to timeout for the listen address on stdout.
func startServer(ctx context.Context, name string, cfg *config, env []string, logPath string, timeout time.Duration, argv ...string) (*server, error) {
	if cfg.pin {
		argv = append([]string{"taskset", "-c", cfg.serverCPUs}, argv...)
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = logf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s := &server{name: name, cmd: cmd, logPath: logPath, exited: make(chan struct{}), started: time.Now()}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	s.pid = cmd.Process.Pid
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		found := false
		for sc.Scan() {
			if m := addrPattern.FindStringSubmatch(sc.Text()); m != nil && !found {
				found = true
				addrc <- m[1] + m[2]
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case s.addr = <-addrc:
		s.ready = time.Since(s.started)
		return s, nil
	case <-s.exited:
		return nil, fmt.Errorf("%s exited before it listened (%v); its log:\n%s", name, s.waitErr, tail(logPath))
	case <-t.C:
		err = fmt.Errorf("%s did not listen within %v", name, timeout)
	case <-ctx.Done():
		err = ctx.Err()
	}
	s.stop()
	return nil, err
}

// stop ends the server: SIGTERM, then SIGKILL after 10 s.
func (s *server) stop() {
	if s == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// alive reports an error when the server has exited.
func (s *server) alive() error {
	select {
	case <-s.exited:
		return fmt.Errorf("%s exited (%v); its log:\n%s", s.name, s.waitErr, tail(s.logPath))
	default:
		return nil
	}
}

// memory is a process's resident memory, from /proc/<pid>/status.
type memory struct {
	rss, hwm int64 // VmRSS and VmHWM, bytes
}

func readMemory(pid int) (memory, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, err
	}
	var m memory
	for line := range strings.Lines(string(b)) {
		key, val, ok := strings.Cut(line, ":")
		if !ok || key != "VmRSS" && key != "VmHWM" {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
		if err != nil {
			return memory{}, fmt.Errorf("%s: %q", key, val)
		}
		if key == "VmRSS" {
			m.rss = kb << 10
		} else {
			m.hwm = kb << 10
		}
	}
	if m.rss == 0 {
		return memory{}, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
	}
	return m, nil
}

// countCPUs counts the CPUs of a taskset list such as "0", "0-3" or "0,2".
func countCPUs(list string) (int, error) {
	n := 0
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return 0, fmt.Errorf("CPU list %q", list)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return 0, fmt.Errorf("CPU list %q", list)
			}
		}
		n += b - a + 1
	}
	return n, nil
}

// tail is the end of a log file, for error messages.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// clockTick is the unit of utime and stime in /proc/<pid>/stat (USER_HZ,
// 100 on every Linux the benchmark targets).
const clockTick = 10 * time.Millisecond

// cpuUse is the CPU time a process has used, all its threads: in user
// space and in the kernel (its system calls; a loopback write also does
// the TCP work of delivering the bytes and wakes the reader).
type cpuUse struct {
	user, sys time.Duration
}

func (u cpuUse) total() time.Duration { return u.user + u.sys }

func (u cpuUse) sub(v cpuUse) cpuUse { return cpuUse{u.user - v.user, u.sys - v.sys} }

// cpuTime is a process's CPU time, from /proc/<pid>/stat.
func cpuTime(pid int) (cpuUse, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return cpuUse{}, err
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// the fields after it start at the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return cpuUse{}, fmt.Errorf("/proc/%d/stat: %q", pid, b)
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return cpuUse{}, fmt.Errorf("/proc/%d/stat: %q", pid, b)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return cpuUse{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return cpuUse{time.Duration(utime) * clockTick, time.Duration(stime) * clockTick}, nil
}

// waitIdle waits until the process has used no CPU for 200 ms (at most
// limit): the work a load left behind, above all the garbage collection
// of a large heap, is done before the next slice begins. It returns the
// process's CPU time then, and whether it went idle within limit.
func waitIdle(ctx context.Context, pid int, limit time.Duration) (cpuUse, bool, error) {
	const poll, quiet = 50 * time.Millisecond, 4
	last, err := cpuTime(pid)
	if err != nil {
		return cpuUse{}, false, err
	}
	deadline := time.Now().Add(limit)
	for still := 0; still < quiet; {
		if time.Now().After(deadline) {
			return last, false, nil
		}
		select {
		case <-ctx.Done():
			return cpuUse{}, false, ctx.Err()
		case <-time.After(poll):
		}
		now, err := cpuTime(pid)
		if err != nil {
			return cpuUse{}, false, err
		}
		if now == last {
			still++
		} else {
			still, last = 0, now
		}
	}
	return last, true, nil
}
