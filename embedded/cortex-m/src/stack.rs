//! The stack's high-water mark: paint the free stack with a pattern, run, and find the deepest
//! word that no longer holds it.
//!
//! Painting happens in the firmware's own functions (at the start of `main`, and again before the
//! rollout), below the current stack pointer (cortex-m-rt's `#[pre_init]`, the other place it
//! could go, is deprecated): everything above it (the reset handler's frame and those of the
//! callers) is in use already and counts as used.

/// The pattern painted on the free stack.
const PAINT: u32 = 0xC0DE_5EED;

/// How much stack below the current frame is painted: 16 KiB, four times the 4 KiB budget.
const PAINTED_BYTES: usize = 16 * 1024;

/// Left unpainted just below the stack pointer, for the frame of the painting code itself.
const MARGIN_BYTES: usize = 256;

unsafe extern "C" {
    /// The initial stack pointer, the top of RAM (cortex-m-rt's linker script).
    static _stack_start: u32;
}

/// A painted stack region, `[bottom, top)`.
pub struct Painted {
    bottom: usize,
    top: usize,
}

/// Paints the free stack below the caller's frame.
///
/// Inlined into the caller, so that no frame of its own sits below the stack pointer it reads.
#[inline(always)]
pub fn paint() -> Painted {
    let sp = cortex_m::register::msp::read() as usize;
    let top = sp - MARGIN_BYTES;
    let bottom = top - PAINTED_BYTES;
    for address in (bottom..top).step_by(4) {
        // SAFETY: `[bottom, top)` is RAM below the stack pointer (word-aligned, as the stack
        // pointer is), not used by any live frame, static or heap (there is no heap).
        unsafe { core::ptr::write_volatile(address as *mut u32, PAINT) };
    }
    Painted { bottom, top }
}

/// The stack used since reset, in bytes: from the top of RAM down to the deepest word that lost
/// the paint; `None` if even the bottom of the painted region was written (more than the paint
/// covers was used).
pub fn high_water(painted: &Painted) -> Option<usize> {
    let stack_top = (&raw const _stack_start) as usize;
    let deepest = (painted.bottom..painted.top)
        .step_by(4)
        // SAFETY: the region was painted by `paint` and is RAM.
        .find(|&address| unsafe { core::ptr::read_volatile(address as *const u32) } != PAINT)
        .unwrap_or(painted.top);
    (deepest > painted.bottom).then(|| stack_top - deepest)
}
