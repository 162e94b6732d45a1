//! The Cortex-M4F example (`embedded/cortex-m`) under QEMU (`mps2-an386`): its 60-state `f32`
//! rollout of GML's rigid-body VPT against the same rollout on the host, and its footprint (flash,
//! static RAM, stack, instructions per forward pass) against the budgets of issue 9 and the
//! figures published in `embedded/cortex-m/MEASURED.md`.
//!
//! Ignored by default: it needs `qemu-system-arm` and the `thumbv7em-none-eabihf` target, which
//! `.ci/run` installs before running it with `cargo test --workspace --test cortex_m --
//! --ignored` (or `-p geomattn-tests`). Run that way without them, it fails and says what to install. It builds the
//! firmware itself (`cargo build --release` in `embedded/cortex-m`, its own target directory).
//! After a change that moves the figures, re-bless the published file with `GEOMATTN_BLESS=1`.
//!
//! One test runs without QEMU: the firmware's initial window (`src/initial_window.rs`, literals,
//! so that the firmware's build needs neither the test kit nor the spec crate) is the ground
//! truth rounded to `f32`; `GEOMATTN_BLESS=1` rewrites it.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use geomattn::gml::load_file;
use geomattn::nalgebra::{Matrix3, Vector3};
use geomattn::{Activation, Tanh, VolumePreservingTransformer, iterate};
use geomattn_testkit::{fixture, rigid_body};
use object::{Object, ObjectSection, ObjectSymbol};

/// The network the firmware embeds, in `f32`, with the activation `Act`.
type Vpt<Act> = VolumePreservingTransformer<f32, 3, 3, 2, 1, 3, Act>;

/// `tanh` as the firmware computes it: without `std`, nalgebra takes `f32::tanh` from the `libm`
/// crate; on the host, `Tanh` calls the platform's C library, which rounds some arguments the
/// other way.
struct LibmTanh;

impl Activation<f32> for LibmTanh {
    const NAME: &'static str = "tanh";

    fn apply(x: f32) -> f32 {
        libm::tanhf(x)
    }
}

/// States of the rollout (the initial window of 3 included): 19 forward passes.
const N_POINTS: usize = 60;
const PASSES: usize = (N_POINTS - 3).div_ceil(3);

/// Issue 9's budgets.
const FLASH_BUDGET: u64 = 64 * 1024;
const STACK_BUDGET: usize = 4 * 1024;
/// The largest relative deviation from the host rollout with the platform's `tanh`: ten times
/// issue 9's 1e-6, which the same `tanhf` meets exactly (bit for bit).
const PLATFORM_TANH_BUDGET: f32 = 1e-5;

const QEMU: &str = "qemu-system-arm";
const QEMU_TIMEOUT: Duration = Duration::from_secs(120);

fn example_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../embedded/cortex-m")
}

/// Checks that the committed file `path` holds `fresh`, or, with `GEOMATTN_BLESS` set, writes it.
fn bless_or_check(path: &Path, fresh: &str) {
    if std::env::var_os("GEOMATTN_BLESS").is_some() {
        std::fs::write(path, fresh)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    } else {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            text == fresh,
            "{} is out of date; re-bless with GEOMATTN_BLESS=1",
            path.display()
        );
    }
}

/// The first window of the rollout, one state a row: z₀ = (0, sin 1.1, cos 1.1) and the next two
/// states of the implicit midpoint rule (h = 0.2), computed in `f64` and rounded to `f32`.
fn initial_window() -> [[f32; 3]; 3] {
    let mut truth = [Vector3::zeros(); 3];
    rigid_body::trajectory(&rigid_body::initial_state(1.1), rigid_body::H, &mut truth);
    truth.map(|z| [z[0], z[1], z[2]].map(|x| x as f32))
}

