//! The plot's structure, read back from the SVG: the axes, the log ticks, where the legend is,
//! and how the lines are drawn.

use super::{DASH, MARKED_UP_TO, NETWORK_COLOUR, svg};
use crate::rollout::Row;

/// `count` states of a 3-component trajectory; with a reference, an error of 0 on the first three
/// (the initial window) and then 2·10⁻⁶ growing tenfold every 20 states.
fn rows(count: usize, reference: bool) -> Vec<Row> {
    (0..count)
        .map(|step| {
            let t = step as f64 * 0.2;
            let state = vec![t.sin(), t.cos(), 0.5 * t.sin() * t.cos()];
            let error = if step < 3 {
                0.0
            } else {
                2e-6 * 10_f64.powf((step - 3) as f64 / 20.0)
            };
            let reference = reference.then(|| state.iter().map(|z| z + error).collect());
            Row {
                step,
                state,
                reference,
            }
        })
        .collect()
}

/// A rectangle in pixels.
#[derive(Debug, Clone, Copy)]
struct Frame {
    left: f64,
    top: f64,
    right: f64,
    bottom: f64,
}

impl Frame {
    fn contains(&self, (x, y): (f64, f64)) -> bool {
        (self.left..=self.right).contains(&x) && (self.top..=self.bottom).contains(&y)
    }
}

/// What a test reads of the SVG.
struct Parsed {
    /// The panels' frames, top to bottom.
    frames: Vec<Frame>,
    /// Every text: its content and anchor point.
    texts: Vec<(String, (f64, f64))>,
    /// Every polyline: its stroke colour and points.
    lines: Vec<(String, Vec<(f64, f64)>)>,
    /// The centres of the circles (the markers).
    markers: Vec<(f64, f64)>,
}

fn number(node: roxmltree::Node, name: &str) -> f64 {
    node.attribute(name)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{name} of {node:?}"))
}

fn parse(svg: &str) -> Parsed {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let mut parsed = Parsed {
        frames: Vec::new(),
        texts: Vec::new(),
        lines: Vec::new(),
        markers: Vec::new(),
    };
    for node in doc.descendants() {
        match node.tag_name().name() {
            "rect" if node.attribute("fill") == Some("none") => {
                let (x, y) = (number(node, "x"), number(node, "y"));
                parsed.frames.push(Frame {
                    left: x,
                    top: y,
                    right: x + number(node, "width"),
                    bottom: y + number(node, "height"),
                });
            }
            "text" => parsed.texts.push((
                node.text().unwrap_or_default().trim().to_owned(),
                (number(node, "x"), number(node, "y")),
            )),
            "polyline" => {
                let points = node
                    .attribute("points")
                    .unwrap_or_default()
                    .split_whitespace()
                    .map(|p| {
                        let (x, y) = p.split_once(',').expect("x,y");
                        (x.parse().unwrap(), y.parse().unwrap())
                    })
                    .collect();
                let stroke = node.attribute("stroke").unwrap_or_default().to_owned();
                parsed.lines.push((stroke, points));
            }
            "circle" => parsed
                .markers
                .push((number(node, "cx"), number(node, "cy"))),
            _ => {}
        }
    }
    parsed.frames.sort_by(|a, b| a.top.total_cmp(&b.top));
    parsed
}

fn network_colour() -> String {
    let (r, g, b) = (NETWORK_COLOUR.0, NETWORK_COLOUR.1, NETWORK_COLOUR.2);
    format!("#{r:02X}{g:02X}{b:02X}")
}

/// The texts whose anchor lies in the band left of `frame` (its y tick labels), top to bottom.
fn y_ticks(parsed: &Parsed, frame: &Frame) -> Vec<(String, f64)> {
    let mut ticks: Vec<(String, f64)> = parsed
        .texts
        .iter()
        .filter(|(_, (x, _))| *x < frame.left && *x > frame.left - 60.0)
        .filter(|(_, (_, y))| (frame.top - 2.0..=frame.bottom + 2.0).contains(y))
        .map(|(text, (_, y))| (text.clone(), *y))
        .collect();
    ticks.sort_by(|a, b| a.1.total_cmp(&b.1));
    ticks
}

/// The texts just below `frame` (its x tick labels), as numbers.
fn x_ticks(parsed: &Parsed, frame: &Frame) -> Vec<f64> {
    parsed
        .texts
        .iter()
        .filter(|(_, (x, y))| {
            *y > frame.bottom && *y < frame.bottom + 20.0 && frame.contains((*x, frame.top))
        })
        .map(|(text, _)| text.parse().unwrap_or_else(|_| panic!("x tick {text:?}")))
        .collect()
}

