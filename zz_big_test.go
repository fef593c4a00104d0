package mockplatform

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"runtime"
	"testing"
	"time"
)

func TestZZBigUpload(t *testing.T) {
	data, err := os.ReadFile("/tmp/big/big.yaml")
	if err != nil {
		t.Skip()
	}
	p := Start(t)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	req, _ := http.NewRequest("POST", p.URL()+"/_mock/scenario", bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/yaml")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	t.Logf("upload %v status %d %.200s", time.Since(start), resp.StatusCode, b)
	runtime.ReadMemStats(&m1)
	t.Logf("alloc total %d MB, heap inuse %d MB sys %d MB", (m1.TotalAlloc-m0.TotalAlloc)>>20, m1.HeapInuse>>20, m1.Sys>>20)
}
