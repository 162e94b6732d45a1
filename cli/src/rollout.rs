//! `geomattn rollout FILE --arch SPEC --init STATE`: the trajectory as CSV (stdout or `--out`),
//! with `--reference` the reference and the error, with `--plot` an SVG plot.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use geomattn::gml::GmlFile;
use geomattn::nalgebra::Vector3;
use geomattn_spec::rigid_body;
use geomattn_spec::{Arch, Network, Precision};
use indicatif::ProgressBar;

use crate::Reference;
use crate::error::Failure;
use crate::output::write_atomically;
use crate::plot;

/// The arguments of `geomattn rollout`.
#[derive(clap::Args)]
pub struct Args {
    /// The `.h5` file GML saved.
    file: PathBuf,
    /// The architecture (see SPEC below).
    #[arg(long, value_name = "SPEC")]
    arch: String,
    /// The initial state: `dim` values (the rest of a transformer's first window then comes from
    /// the reference), or `dim·seq` values (the whole first window, state after state),
    /// separated by commas.
    #[arg(long, value_name = "STATE", allow_hyphen_values = true)]
    init: String,
    /// Time steps after the initial state.
    #[arg(long, default_value_t = 60)]
    steps: usize,
    /// Compute in f32.
    #[arg(long, conflicts_with = "f64")]
    f32: bool,
    /// Compute in f64 (the default).
    #[arg(long)]
    f64: bool,
    /// Add the reference trajectory and the error (max norm) as columns.
    #[arg(long, value_enum)]
    reference: Option<Reference>,
    /// Write an SVG plot: one panel per state component, and the error against the step.
    #[arg(long, value_name = "OUT.svg")]
    plot: Option<PathBuf>,
    /// Write the CSV here instead of to stdout.
    #[arg(long, value_name = "OUT.csv")]
    out: Option<PathBuf>,
}

/// A rollout and what it is compared with: states as rows of `dim` values.
pub struct Trajectory {
    /// The network's states `z₀ … z_steps`.
    pub states: Vec<Vec<f64>>,
    /// The reference states, if asked for.
    pub reference: Option<Vec<Vec<f64>>>,
}

impl Trajectory {
    /// The max-norm error of each state, if there is a reference.
    pub fn errors(&self) -> Option<Vec<f64>> {
        let reference = self.reference.as_ref()?;
        Some(
            self.states
                .iter()
                .zip(reference)
                .map(|(z, r)| {
                    z.iter()
                        .zip(r)
                        .map(|(a, b)| (a - b).abs())
                        .fold(0.0, f64::max)
                })
                .collect(),
        )
    }

    /// The CSV text: `step,z1,…[,ref1,…,error]`.
    pub fn csv(&self) -> String {
        let dim = self.states.first().map_or(0, Vec::len);
        let mut header: Vec<String> = (1..=dim).map(|i| format!("z{i}")).collect();
        if self.reference.is_some() {
            header.extend((1..=dim).map(|i| format!("ref{i}")));
            header.push("error".into());
        }
        let mut text = format!("step,{}\n", header.join(","));
        let errors = self.errors();
        for (step, z) in self.states.iter().enumerate() {
            let mut cells: Vec<String> = z.iter().map(ToString::to_string).collect();
            if let (Some(reference), Some(errors)) = (&self.reference, &errors) {
                cells.extend(reference[step].iter().map(ToString::to_string));
                cells.push(errors[step].to_string());
            }
            let _ = writeln!(text, "{step},{}", cells.join(","));
        }
        text
    }
}

fn parse_state(text: &str) -> Result<Vec<f64>, Failure> {
    text.split([',', ' '])
        .filter(|item| !item.trim().is_empty())
        .map(|item| {
            item.trim()
                .parse::<f64>()
                .map_err(|_| Failure::Number(item.trim().into()))
        })
        .collect()
}

/// The rigid body's trajectory from `z0`, `states` states.
fn rigid_body_states(z0: &[f64], states: usize) -> Result<Vec<Vec<f64>>, Failure> {
    let [a, b, c] = z0 else {
        return Err(Failure::Reference(format!(
            "the rigid body has 3 components, the state has {}",
            z0.len()
        )));
    };
    let mut out = vec![Vector3::zeros(); states];
    rigid_body::trajectory(&Vector3::new(*a, *b, *c), rigid_body::H, &mut out);
    Ok(out.iter().map(|z| z.as_slice().to_vec()).collect())
}

/// Rolls `net` out from `init` (see [`Args::init`]) for `steps` steps.
pub fn trajectory(
    net: &dyn Network,
    init: &[f64],
    steps: usize,
    reference: Option<Reference>,
) -> Result<Trajectory, Failure> {
    let arch = net.arch();
    let (dim, seq) = (arch.dim(), arch.seq());
    if let Some(index) = init.iter().position(|x| !x.is_finite()) {
        return Err(geomattn_spec::Error::NonFinite {
            what: "the initial state",
            index,
        }
        .into());
    }
    let reference = match reference {
        Some(Reference::RigidBody) if init.len() >= dim => {
            Some(rigid_body_states(&init[..dim], (steps + 1).max(seq))?)
        }
        _ => None,
    };
    let window: Vec<f64> = match (&reference, init.len()) {
        (Some(states), n) if n == dim && seq > 1 => states[..seq].concat(),
        _ if init.len() == dim * seq => init.to_vec(),
        _ => {
            let expected = if seq > 1 {
                format!(
                    "{} (a window of {seq} states), or {dim} with --reference",
                    dim * seq
                )
            } else {
                dim.to_string()
            };
            return Err(geomattn_spec::Error::Length {
                what: "the initial state",
                arch: arch.to_string(),
                expected,
                found: init.len(),
            }
            .into());
        }
    };
    let values = with_progress(steps + 1, |progress| net.rollout(&window, steps, progress))?;
    let states = values.chunks(dim).map(<[f64]>::to_vec).collect();
    let reference = reference.map(|mut r| {
        r.truncate(steps + 1);
        r
    });
    Ok(Trajectory { states, reference })
}

/// Runs `f` with a progress callback that shows a bar on stderr once a second has passed (and
/// only on a terminal).
fn with_progress<T>(total: usize, f: impl FnOnce(&mut dyn FnMut(usize)) -> T) -> T {
    let start = Instant::now();
    let mut bar: Option<ProgressBar> = None;
    let mut progress = |done: usize| {
        if bar.is_none() && start.elapsed() > Duration::from_secs(1) {
            bar = Some(ProgressBar::new(total as u64));
        }
        if let Some(bar) = &bar {
            bar.set_position(done as u64);
        }
    };
    let result = f(&mut progress);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    result
}

/// Runs `geomattn rollout`.
pub fn run(args: &Args) -> Result<ExitCode, Failure> {
    let arch: Arch = args.arch.parse()?;
    let init = parse_state(&args.init)?;
    let precision = if args.f32 {
        Precision::F32
    } else {
        Precision::F64
    };
    let file = GmlFile::open(&args.file).map_err(|source| geomattn_spec::Error::Unreadable {
        file: args.file.display().to_string(),
        source: Box::new(source),
    })?;
    let net = geomattn_spec::open(&file, &arch, precision)?;
    let trajectory = trajectory(net.as_ref(), &init, args.steps, args.reference)?;
    if let Some(path) = &args.plot {
        write_atomically(path, plot::svg(&trajectory, &arch.to_string()).as_bytes())?;
    }
    let csv = trajectory.csv();
    match &args.out {
        Some(path) => write_atomically(path, csv.as_bytes())?,
        None => print!("{csv}"),
    }
    Ok(ExitCode::SUCCESS)
}
