package huggingface

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/internal/fakehf"
)

// peakHeap samples the heap in use while f runs and returns the peak above
// what was in use before, and the bytes f allocated.
func peakHeap(f func()) (peak, alloc uint64) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var max uint64
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > max {
				max = m.HeapInuse
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(stop)
	wg.Wait()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if max < before.HeapInuse {
		return 0, after.TotalAlloc - before.TotalAlloc
	}
	return max - before.HeapInuse, after.TotalAlloc - before.TotalAlloc
}

func BenchmarkLargeAnswer(b *testing.B) {
	const mb = 1 << 20
	cases := []struct {
		name     string
		setup    func(*fakehf.ModelBehaviour)
		parallel int
		wantErr  bool
	}{
		{"binary-200MB", func(m *fakehf.ModelBehaviour) { m.LargeBody("image/png", 200*mb, false) }, 1, false},
		{"binary-200MB-chunked", func(m *fakehf.ModelBehaviour) { m.LargeBody("image/png", 200*mb, true) }, 1, false},
		{"json-base64-200MB", func(m *fakehf.ModelBehaviour) { m.LargeJSONImage(200 * mb) }, 1, false},
		{"binary-200MB-x3", func(m *fakehf.ModelBehaviour) { m.LargeBody("image/png", 200*mb, false) }, 3, false},
		{"refused-600MB", func(m *fakehf.ModelBehaviour) { m.LargeBody("image/png", 600*mb, false) }, 1, true},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			srv := fakehf.New(b)
			tc.setup(srv.Model("m/big", "text-to-image"))
			ep := newTestHF(srv, Options{})
			var worst, allocs uint64
			for b.Loop() {
				peak, alloc := peakHeap(func() {
					var wg sync.WaitGroup
					for range tc.parallel {
						wg.Add(1)
						go func() {
							defer wg.Done()
							res, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: "m/big", Args: map[string]string{"text": "big"}})
							if (err != nil) != tc.wantErr {
								b.Errorf("err = %v", err)
							}
							_ = res
						}()
					}
					wg.Wait()
				})
				worst = max(worst, peak)
				allocs += alloc
			}
			b.ReportMetric(float64(worst)/mb, "peak-heap-MB")
			b.ReportMetric(float64(allocs)/float64(b.N)/mb, "alloc-MB/op")
		})
	}
}
