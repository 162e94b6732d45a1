//! The lines of the plot, and the legend that names them.

use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Area, DASH, Drawn, FONT, GAP, MARKER_RADIUS, NETWORK_COLOUR};

/// A line of the plot: how it is drawn, and what the legend calls it.
#[derive(Clone, Copy, PartialEq)]
pub enum Line {
    /// The network's states: solid, in colour, with markers on a short rollout.
    Network,
    /// The reference's: dashed, in black.
    Reference,
}

impl Line {
    /// Its colour and width (the dashes are drawn by the series).
    pub fn style(self) -> ShapeStyle {
        match self {
            Self::Network => NETWORK_COLOUR.stroke_width(2),
            Self::Reference => BLACK.stroke_width(1),
        }
    }

    /// Its name in the legend.
    pub fn label(self) -> &'static str {
        match self {
            Self::Network => "network",
            Self::Reference => "reference",
        }
    }
}

/// The legend: a sample of each line and its name, centred in `strip`.
pub fn legend<'a>(strip: &Area<'a>, lines: &[Line], marked: bool) -> Drawn<'a> {
    const SAMPLE: i32 = 36;
    const SPACE: i32 = 8;
    const BETWEEN: i32 = 32;
    let style = TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    let mut widths = Vec::with_capacity(lines.len());
    for line in lines {
        widths.push(i32::try_from(
            strip.estimate_text_size(line.label(), &style)?.0,
        )?);
    }
    let total: i32 = widths.iter().map(|w| SAMPLE + SPACE + w).sum::<i32>()
        + BETWEEN * (i32::try_from(lines.len())? - 1);
    let (width, height) = strip.dim_in_pixel();
    let (mut x, y) = (
        (i32::try_from(width)? - total) / 2,
        i32::try_from(height)? / 2,
    );
    for (&line, width) in lines.iter().zip(widths) {
        let ends = vec![(x, y), (x + SAMPLE, y)];
        match line {
            Line::Network => {
                strip.draw(&PathElement::new(ends, line.style()))?;
                if marked {
                    let middle = (x + SAMPLE / 2, y);
                    strip.draw(&Circle::new(middle, MARKER_RADIUS, line.style().filled()))?;
                }
            }
            Line::Reference => {
                strip.draw(&DashedPathElement::new(ends, DASH, GAP, line.style()))?;
            }
        }
        strip.draw(&Text::new(
            line.label(),
            (x + SAMPLE + SPACE, y),
            style.clone(),
        ))?;
        x += SAMPLE + SPACE + width + BETWEEN;
    }
    Ok(())
}
