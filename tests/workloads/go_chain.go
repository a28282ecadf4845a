// Workload: two goroutines run outerLoop -> middleStep -> leafWork and
// allocate (so the GC, the scheduler and runtime.systemstack run too) for
// argv[1] seconds; built by tests/integration/go.sh with go build.
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

//go:noinline
func leafWork(n int) int {
	x := 0
	for i := 0; i < n; i++ {
		x = x*31 + i
	}
	return x
}

//go:noinline
func middleStep(n int) int { return leafWork(n) ^ 1 }

//go:noinline
func outerLoop(n int) int { return middleStep(n) ^ 2 }

var sink []byte

func main() {
	secs := 2
	if len(os.Args) > 1 {
		secs, _ = strconv.Atoi(os.Args[1])
	}
	end := time.Now().Add(time.Duration(secs) * time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			acc := 0
			for time.Now().Before(end) {
				acc ^= outerLoop(100000)
				// some allocation: the GC and the scheduler run too
				sink = make([]byte, 4096)
			}
			mu.Lock()
			total ^= acc
			mu.Unlock()
		}()
	}
	wg.Wait()
	fmt.Println(total & 1)
}
