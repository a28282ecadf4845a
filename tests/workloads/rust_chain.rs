// Workload: main -> top_a -> mid_b -> leaf_c in Rust, for argv[1] seconds
// (built by tests/integration/rust.sh with rustc's defaults: -O, no frame
// pointers, whatever linker the toolchain picks -- lld since Rust 1.90).
use std::time::{Duration, Instant};

#[inline(never)]
fn leaf_c(x: u64) -> u64 {
    let mut v = x;
    for i in 0..1000u64 {
        v = v.wrapping_mul(6364136223846793005).wrapping_add(i);
    }
    // a volatile read keeps the loop (std::hint::black_box needs Rust 1.66)
    unsafe { std::ptr::read_volatile(&v) }
}

#[inline(never)]
fn mid_b(x: u64) -> u64 {
    leaf_c(x) ^ 1
}

#[inline(never)]
fn top_a(x: u64) -> u64 {
    mid_b(x) ^ 2
}

fn main() {
    let secs: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2);
    let end = Instant::now() + Duration::from_secs(secs);
    let mut acc = 0u64;
    while Instant::now() < end {
        for i in 0..100 {
            acc = acc.wrapping_add(top_a(i));
        }
    }
    println!("{}", acc & 1);
}