/// The firmware's `src/initial_window.rs` holding `window` (each `f32` in the shortest decimal
/// that reads back to the same bits).
fn initial_window_source(window: &[[f32; 3]; 3]) -> String {
    let rows: String = window
        .iter()
        .map(|[x, y, z]| format!("    [{x:?}, {y:?}, {z:?}],\n"))
        .collect();
    format!(
        "//! The first window of the rollout, z₀ = (0, sin 1.1, cos 1.1) and the next two states of\n\
         //! the rigid body's implicit midpoint rule (h = 0.2), computed in `f64` and rounded to `f32`.\n\
         //! Written by the host test `tests/tests/cortex_m.rs` (`GEOMATTN_BLESS=1`), which checks it.\n\
         \n\
         /// z₀, z₁, z₂, one state a row.\n\
         pub const INITIAL_WINDOW: [[f32; 3]; 3] = [\n{rows}];\n"
    )
}

#[test]
fn the_firmware_starts_from_the_ground_truth_rounded_to_f32() {
    let source = initial_window_source(&initial_window());
    bless_or_check(&example_dir().join("src/initial_window.rs"), &source);
}

/// Builds the firmware once per test run and returns its ELF file.
fn firmware() -> &'static Path {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| {
        let dir = example_dir();
        let target = dir.join("target");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        // The outer cargo's flags would replace the example's (its linker script).
        let status = Command::new(cargo)
            .args([
                "build",
                "--release",
                "--locked",
                "--config",
                &path_remapping(),
            ])
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", &target)
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .env_remove("CARGO_BUILD_TARGET")
            .status()
            .expect("cargo runs");
        assert!(
            status.success(),
            "building embedded/cortex-m failed ({status}); it needs the thumbv7em-none-eabihf \
             target: `rustup target add thumbv7em-none-eabihf` (rust-toolchain.toml lists it)"
        );
        target.join("thumbv7em-none-eabihf/release/geomattn-cortex-m")
    })
}

/// Extra flags for the firmware (appended to those of its `.cargo/config.toml`): the paths of
/// this repository and of cargo's home, which panic messages carry into `.rodata`, renamed, so that
/// the published flash size does not depend on where they are.
fn path_remapping() -> String {
    let repository = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent");
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")))
        .expect("CARGO_HOME or HOME is set");
    let remap = |from: &Path, to: &str| format!("\"--remap-path-prefix={}={to}\"", from.display());
    format!(
        "target.thumbv7em-none-eabihf.rustflags = [{}, {}]",
        remap(repository, "geomattn"),
        remap(&cargo_home, "cargo-home")
    )
}

/// QEMU running `elf` on the MPS2-AN386 with semihosting, stdout piped, extra `args` first.
fn qemu(elf: &Path, args: &[&str]) -> Child {
    Command::new(QEMU)
        .args(args)
        .args(["-machine", "mps2-an386", "-cpu", "cortex-m4", "-nographic"])
        .args(["-semihosting-config", "enable=on,target=native", "-kernel"])
        .arg(elf)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot run {QEMU} ({e}): install it (Debian: apt-get install qemu-system-arm)")
        })
}

