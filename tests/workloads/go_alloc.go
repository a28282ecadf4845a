// Workload: goroutines that allocate heavily for argv[1] seconds, so that
// Go's runtime works on the g0 stack for them: GC assist
// (gcAssistAlloc1), write-barrier buffer flushes (wbBufFlush1), stack
// growth (morestack, newstack) and scheduling. Each worker runs
// main.worker -> main.build/main.link/main.grow. With argv[2], Go's own
// CPU profile of the run is written there (runtime/pprof), the reference
// the integration test compares with. Built by tests/integration/go.sh.
// With argv[1] "bench" it runs until SIGTERM/SIGINT and speaks the bench
// workloads' progress protocol ("progress COUNT MONO_NS" once started, on
// SIGUSR1, and before exiting): bench/run.py's Go row.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

type node struct {
	next *node
	buf  []byte
	val  int
}

// a live heap the GC must mark, and pointer writes into it (write
// barriers while it marks)
var keep [512]*node

//go:noinline
func build(n int) *node {
	var head *node
	for i := 0; i < n; i++ {
		head = &node{next: head, buf: make([]byte, 48), val: i}
	}
	return head
}

//go:noinline
func link(h *node, k int) int {
	s := 0
	for p := h; p != nil; p = p.next {
		keep[(p.val+k)%len(keep)] = p
		s += p.val
	}
	return s
}

// recursion deep enough that a fresh goroutine's stack grows
//
//go:noinline
func grow(d int) int {
	var pad [64]byte
	pad[d%64] = byte(d)
	if d == 0 {
		return int(pad[0])
	}
	return grow(d-1) + int(pad[d%64])
}

var done int64 // rounds, for the bench's progress

//go:noinline
func worker(id int, end time.Time, out *int) {
	acc := 0
	for k := 0; time.Now().Before(end); k++ {
		h := build(2000)
		acc += link(h, k+id)
		atomic.AddInt64(&done, 1)
		if k%8 == 0 {
			// a new goroutine starts with a small stack: it grows
			done := make(chan int)
			go func() { done <- grow(200) }()
			acc += <-done
		}
	}
	*out = acc
}

func monoNs() int64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1 /* CLOCK_MONOTONIC */, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Sec*1000000000 + ts.Nsec
}

func report() {
	fmt.Printf("progress %d %d\n", atomic.LoadInt64(&done), monoNs())
	os.Stdout.Sync()
}

// bench runs the workers until a signal to stop, reporting progress.
func bench() {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGUSR1, syscall.SIGTERM, syscall.SIGINT)
	forever := time.Now().Add(100 * 365 * 24 * time.Hour)
	res := make([]int, 2)
	for g := 0; g < 2; g++ {
		go worker(g, forever, &res[g])
	}
	report()
	for s := range sig {
		report()
		if s != syscall.SIGUSR1 {
			os.Exit(0)
		}
	}
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "bench" {
		bench()
		return
	}
	secs := 3
	if len(os.Args) > 1 {
		secs, _ = strconv.Atoi(os.Args[1])
	}
	if len(os.Args) > 2 {
		f, err := os.Create(os.Args[2])
		if err != nil {
			panic(err)
		}
		pprof.StartCPUProfile(f)
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	end := time.Now().Add(time.Duration(secs) * time.Second)
	var wg sync.WaitGroup
	res := make([]int, 2)
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			worker(g, end, &res[g])
		}(g)
	}
	wg.Wait()
	fmt.Println((res[0] ^ res[1]) & 1)
}
