//! No forward pass allocates, nor does reading or writing a blob, nor a training step: a counting global allocator, and
//! every layer run under it.
//!
//! The counter is per thread, so the test harness's own allocations on other threads do not
//! count. Each layer family has a module here with a `check(&mut Probe)` function; `Probe::run`
//! warms the closure up once (outside the count), then asserts that a second call allocates
//! nothing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

mod attention;
mod backward;
mod blob;
mod cayley;
mod engine;
mod lanewise;
mod supporting;
mod train;
mod vpa;

struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    /// Set on the threads of the pools `lanewise` builds, whose allocations count in
    /// [`WORKER_ALLOCATIONS`].
    static IS_POOL_WORKER: Cell<bool> = const { Cell::new(false) };
}

/// Allocations on the worker threads of the parallel lane path's pools.
static WORKER_ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

fn count_allocation() {
    ALLOCATIONS.with(|count| count.set(count.get() + 1));
    if IS_POOL_WORKER.with(Cell::get) {
        WORKER_ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_allocation();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_allocation();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Runs closures under the counter and records what was checked.
pub struct Probe {
    checked: Vec<&'static str>,
}

impl Probe {
    /// Asserts that `forward` allocates nothing (after one warm-up call).
    pub fn run(&mut self, name: &'static str, mut forward: impl FnMut()) {
        forward();
        let before = ALLOCATIONS.with(Cell::get);
        forward();
        let allocations = ALLOCATIONS.with(Cell::get) - before;
        assert_eq!(
            allocations, 0,
            "{name}: the forward pass allocated {allocations} times"
        );
        self.checked.push(name);
    }
}

#[test]
fn the_counter_sees_allocations() {
    let before = ALLOCATIONS.with(Cell::get);
    let boxed = std::hint::black_box(Box::new(1_u64));
    assert!(ALLOCATIONS.with(Cell::get) > before);
    drop(boxed);
}

/// Runs one family's checks under the counter; each family is a test of its own, so that the
/// harness runs them side by side (the counter is per thread).
fn check(family: fn(&mut Probe)) {
    let mut probe = Probe {
        checked: Vec::new(),
    };
    family(&mut probe);
    assert!(!probe.checked.is_empty());
}

#[test]
fn no_volume_preserving_attention_pass_allocates() {
    check(vpa::check);
}

#[test]
fn no_supporting_layer_pass_allocates() {
    check(supporting::check);
}

#[test]
fn no_cayley_transform_allocates() {
    check(cayley::check);
}

#[test]
fn no_engine_pass_allocates() {
    check(engine::check);
}

#[test]
fn no_lane_pass_allocates() {
    check(lanewise::check);
}

#[test]
fn no_parallel_lane_pass_allocates_per_sequence() {
    check(lanewise::check_parallel);
}

#[test]
fn no_attention_pass_allocates() {
    check(attention::check);
}

#[test]
fn no_blob_read_or_write_allocates() {
    check(blob::check);
}

#[test]
fn no_training_step_allocates() {
    check(train::check);
}

#[test]
fn no_backward_pass_allocates() {
    check(backward::check);
}
