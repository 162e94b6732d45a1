//! Where the commands write and what they read, as a hostile or careless user names it: outputs
//! go into the path named (a FIFO, `/dev/stdout`, a symbolic link's target) without replacing
//! it; two outputs of one command are put in place together or not at all; a signal leaves no
//! temporary file; `train` checks its outputs before it trains, and a reader of its epoch lines
//! that goes away does not lose the network; inputs that are no regular file are refused at
//! once instead of blocking forever.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::FileTypeExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::{geomattn_in, repository};

const VPFF: &str = "vpff(dim=3, n_blocks=6, n_linear=1, activation=tanh)";
const Z0: &str = "0,0.8912073600614354,0.4535961214255773";
const VPT: &str = "vpt(dim=3, seq=3, n_blocks=1, n_linear=1, L=1, activation=tanh, skew_sym=false)";

fn vpff_file() -> String {
    repository("fixtures/gml/transformer_rigid_body_nn_vpff.h5")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

/// Waits for `child` at most `limit`; kills it and fails the test past that (a command that
/// blocks forever must not block the test suite).
fn wait_at_most(child: &mut Child, limit: Duration, what: &str) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{what}: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn spawn(dir: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_geomattn"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the geomattn binary runs")
}

fn rollout_args<'a>(file: &'a str, states: &'a str) -> Vec<&'a str> {
    vec![
        "rollout", file, "--arch", VPFF, "--init", Z0, "--states", states,
    ]
}

/// A FIFO named as the output is written into, and stays a FIFO (renamed over, it became a
/// regular file as root; as anyone else the temporary file beside `/dev/…` was refused).
#[test]
fn an_output_that_is_a_fifo_is_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.csv");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let file = vpff_file();
    let mut args = rollout_args(&file, "4");
    args.extend(["--out", "out.csv"]);
    let mut child = spawn(dir.path(), &args);
    let status = wait_at_most(&mut child, Duration::from_secs(60), "rollout into a FIFO");
    assert!(status.success(), "{status}");
    // Before joining the reader: renamed over, the FIFO would leave it waiting for a writer.
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo());
    let csv = reader.join().unwrap();
    assert_eq!(csv.lines().count(), 5, "{csv}");
    assert_eq!(names(dir.path()), ["out.csv"]);
}

/// `--out /dev/stdout` writes standard output, whatever it is; `/dev/null` stays a device.
#[test]
fn dev_stdout_and_dev_null_are_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let file = vpff_file();
    let mut args = rollout_args(&file, "4");
    args.extend(["--out", "/dev/stdout"]);
    let out = geomattn_in(dir.path(), &args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).lines().count(), 5);
    let out = geomattn_in(
        dir.path(),
        &[
            "export",
            &file,
            "--arch",
            VPFF,
            "--to",
            "blob",
            "-o",
            "/dev/null",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let null = std::fs::symlink_metadata("/dev/null").unwrap();
    assert!(null.file_type().is_char_device());
}

/// A symbolic link named as the output (also a dangling one) stays a link; the file it points to
/// gets the output.
#[test]
fn a_symbolic_link_is_followed_and_stays_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let file = vpff_file();
    std::fs::create_dir(dir.path().join("real")).unwrap();
    std::os::unix::fs::symlink("real/net.blob", dir.path().join("link.blob")).unwrap();
    std::os::unix::fs::symlink("real/old.blob", dir.path().join("old.blob")).unwrap();
    std::fs::write(dir.path().join("real/old.blob"), "old").unwrap();
    for link in ["link.blob", "old.blob"] {
        let out = geomattn_in(
            dir.path(),
            &["export", &file, "--arch", VPFF, "--to", "blob", "-o", link],
        );
        assert!(out.status.success(), "{link}: {}", text(&out.stderr));
        let kind = std::fs::symlink_metadata(dir.path().join(link)).unwrap();
        assert!(kind.file_type().is_symlink(), "{link}");
    }
    let written = std::fs::read(dir.path().join("real/net.blob")).unwrap();
    assert_eq!(
        written,
        std::fs::read(dir.path().join("real/old.blob")).unwrap()
    );
    assert!(written.starts_with(&geomattn::BLOB_MAGIC));
    assert_eq!(names(&dir.path().join("real")), ["net.blob", "old.blob"]);
}

