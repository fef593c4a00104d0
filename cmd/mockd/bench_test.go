package main

import (
	"bufio"
	"io"
	"net/http"
	"os/exec"
	"syscall"
	"testing"
)

// BenchmarkStartup builds the mockd binary and measures the time from exec
// to the first 200 on /_mock/health (target: under 100 ms); shutting the
// process down is not timed.
//
//	go test ./cmd/mockd -run '^$' -bench Startup -benchtime 20x
func BenchmarkStartup(b *testing.B) {
	bin := buildMockd(b)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command(bin, "--addr", "127.0.0.1:0")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		var stderr syncBuffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		base := ""
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := mockdAddrLine.FindStringSubmatch(sc.Text()); m != nil {
				base = m[1]
				break
			}
		}
		if base == "" {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			b.Fatalf("no address printed; stderr:\n%s", stderr.String())
		}
		resp, err := client.Get(base + "/_mock/health")
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("health: %d", resp.StatusCode)
		}
		b.StopTimer()
		go io.Copy(io.Discard, stdout)
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatalf("after SIGTERM: %v; stderr:\n%s", err, stderr.String())
		}
		b.StartTimer()
	}
}
