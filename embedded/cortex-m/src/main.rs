//! GML's rigid-body volume-preserving transformer on a Cortex-M4F: a 60-state `f32` rollout from
//! z₀ = (0, sin 1.1, cos 1.1), printed over semihosting.
//!
//! Output, one line each: `state <i> <x> <y> <z> <x> <y> <z>`, the state's three `f32` first as
//! hex bits (exact, what the host test compares), then in decimal (fixed point, 7 decimals,
//! `decimal.rs`); then `stack rollout <bytes>` (the stack high-water mark of the
//! whole run, or `overflow` past the painted 16 KiB), then QEMU exits with status 0. The network
//! is a `static` in flash (`network.rs`): nothing is built at run time.
//!
//! Run it with `cargo run --release` (QEMU is the runner, `.cargo/config.toml`); the host test
//! `tests/tests/cortex_m.rs` checks it.

#![no_std]
#![no_main]

mod decimal;
mod initial_window;
mod network;
mod stack;

use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};
use decimal::Decimal;
use geomattn::nalgebra::{Matrix3, SMatrixView, SMatrixViewMut, Vector3};
use geomattn::{SequenceLayer, iterate};
use initial_window::INITIAL_WINDOW;
use panic_semihosting as _;

/// States of the rollout, the initial window included (GML's `n_points`).
const N_POINTS: usize = 60;

#[entry]
fn main() -> ! {
    let painted = stack::paint();
    let status = run(&network::NETWORK, &painted);
    debug::exit(status);
    #[allow(clippy::empty_loop)]
    loop {}
}

/// The rollout, then the output; returns QEMU's exit status.
#[inline(never)]
fn run(net: &network::Vpt, painted: &stack::Painted) -> debug::ExitStatus {
    let mut states = [Vector3::zeros(); N_POINTS];
    rollout(net, &mut states);
    let ran = stack::high_water(painted);
    for (i, z) in states.iter().enumerate() {
        let [x, y, w] = [z[0], z[1], z[2]];
        let [hx, hy, hw] = [x, y, w].map(f32::to_bits);
        // Positional arguments: with a format string alone, `hprintln!` prints it verbatim.
        hprintln!(
            "state {} {:08x} {:08x} {:08x} {} {} {}",
            i,
            hx,
            hy,
            hw,
            Decimal(x),
            Decimal(y),
            Decimal(w)
        );
    }
    print_stack("rollout", ran);
    debug::EXIT_SUCCESS
}

fn print_stack(phase: &str, used: Option<usize>) {
    match used {
        Some(bytes) => hprintln!("stack {} {}", phase, bytes),
        None => hprintln!("stack {} overflow", phase),
    }
}

/// GML's `iterate(nn, ics; n_points = 60, prediction_window = 3)`.
#[inline(never)]
fn rollout(net: &network::Vpt, states: &mut [Vector3<f32>; N_POINTS]) {
    let window = Matrix3::from_fn(|i, j| INITIAL_WINDOW[j][i]);
    iterate::<f32, 3, 3, 3, _>(&Marked(net), &window, states);
}

/// The network, with a call to [`geomattn_pass_boundary`] just before and just after each
/// forward pass: in QEMU's instruction trace, the instructions between two calls are one pass
/// (and the rollout's copying between passes).
struct Marked<'net>(&'net network::Vpt);

impl SequenceLayer<f32, 3, 3> for Marked<'_> {
    fn forward_into(&self, z: SMatrixView<'_, f32, 3, 3>, out: SMatrixViewMut<'_, f32, 3, 3>) {
        geomattn_pass_boundary();
        self.0.forward_into(z, out);
        geomattn_pass_boundary();
    }
}

/// Does nothing, in two instructions (`nop`, return), at an address the host test finds by name.
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C" fn geomattn_pass_boundary() {
    // SAFETY: a `nop`; the asm block keeps the call from being optimised away.
    unsafe { core::arch::asm!("nop", options(nomem, nostack, preserves_flags)) };
}
