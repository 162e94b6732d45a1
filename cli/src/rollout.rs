//! `geomattn rollout FILE --arch SPEC --init STATE`: the trajectory as CSV (stdout or `--out`),
//! with `--reference` the reference and the error, with `--plot` an SVG plot.
//!
//! The rows are written as the states are computed: memory does not grow with `--states` (the
//! plot keeps at most [`plot::kept::MAX_POINTS`] of them). A trajectory that stops being finite ends
//! before its first non-finite state: what was computed is written, one line on stderr says
//! where it diverged, and the exit code is [`DIVERGED`].

use std::iter::Successors;
use std::path::PathBuf;
use std::process::ExitCode;

use geomattn::gml::GmlFile;
use geomattn::nalgebra::Vector3;
use geomattn_networks::rigid_body;
use geomattn_networks::{Arch, Network, Precision};

use crate::Reference;
use crate::count;
use crate::error::Failure;
use crate::output::{Output, OutputFile, commit_all};
use crate::plot;
use crate::progress::Progress;

/// The exit code of a rollout whose states stopped being finite.
pub const DIVERGED: u8 = 3;

/// The arguments of `geomattn rollout`.
#[derive(clap::Args)]
#[command(
    after_help = "Exit codes: 0 the trajectory is written; 2 bad input (one line on \
    stderr, no output file); 3 the network's output stopped being finite: the states before the \
    first non-finite one are written (CSV and plot), and one line on stderr says where."
)]
pub struct Args {
    /// The `.h5` file GML saved.
    file: PathBuf,
    /// The architecture (see SPEC in `geomattn --help`).
    #[arg(long, value_name = "SPEC")]
    arch: String,
    /// The initial state: `dim` values (the rest of a transformer's first window then comes from
    /// the reference), or `dim·seq` values (the whole first window, state after state),
    /// separated by commas.
    #[arg(long, value_name = "STATE", allow_hyphen_values = true)]
    init: String,
    /// The number of states written, the initial ones included (GML's `n_points` in
    /// `iterate(nn, ics; n_points = N)`), from 1 to 10⁹. A transformer of window `seq` starts
    /// from `seq` states and each application of the network appends the `seq` states of its
    /// output (the last cut short): N states take ⌈(N − seq)/seq⌉ applications. The
    /// feed-forward network appends one state per application. The default, 61, is 60 time
    /// steps after z₀.
    #[arg(
        long,
        value_name = "N",
        default_value = "61",
        value_parser = count::states,
        allow_hyphen_values = true
    )]
    states: usize,
    /// Compute in f32 (the CSV then holds the f32 values, in their shortest form).
    #[arg(long, conflicts_with = "f64")]
    f32: bool,
    /// Compute in f64 (the default).
    #[arg(long)]
    f64: bool,
    /// Add the reference trajectory and the error (max norm) as columns.
    #[arg(long, value_enum)]
    reference: Option<Reference>,
    /// Write an SVG plot: one panel per state component, and the error on a log axis, against
    /// the time with --reference (its time step), the step otherwise (at most 10 000 states of
    /// a longer trajectory: every k-th, and the last).
    #[arg(long, value_name = "OUT.svg")]
    plot: Option<PathBuf>,
    /// Write the CSV here instead of to stdout (it appears when the rollout ends).
    #[arg(long, value_name = "OUT.csv")]
    out: Option<PathBuf>,
}

/// One state of a rollout, and the reference's.
pub struct Row {
    /// The index of the state: 0 for the initial one.
    pub step: usize,
    /// The network's state (`dim` values).
    pub state: Vec<f64>,
    /// The reference's state, if asked for.
    pub reference: Option<Vec<f64>>,
}

impl Row {
    /// The max-norm error against the reference, if there is one.
    pub fn error(&self) -> Option<f64> {
        let reference = self.reference.as_ref()?;
        Some(
            self.state
                .iter()
                .zip(reference)
                .map(|(z, r)| (z - r).abs())
                .fold(0.0, f64::max),
        )
    }
}

