// Workload: a Go stack deeper than the kernel's copy whose outer part
// changes every pass. main calls deepA or deepB, by the pass's parity,
// 100 levels deep (frames of some 250 bytes: 25 KiB, past the default
// 16 KiB copy), and the innermost one spins some 20 us in
// leaf. Each pass returns all the way and goes down again through the other
// function, writing its pass number into every frame: a read of the stack
// beyond the copy made after the sample finds other bytes, and the other
// function's frames. Run for argv[1] seconds; built by
// tests/integration/go_deep.sh.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

const depth = 100

//go:noinline
func leaf(pass int) int {
	x := pass
	for i := 0; i < 20000; i++ {
		x = x*31 + i
	}
	return x
}

//go:noinline
func deepA(level, pass int) int {
	var pad [24]int
	pad[level%24] = pass
	if level == 0 {
		return leaf(pass) + pad[0]
	}
	return deepA(level-1, pass) + pad[pass%24]
}

//go:noinline
func deepB(level, pass int) int {
	var pad [24]int
	pad[(level+1)%24] = pass
	if level == 0 {
		return leaf(pass) + pad[1]
	}
	return deepB(level-1, pass) + pad[(pass+1)%24]
}

func main() {
	secs := 2
	if len(os.Args) > 1 {
		secs, _ = strconv.Atoi(os.Args[1])
	}
	end := time.Now().Add(time.Duration(secs) * time.Second)
	acc, pass := 0, 0
	for time.Now().Before(end) {
		if pass%2 == 0 {
			acc ^= deepA(depth, pass)
		} else {
			acc ^= deepB(depth, pass)
		}
		pass++
	}
	fmt.Println("passes", pass, acc&1)
}