#[test]
fn time_is_on_the_x_axis_in_the_systems_units() {
    let parsed = parse(&svg(&rows(61, true), "title", Some(0.2)));
    let labels: Vec<_> = parsed
        .texts
        .iter()
        .filter(|(text, _)| text == "time t (h = 0.2 per step)")
        .collect();
    // Named once, under the bottom panel.
    assert_eq!(labels.len(), 1, "{:?}", parsed.texts);
    let bottom = parsed.frames.last().unwrap();
    assert!(labels[0].1.1 > bottom.bottom);
    for frame in &parsed.frames {
        let ticks = x_ticks(&parsed, frame);
        let last = ticks.iter().copied().fold(0.0, f64::max);
        // 60 steps of 0.2 end at t = 12, not at 60.
        assert!(
            ticks.len() >= 3 && (10.0..=12.0).contains(&last),
            "{ticks:?}"
        );
    }
    // Without a time step, the axis counts the steps.
    let parsed = parse(&svg(&rows(61, true), "title", None));
    assert!(parsed.texts.iter().any(|(text, _)| text == "step"));
    let ticks = x_ticks(&parsed, &parsed.frames[0]);
    assert!(
        ticks.iter().copied().fold(0.0, f64::max) >= 50.0,
        "{ticks:?}"
    );
}

#[test]
fn the_error_axis_is_logarithmic_with_a_label_a_decade() {
    let parsed = parse(&svg(&rows(61, true), "title", Some(0.2)));
    assert_eq!(parsed.frames.len(), 4);
    let frame = parsed.frames[3];
    assert!(
        parsed
            .texts
            .iter()
            .any(|(text, _)| text == "error (max norm)")
    );
    let ticks = y_ticks(&parsed, &frame);
    // The errors run from 2·10⁻⁶ to 1.4·10⁻³: a label on each power of ten from 10⁻⁶ to 10⁻².
    let names: Vec<&str> = ticks.iter().map(|t| t.0.as_str()).collect();
    assert_eq!(names, ["10⁻²", "10⁻³", "10⁻⁴", "10⁻⁵", "10⁻⁶"]);
    let gaps: Vec<f64> = ticks.windows(2).map(|w| w[1].1 - w[0].1).collect();
    assert!(
        gaps.iter().all(|g| (g - gaps[0]).abs() <= 1.0),
        "decades equally spaced: {gaps:?}"
    );
    // The error line: the states with an error of 0 are left out, and the others lie on the
    // log scale (y linear in log₁₀ of the error, 10⁻⁶ at the 10⁻⁶ tick, a decade a tick).
    let errors: Vec<_> = parsed
        .lines
        .iter()
        .filter(|(_, points)| points.iter().all(|&p| frame.contains(p)) && points.len() > 2)
        .collect();
    assert_eq!(errors.len(), 1);
    let points = &errors[0].1;
    assert_eq!(points.len(), 58);
    let per_decade = (ticks[4].1 - ticks[0].1) / 4.0;
    let decade_of = |y: f64| (ticks[4].1 - y) / per_decade - 6.0;
    for (step, &(_, y)) in (3..).zip(points) {
        let expected = 2e-6_f64.log10() + f64::from(step - 3) / 20.0;
        assert!(
            (decade_of(y) - expected).abs() < 0.05,
            "state {step}: y {y}"
        );
    }
}

