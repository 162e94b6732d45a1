//! The SVG plot of a rollout (plotters), drawn to be printed: one panel per state component, the
//! network (a solid line, with a marker on each state of a short rollout) against the reference
//! (a dashed line), and a last panel with the error on a logarithmic axis. The x axis is the time
//! when the time between two states is known, the index of the state otherwise. One legend, in a
//! strip of its own between the title and the panels, names the lines of every panel; each panel
//! is framed.

pub mod kept;
mod legend;
mod losses;
mod scale;
#[cfg(test)]
mod tests;

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub use kept::Kept;
use legend::{Line, legend};
pub use losses::losses_svg;
use scale::{decades, power_of_ten, range, tick};

use crate::rollout::Row;

const WIDTH: u32 = 900;
const PANEL_HEIGHT: u32 = 220;
const TITLE_HEIGHT: u32 = 40;
const LEGEND_HEIGHT: u32 = 30;
const FONT: &str = "sans-serif";

/// The network's colour, a blue that prints as a mid grey.
const NETWORK_COLOUR: RGBColor = RGBColor(31, 119, 180);
/// The reference's dashes and gaps, in pixels.
const DASH: u32 = 8;
const GAP: u32 = 5;
/// The network's states get a marker up to this many states (more would merge into a band).
const MARKED_UP_TO: usize = 100;
const MARKER_RADIUS: i32 = 2;

/// What the x axis shows.
#[derive(Clone, Copy)]
struct TimeAxis {
    /// The time between two states, if known.
    step: Option<f64>,
}

impl TimeAxis {
    fn at(self, state: usize) -> f64 {
        // States are counted in usize; the plot's coordinates are f64 (exact below 2⁵³).
        state as f64 * self.step.unwrap_or(1.0)
    }

    fn label(self) -> String {
        match self.step {
            Some(h) => format!("time t (h = {h} per step)"),
            None => "step".into(),
        }
    }
}

/// The plot of `rows` (in order of their steps) as SVG text; `time_step` is the time between two
/// states (the x axis counts states without it). Errors of 0 (the initial window, copied from
/// the reference) have no place on the logarithmic error axis and are left out.
pub fn svg(rows: &[Row], title: &str, time_step: Option<f64>) -> String {
    let dim = rows.first().map_or(0, |row| row.state.len());
    let has_reference = !rows.is_empty() && rows.iter().all(|row| row.reference.is_some());
    let panels = dim + usize::from(has_reference);
    let panel_count = u32::try_from(panels).unwrap_or(u32::MAX);
    let height = TITLE_HEIGHT + LEGEND_HEIGHT + PANEL_HEIGHT.saturating_mul(panel_count);
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (WIDTH, height)).into_drawing_area();
        let plot = Plot {
            rows,
            time: TimeAxis { step: time_step },
            dim,
            has_reference,
        };
        // Drawing into a string cannot fail on I/O; a plotting error would be a bug here, and
        // leaves an incomplete plot rather than a panic.
        let _ = plot.draw(&root, title);
        let _ = root.present();
    }
    text
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Drawn<'a> = Result<(), Box<dyn std::error::Error + 'a>>;

/// What is drawn.
struct Plot<'r> {
    rows: &'r [Row],
    time: TimeAxis,
    dim: usize,
    has_reference: bool,
}

impl Plot<'_> {
    fn draw<'a>(&self, root: &Area<'a>, title: &str) -> Drawn<'a> {
        root.fill(&WHITE)?;
        let (head, body) = root.split_vertically(TITLE_HEIGHT);
        head.draw(&Text::new(
            title.to_owned(),
            (i32::try_from(WIDTH / 2)?, i32::try_from(TITLE_HEIGHT / 2)?),
            TextStyle::from((FONT, 16).into_font()).pos(Pos::new(HPos::Center, VPos::Center)),
        ))?;
        if self.dim == 0 {
            return Ok(());
        }
        let (strip, panels) = body.split_vertically(LEGEND_HEIGHT);
        let lines: &[Line] = if self.has_reference {
            &[Line::Network, Line::Reference]
        } else {
            &[Line::Network]
        };
        legend(&strip, lines, self.marked())?;
        let areas = panels.split_evenly((self.dim + usize::from(self.has_reference), 1));
        let last = areas.len() - 1;
        for (component, area) in areas.iter().enumerate().take(self.dim) {
            self.component(area, component, component == last)?;
        }
        if self.has_reference {
            self.error(&areas[last])?;
        }
        Ok(())
    }

    fn marked(&self) -> bool {
        self.rows.len() <= MARKED_UP_TO
    }

    fn end(&self) -> f64 {
        self.time
            .at(self.rows.last().map_or(0, |row| row.step).max(1))
    }

    /// The panel of state component `component`: the network, and the reference over it.
    fn component<'a>(&self, area: &Area<'a>, component: usize, last: bool) -> Drawn<'a> {
        let at = |row: &Row, value: f64| (self.time.at(row.step), value);
        let network: Vec<(f64, f64)> = self
            .rows
            .iter()
            .map(|row| at(row, row.state[component]))
            .collect();
        let reference: Vec<(f64, f64)> = self
            .rows
            .iter()
            .filter_map(|row| Some(at(row, row.reference.as_ref()?[component])))
            .collect();
        let (low, high) = range(network.iter().chain(&reference).map(|p| p.1));
        let mut chart = chart(area, last).build_cartesian_2d(0.0..self.end(), low..high)?;
        let name = format!("z{}", component + 1);
        let y_tick = |v: &f64| tick(*v, high - low);
        self.mesh(&mut chart, &name, &y_tick, last)?;
        frame(&mut chart, (0.0, low), (self.end(), high))?;
        chart.draw_series(LineSeries::new(
            network.iter().copied(),
            Line::Network.style(),
        ))?;
        if self.marked() {
            let filled = Line::Network.style().filled();
            chart.draw_series(
                network
                    .iter()
                    .map(|&point| Circle::new(point, MARKER_RADIUS, filled)),
            )?;
        }
        if !reference.is_empty() {
            chart.draw_series(DashedLineSeries::new(
                reference,
                DASH,
                GAP,
                Line::Reference.style(),
            ))?;
        }
        Ok(())
    }

    /// The panel of the error, on a logarithmic axis (errors of 0 left out).
    fn error<'a>(&self, area: &Area<'a>) -> Drawn<'a> {
        let errors: Vec<(f64, f64)> = self
            .rows
            .iter()
            .filter_map(|row| Some((self.time.at(row.step), row.error()?)))
            .filter(|&(_, e)| e > 0.0 && e.is_finite())
            .collect();
        let mut chart = log_chart(
            area,
            (0.0, self.end()),
            errors.iter().map(|e| e.1),
            self.time.label(),
            "error (max norm)",
        )?;
        if errors.is_empty() {
            let (x, y) = area.dim_in_pixel();
            area.draw(&Text::new(
                "the error is 0 at every state",
                (i32::try_from(x / 2)?, i32::try_from(y / 2)?),
                TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Center, VPos::Center)),
            ))?;
        } else {
            chart.draw_series(LineSeries::new(errors, Line::Network.style()))?;
        }
        Ok(())
    }
}