/// Reads `child`'s stdout and hands each line of its stderr to `on_stderr`, waits for it (killing
/// it after [`QEMU_TIMEOUT`]), checks it exited with 0, and returns its stdout.
fn finish(mut child: Child, mut on_stderr: impl FnMut(&str) + Send + 'static) -> String {
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    let out = thread::spawn(move || std::io::read_to_string(stdout).expect("utf-8 output"));
    let err = thread::spawn(move || {
        let mut tail = Vec::new();
        for line in BufReader::new(stderr).lines() {
            let line = line.expect("utf-8 log");
            on_stderr(&line);
            if !line.starts_with("Trace ") {
                tail.push(line);
            }
        }
        tail.join("\n")
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("qemu can be waited for") {
            break status;
        }
        if start.elapsed() > QEMU_TIMEOUT {
            child.kill().expect("qemu can be killed");
            panic!("{QEMU} did not exit within {QEMU_TIMEOUT:?}");
        }
        thread::sleep(Duration::from_millis(20));
    };
    let (out, err) = (out.join().expect("reader"), err.join().expect("reader"));
    assert!(
        status.success(),
        "{QEMU} exited with {status}\n{out}\n{err}"
    );
    out
}

/// What the firmware printed.
struct Output {
    states: Vec<[f32; 3]>,
    /// The stack high-water mark of the whole run, in bytes.
    stack: usize,
}

fn parse(stdout: &str) -> Output {
    let mut states = Vec::new();
    let mut stack = None;
    for line in stdout.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["state", i, hex @ .., x, y, z] if hex.len() == 3 => {
                assert_eq!(i.parse::<usize>().ok(), Some(states.len()), "{line}");
                let bits = |w: &str| u32::from_str_radix(w, 16).expect("hex f32 bits");
                let state = [hex[0], hex[1], hex[2]].map(|w| f32::from_bits(bits(w)));
                for (decimal, exact) in [x, y, z].into_iter().zip(state) {
                    assert_is_rounded(decimal, exact, line);
                }
                states.push(state);
            }
            ["stack", "rollout", bytes] => {
                let bytes = bytes
                    .parse()
                    .unwrap_or_else(|_| panic!("stack overflow: {line}"));
                stack = Some(bytes);
            }
            _ => panic!("unexpected output line: {line:?}"),
        }
    }
    let Some(stack) = stack else {
        panic!("no stack figure in {stdout:?}");
    };
    Output { states, stack }
}

/// Checks that `decimal` is `exact` rounded to 7 decimals.
fn assert_is_rounded(decimal: &str, exact: f32, line: &str) {
    let digits = decimal.split_once('.').map(|(_, d)| d.len());
    let value: f64 = decimal.parse().unwrap_or(f64::NAN);
    assert!(
        digits == Some(7) && (value - f64::from(exact)).abs() <= 0.5e-7 * (1.0 + 1e-9),
        "{decimal} is not {exact:e} to 7 decimals: {line}"
    );
}

/// The firmware's decimal output, compiled for the host.
#[path = "../../embedded/cortex-m/src/decimal.rs"]
mod decimal;

#[test]
fn the_firmware_prints_f32_to_7_decimals_and_says_what_it_cannot() {
    use decimal::Decimal;
    let shown = |x: f32| Decimal(x).to_string();
    for x in [
        0.0,
        0.891_207_3,
        -0.576_548_8,
        1.0,
        -3.25,
        12_345.678,
        1e-8,
        -4e-8,
        9.999e10,
    ] {
        assert_is_rounded(&shown(x), x, "host");
    }
    // A tie, rounded away from zero: 1/256 · 10⁷ = 39 062.5 exactly.
    assert_eq!(shown(1.0 / 256.0), "0.0039063");
    assert_eq!(shown(-1.0 / 256.0), "-0.0039063");
    assert_eq!(shown(-0.0), "-0.0000000");
    assert_eq!(shown(f32::INFINITY), "inf");
    assert_eq!(shown(f32::NEG_INFINITY), "-inf");
    assert_eq!(shown(f32::NAN), "NaN");
    assert_eq!(shown(1e11), ">1e11");
    assert_eq!(shown(-f32::MAX), "<-1e11");
}

/// The firmware's output from a plain run.
fn run() -> &'static Output {
    static OUTPUT: OnceLock<Output> = OnceLock::new();
    OUTPUT.get_or_init(|| parse(&finish(qemu(firmware(), &[]), |_| {})))
}

/// The same rollout on the host, with activation `Act`: the fixture loaded with the std loader,
/// from [`initial_window`] (which the firmware holds, checked above).
fn host_rollout<Act: Activation<f32>>() -> [Vector3<f32>; N_POINTS] {
    let net: Vpt<Act> = load_file(fixture("transformer_rigid_body_nn_vpt.h5")).unwrap();
    let window = Matrix3::from_columns(&initial_window().map(Vector3::from));
    let mut states = [Vector3::zeros(); N_POINTS];
    iterate::<f32, 3, 3, 3, _>(&net, &window, &mut states);
    states
}