/// How a rollout ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// Every state asked for was finite.
    Complete,
    /// State `first` (of `asked`) was not finite: the rows before it were handed out.
    Diverged {
        /// The first non-finite state.
        first: usize,
        /// The states asked for.
        asked: usize,
    },
}

impl End {
    /// The exit code: 0, or [`DIVERGED`] after one line on stderr.
    pub fn exit_code(self) -> ExitCode {
        match self {
            Self::Complete => ExitCode::SUCCESS,
            Self::Diverged { first, asked } => {
                eprintln!(
                    "diverged: state {first} (of {asked} asked for) is not finite; the {first} \
                     states before it are written"
                );
                ExitCode::from(DIVERGED)
            }
        }
    }
}

impl Reference {
    /// The time between two states of the reference.
    pub fn time_step(self) -> f64 {
        match self {
            Self::RigidBody => rigid_body::H,
        }
    }
}

/// The rigid body's trajectory, state after state.
type RigidBody = Successors<Vector3<f64>, fn(&Vector3<f64>) -> Option<Vector3<f64>>>;

fn rigid_body(z0: &[f64]) -> Result<RigidBody, Failure> {
    let [a, b, c] = z0 else {
        return Err(Failure::Reference(format!(
            "the rigid body has 3 components, the state has {}",
            z0.len()
        )));
    };
    let next: fn(&Vector3<f64>) -> Option<Vector3<f64>> =
        |z| Some(rigid_body::step(z, rigid_body::H));
    Ok(std::iter::successors(Some(Vector3::new(*a, *b, *c)), next))
}

/// A rollout whose input is checked, ready to stream its rows.
pub struct Rollout<'a> {
    states: Box<dyn Iterator<Item = Vec<f64>> + 'a>,
    reference: Option<RigidBody>,
    count: usize,
}

impl<'a> Rollout<'a> {
    /// The first `count` states of `net` from `init` (see [`Args::init`]), with the reference if
    /// asked for.
    ///
    /// # Errors
    /// An initial state of the wrong length or not finite, or a reference that does not apply.
    pub fn new(
        net: &'a dyn Network,
        init: &[f64],
        count: usize,
        reference: Option<Reference>,
    ) -> Result<Self, Failure> {
        let arch = net.arch();
        let (dim, seq) = (arch.dim(), arch.seq());
        if let Some(index) = init.iter().position(|x| !x.is_finite()) {
            return Err(geomattn_networks::Error::NonFinite {
                what: "the initial state",
                index,
            }
            .into());
        }
        let reference = match reference {
            Some(Reference::RigidBody) if init.len() >= dim => Some(rigid_body(&init[..dim])?),
            _ => None,
        };
        let window: Vec<f64> = match (&reference, init.len()) {
            (Some(states), n) if n == dim && seq > 1 => states
                .clone()
                .take(seq)
                .flat_map(<[f64; 3]>::from)
                .collect(),
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
                return Err(geomattn_networks::Error::Length {
                    what: "the initial state",
                    arch: arch.to_string(),
                    expected,
                    found: init.len(),
                }
                .into());
            }
        };
        Ok(Self {
            states: net.states(&window)?,
            reference,
            count,
        })
    }

    /// Whether the rows carry the reference.
    pub fn has_reference(&self) -> bool {
        self.reference.is_some()
    }

    /// Computes the states one by one and hands each finite one to `each`, in order, until the
    /// count or the first non-finite state; a progress bar shows on a terminal after a second.
    ///
    /// # Errors
    /// The first error of `each` (computing stops there).
    pub fn run(self, mut each: impl FnMut(Row) -> Result<(), Failure>) -> Result<End, Failure> {
        let Self {
            states,
            mut reference,
            count,
        } = self;
        let mut progress = Progress::new(count);
        for (step, state) in states.take(count).enumerate() {
            if state.iter().any(|x| !x.is_finite()) {
                return Ok(End::Diverged {
                    first: step,
                    asked: count,
                });
            }
            let reference = reference
                .as_mut()
                .and_then(Iterator::next)
                .map(|z| z.as_slice().to_vec());
            each(Row {
                step,
                state,
                reference,
            })?;
            progress.update(step + 1);
        }
        Ok(End::Complete)
    }
}