/// `--plot` onto `--out` (or `-o`) is refused before anything is computed: the plot would have
/// replaced the network.
#[test]
fn two_outputs_naming_one_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data.csv"), "z1,z2,z3\n1,0,0\n").unwrap();
    let file = vpff_file();
    let mut rollout = rollout_args(&file, "4");
    rollout.extend(["--out", "same", "--plot", "./same"]);
    let train = [
        "train",
        "--arch",
        VPT,
        "--data",
        "rigid-body",
        "--epochs",
        "1000000000",
        "-o",
        "same",
        "--plot",
        "same",
    ];
    for args in [&rollout[..], &train[..]] {
        let mut child = spawn(dir.path(), args);
        let status = wait_at_most(&mut child, Duration::from_secs(60), args[0]);
        let mut stderr = String::new();
        child.stderr.unwrap().read_to_string(&mut stderr).unwrap();
        assert_eq!(status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("name the same file"), "{stderr}");
        assert_eq!(names(dir.path()), ["data.csv"], "{args:?}");
    }
}

/// When the second output cannot be put in place, neither is (the rollout's CSV is not left
/// without its plot).
#[test]
fn outputs_are_put_in_place_together_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let file = vpff_file();
    // A folder where the plot should go: it cannot be written, so the CSV is not written either.
    std::fs::create_dir(dir.path().join("plot.svg")).unwrap();
    std::fs::write(dir.path().join("plot.svg/inside"), "").unwrap();
    let mut args = rollout_args(&file, "4");
    args.extend(["--out", "out.csv", "--plot", "plot.svg"]);
    let out = geomattn_in(dir.path(), &args);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("plot.svg"));
    assert_eq!(names(dir.path()), ["plot.svg"]);
}

/// `SIGTERM` (and `SIGINT`, `SIGHUP`) during a long rollout into a file: the temporary file is
/// removed and the process ends by the signal.
#[test]
fn a_signal_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = vpff_file();
    for (signal, number) in [("TERM", 15), ("INT", 2), ("HUP", 1)] {
        let mut args = rollout_args(&file, "1000000000");
        args.extend(["--out", "out.csv"]);
        let mut child = spawn(dir.path(), &args);
        // The temporary file exists as soon as the rollout has begun.
        let start = Instant::now();
        while names(dir.path()).is_empty() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no temporary file"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        let temporary = names(dir.path());
        assert!(
            temporary[0].starts_with(".out.csv.") && temporary[0].ends_with(".tmp"),
            "{temporary:?}"
        );
        // The shell's own `kill` (a builtin: no procps needed).
        let killed = Command::new("sh")
            .args(["-c", &format!("kill -s {signal} {}", child.id())])
            .status()
            .unwrap();
        assert!(killed.success());
        let status = wait_at_most(&mut child, Duration::from_secs(60), "after the signal");
        assert_eq!(status.signal(), Some(number), "SIG{signal}: {status}");
        assert!(
            names(dir.path()).is_empty(),
            "SIG{signal}: {:?}",
            names(dir.path())
        );
    }
}

/// `train -o` into a folder that does not exist fails before the first epoch (it failed after
/// the last, the training lost).
#[test]
fn train_checks_its_output_before_it_trains() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "train",
        "--arch",
        VPT,
        "--data",
        "rigid-body",
        "--epochs",
        "1000000000",
        "-o",
        "missing/net.h5",
    ];
    let mut child = spawn(dir.path(), &args);
    let status = wait_at_most(&mut child, Duration::from_secs(60), "train into missing/");
    let mut stdout = String::new();
    child.stdout.unwrap().read_to_string(&mut stdout).unwrap();
    let mut stderr = String::new();
    child.stderr.unwrap().read_to_string(&mut stderr).unwrap();
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("missing/net.h5"), "{stderr}");
    assert_eq!(stdout, "", "no epoch ran");
}