/// Largest `|device − host|_max / |host|_max` over the states, and how many states are equal bit
/// for bit.
fn deviation(device: &[[f32; 3]], host: &[Vector3<f32>]) -> (f32, usize) {
    let mut worst = 0.0_f32;
    let mut identical = 0;
    for (d, h) in device.iter().zip(host) {
        let d = Vector3::from(*d);
        worst = worst.max((d - h).amax() / h.amax());
        identical += usize::from(
            d.iter()
                .zip(h.iter())
                .all(|(a, b)| a.to_bits() == b.to_bits()),
        );
    }
    (worst, identical)
}

/// With the same `tanhf`, the Cortex-M4F's single-precision FPU (as QEMU emulates it) and the
/// host compute the same rollout bit for bit: same operations, same order, IEEE rounding.
#[test]
#[ignore = "needs qemu-system-arm and the thumbv7em-none-eabihf target; .ci/run runs it"]
fn device_rollout_is_the_host_rollout_bit_for_bit() {
    let device = &run().states;
    let host = host_rollout::<LibmTanh>();
    assert_eq!(device.len(), N_POINTS);
    for (i, (d, h)) in device.iter().zip(&host).enumerate() {
        let bits = |z: [f32; 3]| z.map(f32::to_bits);
        assert_eq!(bits(*d), bits([h[0], h[1], h[2]]), "state {i}");
    }
}

/// With the host's own `tanh` (the platform's C library), last-place differences of `tanh` grow
/// along the 57 predicted states (the measured deviation is in `MEASURED.md`), within
/// [`PLATFORM_TANH_BUDGET`].
#[test]
#[ignore = "needs qemu-system-arm and the thumbv7em-none-eabihf target; .ci/run runs it"]
fn device_rollout_is_close_to_the_host_rollout_with_the_platform_tanh() {
    let (worst, identical) = deviation(&run().states, &host_rollout::<Tanh>());
    println!("largest relative deviation {worst:e}; {identical} of {N_POINTS} states identical");
    assert!(
        worst <= PLATFORM_TANH_BUDGET,
        "relative deviation {worst:e}"
    );
}

/// Flash (`.vector_table`, `.text`, `.rodata`, `.data`'s initial values) and static RAM (`.data`,
/// `.bss`, `.uninit`) of the firmware, in bytes.
struct Footprint {
    vector_table: u64,
    text: u64,
    rodata: u64,
    data: u64,
    bss: u64,
}

impl Footprint {
    fn flash(&self) -> u64 {
        self.vector_table + self.text + self.rodata + self.data
    }
    fn static_ram(&self) -> u64 {
        self.data + self.bss
    }
}

fn footprint(elf: &object::File) -> Footprint {
    let size = |names: &[&str]| -> u64 {
        names
            .iter()
            .filter_map(|name| elf.section_by_name(name))
            .map(|section| section.size())
            .sum()
    };
    Footprint {
        vector_table: size(&[".vector_table"]),
        text: size(&[".text"]),
        rodata: size(&[".rodata"]),
        data: size(&[".data"]),
        bss: size(&[".bss", ".uninit"]),
    }
}

/// The address of a function symbol (the Thumb bit cleared).
fn function_address(elf: &object::File, name: &str) -> u64 {
    elf.symbols()
        .find(|s| s.name() == Ok(name))
        .unwrap_or_else(|| panic!("no symbol {name}"))
        .address()
        & !1
}

/// Instructions between consecutive calls of `geomattn_pass_boundary`, the marker the firmware
/// calls just before and just after each forward pass, counted in QEMU's instruction trace (one
/// translation block per instruction, `-singlestep`; every execution logged, `-d exec,nochain`):
/// the odd intervals are the passes.
fn instructions_per_pass(elf_path: &Path, marker: u64) -> Vec<u64> {
    let counts = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = counts.clone();
    let mut since_marker: Option<u64> = None;
    let child = qemu(elf_path, &["-singlestep", "-d", "exec,nochain"]);
    finish(child, move |line| {
        let Some(pc) = trace_pc(line) else { return };
        if pc == marker {
            if let Some(n) = since_marker {
                sink.lock().unwrap().push(n);
            }
            since_marker = Some(0);
        }
        if let Some(n) = since_marker.as_mut() {
            *n += 1;
        }
    });
    let intervals = std::mem::take(&mut *counts.lock().unwrap());
    // The marker itself runs in the interval that starts with it: leave its instructions out.
    let passes: Vec<u64> = intervals
        .iter()
        .step_by(2)
        .map(|n| n - MARKER_INSTRUCTIONS)
        .collect();
    assert_eq!(passes.len(), PASSES, "{intervals:?}");
    passes
}