/// The CSV of a rollout, row by row: `step,z1,…[,ref1,…,error]`. Each number is in the
/// shortest form that reads back as the same value in the precision it was computed in: the
/// network's states in `f32` with `--f32` (Rust's `Display` of the `f32`, not of the widened
/// `f64`), the reference and the error in `f64`.
struct Csv {
    out: Output,
    f32: bool,
}

impl Csv {
    /// Writes the header.
    fn start(mut out: Output, dim: usize, reference: bool, f32: bool) -> Result<Self, Failure> {
        write!(out, "step")?;
        for i in 1..=dim {
            write!(out, ",z{i}")?;
        }
        if reference {
            for i in 1..=dim {
                write!(out, ",ref{i}")?;
            }
            write!(out, ",error")?;
        }
        writeln!(out)?;
        Ok(Self { out, f32 })
    }

    fn row(&mut self, row: &Row) -> Result<(), Failure> {
        write!(self.out, "{}", row.step)?;
        for &x in &row.state {
            if self.f32 {
                // Exact: the value is an `f32` widened to `f64`.
                #[allow(clippy::cast_possible_truncation)]
                write!(self.out, ",{}", x as f32)?;
            } else {
                write!(self.out, ",{x}")?;
            }
        }
        if let (Some(reference), Some(error)) = (&row.reference, row.error()) {
            for x in reference {
                write!(self.out, ",{x}")?;
            }
            write!(self.out, ",{error}")?;
        }
        writeln!(self.out)
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

/// Runs `geomattn rollout`.
pub fn run(args: &Args) -> Result<ExitCode, Failure> {
    let arch: Arch = args.arch.parse()?;
    let init = parse_state(&args.init)?;
    let precision = if args.f32 {
        Precision::F32
    } else {
        Precision::F64
    };
    let file =
        GmlFile::open(&args.file).map_err(|source| geomattn_networks::Error::Unreadable {
            file: args.file.display().to_string(),
            source: Box::new(source),
        })?;
    let net = geomattn_networks::open(&file, &arch, precision)?;
    let rollout = Rollout::new(net.as_ref(), &init, args.states, args.reference)?;
    // Every output opened before the first state: one that cannot be written stops the command
    // before it computes anything.
    let plot_file = args.plot.as_deref().map(OutputFile::create).transpose()?;
    let out = match &args.out {
        Some(path) => {
            let file = OutputFile::create(path)?;
            if let Some(plot_file) = &plot_file {
                file.distinct(plot_file)?;
            }
            Output::File(file)
        }
        None => Output::stdout(),
    };
    let mut csv = Csv::start(out, arch.dim(), rollout.has_reference(), args.f32)?;
    let mut kept = args.plot.as_ref().map(|_| plot::Kept::new(args.states));
    let end = rollout.run(|row| {
        csv.row(&row)?;
        if let Some(kept) = &mut kept {
            kept.push(row);
        }
        Ok(())
    })?;
    let mut files = Vec::new();
    match csv.out {
        Output::File(file) => files.push(file),
        stdout @ Output::Stdout(_) => stdout.finish()?,
    }
    if let (Some(mut plot_file), Some(kept)) = (plot_file, kept) {
        let time_step = args.reference.map(Reference::time_step);
        let svg = plot::svg(&kept.rows(), &arch.to_string(), time_step);
        plot_file.write_all(svg.as_bytes())?;
        files.push(plot_file);
    }
    // The CSV and the plot together: both in place, or neither.
    commit_all(files)?;
    Ok(end.exit_code())
}