/// A panel's chart builder: room on the left for the y labels, below for the x labels (and, on
/// the bottom panel, the x axis's name).
fn chart<'a, 'b>(area: &'a Area<'b>, bottom: bool) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut builder = ChartBuilder::on(area);
    builder
        .margin(8)
        .margin_right(24)
        .x_label_area_size(if bottom { 42 } else { 24 })
        .y_label_area_size(72);
    builder
}

type LogChart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, LogCoord<f64>>>;

/// A framed bottom panel over `x_start..end` whose y axis is logarithmic, spanning the decades of
/// `values` and labelled at powers of ten: the rollout's error panel and the training's loss.
fn log_chart<'a, 'b>(
    area: &'a Area<'b>,
    (x_start, end): (f64, f64),
    values: impl Iterator<Item = f64>,
    x_desc: String,
    y_desc: &str,
) -> Result<LogChart<'a, 'b>, Box<dyn std::error::Error + 'b>> {
    let (low, high) = decades(values);
    let decades = (high / low).log10().round();
    // plotters labels the powers of ten from the first at or above the range's start, found
    // with a rounding `ln`: the range starts a hair below its bottom decade to keep its label.
    let axis = (low * (1.0 - 1e-9)..high).log_scale().base(10.0);
    let mut chart = chart(area, true).build_cartesian_2d(x_start..end, axis)?;
    let x_tick = |t: &f64| tick(*t, end);
    chart
        .configure_mesh()
        .bold_line_style(BLACK.mix(0.15))
        // The light lines are the minor ticks of the log axis (2, 3, … 9 times a power of ten).
        .light_line_style(BLACK.mix(0.05))
        .x_max_light_lines(0)
        .x_label_formatter(&x_tick)
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        // Labels on powers of ten only: plotters adds labels between them when it is given
        // ten or more slots a decade; a range of more than eight decades is labelled every
        // few decades.
        .y_labels((decades as usize + 1).min(9))
        .y_label_formatter(&power_of_ten)
        .x_desc(x_desc)
        .y_desc(y_desc)
        .draw()?;
    frame(&mut chart, (x_start, low), (end, high))?;
    Ok(chart)
}

type LinearChart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

impl Plot<'_> {
    /// The grid and labels of a component's panel; the x axis is named on the bottom panel only.
    fn mesh<'b>(
        &self,
        chart: &mut LinearChart<'_, 'b>,
        name: &str,
        y_tick: &dyn Fn(&f64) -> String,
        bottom: bool,
    ) -> Drawn<'b> {
        let x_tick = |t: &f64| tick(*t, self.end());
        let mut mesh = chart.configure_mesh();
        mesh.bold_line_style(BLACK.mix(0.15))
            .light_line_style(WHITE.mix(0.0))
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .x_label_formatter(&x_tick)
            .y_label_formatter(y_tick)
            .y_desc(name);
        if bottom {
            mesh.x_desc(self.time.label());
        }
        mesh.draw()?;
        Ok(())
    }
}

/// A frame around the plotting area (whose corners are `low` and `high`), closing the axes.
fn frame<'b, X, Y>(
    chart: &mut ChartContext<'_, SVGBackend<'b>, Cartesian2d<X, Y>>,
    low: (X::ValueType, Y::ValueType),
    high: (X::ValueType, Y::ValueType),
) -> Drawn<'b>
where
    X: plotters::coord::ranged1d::Ranged,
    Y: plotters::coord::ranged1d::Ranged,
    X::ValueType: Clone + 'static,
    Y::ValueType: Clone + 'static,
{
    chart.draw_series(std::iter::once(Rectangle::new(
        [low, high],
        BLACK.stroke_width(1),
    )))?;
    Ok(())
}