/// `push {r7, lr}; mov r7, sp; nop; pop {r7, pc}`.
const MARKER_INSTRUCTIONS: u64 = 4;

/// The guest PC of a line `Trace 0: 0x… [flags/PC/flags/flags] symbol` of `-d exec`.
fn trace_pc(line: &str) -> Option<u64> {
    let fields = line.strip_prefix("Trace ")?.split_once('[')?.1;
    u64::from_str_radix(fields.split('/').nth(1)?, 16).ok()
}

#[test]
#[ignore = "needs qemu-system-arm and the thumbv7em-none-eabihf target; .ci/run runs it"]
fn firmware_fits_the_budgets_and_the_published_figures() {
    let bytes = std::fs::read(firmware()).expect("the ELF is readable");
    let elf = object::File::parse(&*bytes).expect("an ELF file");
    let size = footprint(&elf);
    assert!(size.flash() <= FLASH_BUDGET, "flash {} B", size.flash());
    for allocator in ["__rust_alloc", "__rg_alloc", "__rdl_alloc"] {
        assert!(
            elf.symbols().all(|s| s.name() != Ok(allocator)),
            "{allocator} linked in"
        );
    }
    let output = run();
    assert!(
        output.stack <= STACK_BUDGET,
        "stack high-water {} B",
        output.stack
    );
    let mut passes =
        instructions_per_pass(firmware(), function_address(&elf, "geomattn_pass_boundary"));
    passes.sort_unstable();
    let (_, same) = deviation(&output.states, &host_rollout::<LibmTanh>());
    let (worst, identical) = deviation(&output.states, &host_rollout::<Tanh>());
    // Every budget the table shows is checked here, so that no figure outside it is blessed.
    assert_eq!(same, N_POINTS, "states identical with the same tanhf");
    assert!(
        worst <= PLATFORM_TANH_BUDGET,
        "relative deviation {worst:e}"
    );
    let figures = format!(
        "| figure | measured | budget |\n|---|---|---|\n\
         | flash: `.text` + `.rodata` (+ `.vector_table`) | {} + {} (+ {}) = {} B | {} B |\n\
         | static RAM: `.data` + `.bss` | {} B | |\n\
         | heap | none (no allocator linked) | none |\n\
         | stack high-water (the whole run) | {} B | {} B |\n\
         | instructions per forward pass (min / median / max of {}) | {} / {} / {} | |\n\
         | rollout vs host f32, same `tanhf`: identical states | {} of {} | {} of {} |\n\
         | rollout vs host f32, the platform's `tanh`: largest relative deviation; identical states | {:.1e}; {} of {} | {:.0e} |\n",
        size.text,
        size.rodata,
        size.vector_table,
        size.flash(),
        FLASH_BUDGET,
        size.static_ram(),
        output.stack,
        STACK_BUDGET,
        PASSES,
        passes[0],
        passes[PASSES / 2],
        passes[PASSES - 1],
        same,
        N_POINTS,
        N_POINTS,
        N_POINTS,
        worst,
        identical,
        N_POINTS,
        PLATFORM_TANH_BUDGET,
    );
    println!("{figures}");
    let published = example_dir().join("MEASURED.md");
    let text = std::fs::read_to_string(&published).unwrap_or_default();
    let (head, _) = text.split_once(TABLE_START).unwrap_or((&text, ""));
    bless_or_check(&published, &format!("{head}{TABLE_START}\n{figures}"));
}

/// The line of `MEASURED.md` after which the test writes the table.
const TABLE_START: &str = "<!-- measured by tests/tests/cortex_m.rs: do not edit below -->";
