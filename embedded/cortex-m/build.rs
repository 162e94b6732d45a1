//! Puts `memory.x`, the board's memory map, where the linker finds it: cortex-m-rt's `link.x`
//! includes it from the linker's search path. Nothing else is generated: the network is embedded
//! by `geomattn::embed_gml!` (`src/network.rs`), the initial window is `src/initial_window.rs`.

use std::path::PathBuf;
use std::{env, fs};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    fs::copy("memory.x", out.join("memory.x")).expect("memory.x is readable");
    println!("cargo::rustc-link-search={}", out.display());
    println!("cargo::rerun-if-changed=memory.x");
}
