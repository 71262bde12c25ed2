//! The hot path allocates nothing. A test binary of its own with a single test; the counting allocator counts only
//! the allocations of the thread that asked for counting (the test harness's own threads allocate at times).
mod common;

use common::*;
use mfusim::StepResult;
use std::cell::Cell;

/// Counts the current thread's allocations while COUNTING is set on it.
struct Counting;
thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCATIONS.with(|n| n.set(n.get() + 1));
        }
        std::alloc::System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        std::alloc::System.dealloc(ptr, layout)
    }
}
#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn hot_path_makes_no_allocation() {
    let est = roofline();
    let (one, mixed) = (decode_step(), mixed_step(256));
    let batch = [mixed.clone(), one.clone()].concat();
    let mut out = [0.0; 2];
    let mut detail = StepResult::default();
    COUNTING.with(|c| c.set(true));
    let mut sink = 0.0;
    for _ in 0..1000 {
        sink += est.step_time(&one).unwrap();
        sink += est.step_time(&mixed).unwrap();
        est.step_time_batch(&batch, &[256, 1], &mut out).unwrap();
        est.step_detail(&mixed, &mut detail).unwrap();
    }
    COUNTING.with(|c| c.set(false));
    let allocations = ALLOCATIONS.with(Cell::get);
    assert!(sink > 0.0);
    assert_eq!(allocations, 0, "allocations in 4000 hot-path calls");
}
