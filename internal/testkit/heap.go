package testkit

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// PeakHeap runs f while sampling the heap in use every millisecond, and
// returns the peak above what was in use before f, and the bytes f
// allocated. It is how memory bounds are checked: a bound far above the
// noise (twice a limit of tens of megabytes) holds or it does not.
func PeakHeap(f func()) (peak, alloc uint64) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var max uint64
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			max = maxU(max, m.HeapInuse)
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
	max = maxU(max, after.HeapInuse)
	if max < before.HeapInuse {
		return 0, after.TotalAlloc - before.TotalAlloc
	}
	return max - before.HeapInuse, after.TotalAlloc - before.TotalAlloc
}

func maxU(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

// RSS is the process's resident set (VmRSS) in bytes, 0 where
// /proc/self/status is missing (not Linux).
func RSS() uint64 { return procStatusBytes("self", "VmRSS:") }

// PeakRSSLive is the highest resident set (VmHWM) the running process pid
// has had since it started, in bytes; 0 where /proc is missing (not
// Linux). It is how a server started as a program is measured from its
// test while it still runs (PeakRSSOf reads one that exited): the test's
// own memory is not in it.
func PeakRSSLive(pid int) uint64 { return procStatusBytes(strconv.Itoa(pid), "VmHWM:") }

// procStatusBytes reads the field (VmRSS:, VmHWM:) of /proc/<pid>/status,
// given in kB, as bytes; 0 where the file or the field is missing.
func procStatusBytes(pid, field string) uint64 {
	data, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, field); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
