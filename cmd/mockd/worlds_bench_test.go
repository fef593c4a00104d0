package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkWorldsRSS runs the mockd binary, creates 200 worlds of the
// default scenario (each serves one chat), and reports the process's
// resident memory idle before and after (rss-MB, rss-MB/200-worlds) and
// per world (rss-KB/world). Linux only (it reads /proc). The budget is
// 300 MB for the 200 worlds.
func BenchmarkWorldsRSS(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("needs /proc")
	}
	bin := buildMockd(b)
	const n = 200
	for b.Loop() {
		cmd, base := execMockd(b, bin, "--addr", "127.0.0.1:0", "--clock", "manual")
		client := &http.Client{}
		post := func(url string, body string, headers ...string) map[string]any {
			req, _ := http.NewRequest("POST", url, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			for i := 0; i+1 < len(headers); i += 2 {
				req.Header.Set(headers[i], headers[i+1])
			}
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			defer resp.Body.Close()
			var m map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode >= 300 {
				b.Fatalf("POST %s: %d %v", url, resp.StatusCode, err)
			}
			return m
		}
		post(base+chatPath+"/create", "", chatHeaders...)
		before := rssKB(b, cmd.Process.Pid)
		for range n {
			w := post(base+"/_mock/worlds", "{}")
			post(w["url"].(string)+chatPath+"/create", "", chatHeaders...)
		}
		after := rssKB(b, cmd.Process.Pid)
		client.CloseIdleConnections()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		b.ReportMetric(float64(before)/1024, "rss-MB-idle")
		b.ReportMetric(float64(after)/1024, "rss-MB-200-worlds")
		b.ReportMetric(float64(after-before)/n, "rss-KB/world")
	}
}

// rssKB is a process's resident set size (VmRSS) in KiB.
func rssKB(b *testing.B, pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for line := range bytes.Lines(data) {
		if v, ok := bytes.CutPrefix(line, []byte("VmRSS:")); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(string(v)), " kB"))
			if err != nil {
				b.Fatal(err)
			}
			return kb
		}
	}
	b.Fatal("no VmRSS")
	return 0
}
