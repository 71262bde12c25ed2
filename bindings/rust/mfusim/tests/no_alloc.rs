//! The hot path allocates nothing. A test binary of its own with a single test, so that the counting allocator
//! sees no other test's allocations.
mod common;

use common::*;
use mfusim::StepResult;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts allocations, so the hot path can be shown to make none.
struct Counting;
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
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
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let mut sink = 0.0;
    for _ in 0..1000 {
        sink += est.step_time(&one).unwrap();
        sink += est.step_time(&mixed).unwrap();
        est.step_time_batch(&batch, &[256, 1], &mut out).unwrap();
        est.step_detail(&mixed, &mut detail).unwrap();
    }
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    assert!(sink > 0.0);
    assert_eq!(after - before, 0, "allocations in 4000 hot-path calls");
}