/// `geomattn train … | head -1`: the epoch lines stop with their reader, the training does not,
/// and the network is written (it was lost, with exit code 0).
#[test]
fn train_writes_its_network_when_the_reader_of_its_lines_goes_away() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "train",
        "--arch",
        VPT,
        "--data",
        "rigid-body",
        "--epochs",
        "3",
        "--batch",
        "4096",
        "-o",
        "net.h5",
    ];
    let mut child = spawn(dir.path(), &args);
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("epoch 1 loss"), "{first}");
    // The reader is gone (dropped with the line read).
    let status = wait_at_most(&mut child, Duration::from_secs(300), "train | head -1");
    let mut stderr = String::new();
    child.stderr.unwrap().read_to_string(&mut stderr).unwrap();
    assert!(status.success(), "{status}: {stderr}");
    assert_eq!(stderr, "");
    assert!(geomattn::gml::GmlFile::open(dir.path().join("net.h5")).is_ok());
    assert_eq!(names(dir.path()), ["net.h5"]);
}

/// A FIFO given as an input (with nothing writing to it) is refused at once: `inspect`,
/// `rollout`, `classify`'s images and `train --data` blocked forever on it.
#[test]
fn an_input_that_is_no_regular_file_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let fifo_name = fifo.display().to_string();
    let labels = repository("fixtures/mnist/mnist-train-300-labels.idx1-ubyte");
    let ct = "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, \
              Stiefel=true, add_connection=false)";
    let cases: [Vec<&str>; 4] = [
        vec!["inspect", &fifo_name],
        rollout_args(&fifo_name, "4"),
        vec![
            "classify", &fifo_name, "--arch", ct, "--images", &fifo_name, "--labels", &labels,
        ],
        vec![
            "train", "--arch", VPT, "--data", &fifo_name, "--epochs", "1", "-o", "net.h5",
        ],
    ];
    for args in cases {
        let mut child = spawn(dir.path(), &args);
        let status = wait_at_most(&mut child, Duration::from_secs(60), args[0]);
        let mut stderr = String::new();
        child.stderr.unwrap().read_to_string(&mut stderr).unwrap();
        assert_eq!(status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("not a regular file"), "{args:?}: {stderr}");
    }
    assert_eq!(names(dir.path()), ["fifo"]);
}

/// Training that diverges with a finite loss (Adam at η = 10⁵) stops with exit code 3 and writes
/// no network (it wrote one and exited 0).
#[test]
fn training_that_diverges_writes_no_network_and_exits_with_code_3() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "train",
        "--arch",
        VPT,
        "--data",
        "rigid-body",
        "--epochs",
        "20",
        "--batch",
        "4096",
        "--lr",
        "1e5",
        "-o",
        "net.h5",
    ];
    let out = geomattn_in(dir.path(), &args);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("training diverged at epoch"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert_eq!(names(dir.path()), Vec::<String>::new());
}

/// An `L` whose training cannot be allocated is refused with exit code 2 before anything is
/// (it aborted the process on the allocation).
#[test]
fn an_l_too_large_to_train_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let arch = "vpt(dim=3, seq=3, n_blocks=1, n_linear=1, L=1000000000000, activation=tanh, \
                skew_sym=false)";
    let out = geomattn_in(
        dir.path(),
        &[
            "train",
            "--arch",
            arch,
            "--data",
            "rigid-body",
            "--epochs",
            "1",
            "-o",
            "net.h5",
        ],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("more than can be allocated"), "{stderr}");
    assert_eq!(names(dir.path()), Vec::<String>::new());
}