#[test]
fn the_legend_is_outside_every_panel_and_the_data_inside() {
    let parsed = parse(&svg(&rows(61, true), "title", Some(0.2)));
    assert_eq!(parsed.frames.len(), 4);
    let top = parsed.frames[0].top;
    let outside = |p: (f64, f64)| parsed.frames.iter().all(|f| !f.contains(p));
    let mut legend_ys = Vec::new();
    for name in ["network", "reference"] {
        let (_, anchor) = parsed
            .texts
            .iter()
            .find(|(text, _)| text == name)
            .unwrap_or_else(|| panic!("no legend entry {name}"));
        // Above the panels, below the title.
        assert!(outside(*anchor) && anchor.1 < top, "{name} at {anchor:?}");
        legend_ys.push(anchor.1);
    }
    // The legend's samples: the network's solid line and the reference's dashes, on the line of
    // the legend's names.
    let samples: Vec<_> = parsed
        .lines
        .iter()
        .filter(|(_, points)| points.iter().all(|p| p.1 < top))
        .collect();
    let network = network_colour();
    assert_eq!(samples.iter().filter(|(c, _)| *c == network).count(), 1);
    assert!(samples.iter().filter(|(c, _)| c == "#000000").count() >= 2);
    for (_, points) in &samples {
        assert!(
            points.iter().all(|p| legend_ys.contains(&p.1)),
            "{points:?}"
        );
    }
    // No line crosses a frame: the data lie inside the panels, the axes and the legend outside.
    for (_, points) in &parsed.lines {
        let within = parsed
            .frames
            .iter()
            .any(|f| points.iter().all(|&p| f.contains(p)));
        assert!(
            within || points.iter().all(|&p| outside(p)),
            "a line crosses a frame: {points:?}"
        );
    }
    // Every network line but the legend's sample is inside a panel.
    let inside = parsed
        .lines
        .iter()
        .filter(|(c, points)| *c == network && points.iter().all(|&p| !outside(p)))
        .count();
    assert_eq!(inside, 4, "three components and the error");
}

#[test]
fn network_and_reference_differ_in_line_style_not_only_colour() {
    let parsed = parse(&svg(&rows(61, true), "title", Some(0.2)));
    let network = network_colour();
    for frame in &parsed.frames[..3] {
        let inside: Vec<_> = parsed
            .lines
            .iter()
            .filter(|(_, points)| points.iter().all(|&p| frame.contains(p)))
            .collect();
        // The network: one solid line through the 61 states, a marker on each.
        let solid: Vec<_> = inside.iter().filter(|(c, _)| *c == network).collect();
        assert_eq!(solid.len(), 1);
        assert_eq!(solid[0].1.len(), 61);
        let markers = parsed
            .markers
            .iter()
            .filter(|&&m| frame.contains(m))
            .count();
        assert_eq!(markers, 61);
        // The reference: in black, dashes of at most DASH pixels, each followed by a gap.
        let dashes: Vec<_> = inside.iter().filter(|(c, _)| c == "#000000").collect();
        assert!(dashes.len() > 20, "{} dashes", dashes.len());
        for (_, dash) in &dashes {
            let length: f64 = dash
                .windows(2)
                .map(|w| (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1))
                .sum();
            assert!(length <= f64::from(DASH) + 1.5, "a dash of {length} px");
        }
        let starts: Vec<f64> = dashes.iter().map(|(_, d)| d[0].0).collect();
        assert!(
            starts.windows(2).all(|w| w[1] > w[0]),
            "dashes in order along time"
        );
    }
}

#[test]
fn long_rollouts_have_no_markers_and_no_reference_means_no_error_panel() {
    let parsed = parse(&svg(&rows(MARKED_UP_TO + 1, true), "title", Some(0.2)));
    assert!(parsed.markers.is_empty());
    let parsed = parse(&svg(&rows(61, false), "title", None));
    assert_eq!(parsed.frames.len(), 3);
    assert!(parsed.texts.iter().any(|(text, _)| text == "network"));
    assert!(!parsed.texts.iter().any(|(text, _)| text == "reference"));
    assert!(
        !parsed
            .texts
            .iter()
            .any(|(text, _)| text == "error (max norm)")
    );
}

#[test]
fn edges_give_a_readable_plot_not_a_panic() {
    // An error of 0 everywhere has no place on a log axis: the panel says so.
    let mut exact = rows(10, true);
    for row in &mut exact {
        row.reference = Some(row.state.clone());
    }
    let parsed = parse(&svg(&exact, "title", Some(0.2)));
    assert!(
        parsed
            .texts
            .iter()
            .any(|(text, _)| text == "the error is 0 at every state")
    );
    // No state, one state, and a constant trajectory.
    let parsed = parse(&svg(&[], "nothing", Some(0.2)));
    assert!(parsed.frames.is_empty());
    assert!(parsed.texts.iter().any(|(text, _)| text == "nothing"));
    let one = parse(&svg(&rows(1, true), "title", Some(0.2)));
    assert_eq!(one.frames.len(), 4);
    let flat: Vec<Row> = (0..5)
        .map(|step| Row {
            step,
            state: vec![1.0],
            reference: None,
        })
        .collect();
    assert_eq!(parse(&svg(&flat, "title", None)).frames.len(), 1);
}
