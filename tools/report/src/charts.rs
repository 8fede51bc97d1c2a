//! The page's charts, drawn by plotters' SVG backend into inline SVG: lines and points on two
//! axes, a legend beside them, and point labels (counts). Text is left to the browser's own sans-serif
//! font; the backend escapes it.

use crate::ReportError;
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use std::ops::Range;

/// Width and height of every chart, in SVG pixels (the page scales it to its column).
pub const SIZE: (u32, u32) = (760, 380);

/// The series' colours, in order: dark enough on white, apart for common colour blindness.
const PALETTE: [RGBColor; 5] = [
    RGBColor(0x1f, 0x5f, 0xae),
    RGBColor(0xd9, 0x5f, 0x02),
    RGBColor(0x55, 0x55, 0x55),
    RGBColor(0x1b, 0x9e, 0x77),
    RGBColor(0x7b, 0x3f, 0x9e),
];

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A line through its points.
    Line,
    /// Its points alone.
    Points,
    /// A line with its points marked.
    LinePoints,
}

/// One named series.
#[derive(Clone, Debug)]
pub struct Series {
    /// Its name in the legend.
    pub name: String,
    /// Its points, in x order for a line.
    pub points: Vec<(f64, f64)>,
    /// Its colour, an index into the palette.
    pub colour: usize,
    /// How it is drawn.
    pub shape: Shape,
    /// A label beside each point (empty: none).
    pub labels: Vec<String>,
}

/// How an axis's tick labels read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ticks {
    /// Plain numbers.
    Number,
    /// A share 0..1 as a percentage.
    Percent,
}

/// One axis.
#[derive(Clone, Debug)]
pub struct Axis {
    /// Its name, in plain words.
    pub label: String,
    /// The range shown.
    pub range: Range<f64>,
    /// Its tick labels.
    pub ticks: Ticks,
}

/// A chart: axes, series, and optionally the line y = x (a reference, named in the legend).
#[derive(Clone, Debug)]
pub struct Chart {
    /// Its id on the page.
    pub id: String,
    /// The horizontal axis.
    pub x: Axis,
    /// The vertical axis.
    pub y: Axis,
    /// The series.
    pub series: Vec<Series>,
    /// The legend name of the y = x line, when drawn.
    pub diagonal: Option<String>,
}

impl Chart {
    /// The chart as an SVG element.
    pub fn svg(&self) -> Result<String, ReportError> {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
            self.draw(&root).map_err(|reason| ReportError::Chart {
                chart: self.id.clone(),
                reason,
            })?;
        }
        Ok(out)
    }

    fn draw(&self, root: &DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), String> {
        let fail = |e: DrawingAreaErrorKind<std::io::Error>| e.to_string();
        root.fill(&WHITE).map_err(fail)?;
        // The legend beside the plot, never over its points.
        let (plot, legend) = root.split_horizontally(SIZE.0 - LEGEND_WIDTH);
        let (x, y) = (nonempty(&self.x.range), nonempty(&self.y.range));
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(60)
            .build_cartesian_2d(x.clone(), y.clone())
            .map_err(fail)?;
        let x_ticks = tick_text(self.x.ticks);
        let y_ticks = tick_text(self.y.ticks);
        chart
            .configure_mesh()
            .x_desc(self.x.label.as_str())
            .y_desc(self.y.label.as_str())
            .x_label_formatter(&x_ticks)
            .y_label_formatter(&y_ticks)
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 15))
            .light_line_style(RGBColor(0xee, 0xee, 0xee))
            .bold_line_style(RGBColor(0xdd, 0xdd, 0xdd))
            .draw()
            .map_err(fail)?;
        let mut entries = Vec::new();
        if let Some(name) = &self.diagonal {
            let (lo, hi) = (x.start.max(y.start), x.end.min(y.end));
            chart
                .draw_series(LineSeries::new([(lo, lo), (hi, hi)], GREY.stroke_width(1)))
                .map_err(fail)?;
            entries.push((name.as_str(), GREY, false));
        }
        for s in self.series.iter().filter(|s| !s.points.is_empty()) {
            draw_series(&mut chart, s).map_err(fail)?;
            entries.push((s.name.as_str(), colour_of(s), s.shape != Shape::Line));
        }
        if self.series.iter().all(|s| s.points.is_empty()) {
            let centre = ((x.start + x.end) / 2.0, (y.start + y.end) / 2.0);
            chart
                .draw_series([Text::new(
                    "nothing to show yet",
                    centre,
                    ("sans-serif", 16).into_font().color(&BLACK),
                )])
                .map_err(fail)?;
        }
        draw_legend(&legend, &entries).map_err(fail)?;
        root.present().map_err(fail)
    }
}

/// The width of the legend beside the plot.
const LEGEND_WIDTH: u32 = 170;
/// The colour of the reference line.
const GREY: RGBColor = RGBColor(0x99, 0x99, 0x99);

fn colour_of(s: &Series) -> RGBColor {
    PALETTE[s.colour % PALETTE.len()]
}

/// The legend: per entry a line (and a point when the series has points) and its name.
fn draw_legend(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    entries: &[(&str, RGBColor, bool)],
) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    for (i, &(name, colour, point)) in entries.iter().enumerate() {
        let y = 24 + 22 * i as i32;
        area.draw(&PathElement::new([(4, y), (26, y)], colour.stroke_width(2)))?;
        if point {
            area.draw(&Circle::new((15, y), 4, colour.filled()))?;
        }
        let font = ("sans-serif", 13).into_font().color(&BLACK);
        area.draw(&Text::new(name.to_string(), (32, y - 7), font))?;
    }
    Ok(())
}

type Plot<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// One series: its line, its points, their labels, and its legend entry.
fn draw_series<'a, 'b: 'a>(
    chart: &mut Plot<'a, 'b>,
    s: &Series,
) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    if s.points.is_empty() {
        return Ok(());
    }
    let colour = colour_of(s);
    if s.shape != Shape::Points {
        chart.draw_series(LineSeries::new(
            s.points.iter().copied(),
            colour.stroke_width(2),
        ))?;
    }
    if s.shape != Shape::Line {
        chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 4, colour.filled())))?;
    }
    let font = ("sans-serif", 12).into_font().color(&colour);
    chart.draw_series(
        s.points
            .iter()
            .zip(&s.labels)
            .map(|(&p, label)| Text::new(label.clone(), p, font.clone()).into_dyn()),
    )?;
    Ok(())
}

/// A range with room in it (a chart of one value still has a height).
fn nonempty(range: &Range<f64>) -> Range<f64> {
    if range.end > range.start {
        range.clone()
    } else {
        range.start..range.start + 1.0
    }
}

fn tick_text(ticks: Ticks) -> impl Fn(&f64) -> String {
    move |v: &f64| match ticks {
        Ticks::Number if v.fract() == 0.0 => format!("{v:.0}"),
        Ticks::Number => format!("{v:.1}"),
        Ticks::Percent => format!("{:.0}%", v * 100.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(series: Vec<Series>) -> Chart {
        Chart {
            id: "c".into(),
            x: Axis {
                label: "commits <scored>".into(),
                range: 0.0..10.0,
                ticks: Ticks::Number,
            },
            y: Axis {
                label: "share followed".into(),
                range: 0.0..1.0,
                ticks: Ticks::Percent,
            },
            series,
            diagonal: Some("as stated".into()),
        }
    }

    #[test]
    fn a_chart_is_one_svg_element_with_its_axes_legend_and_labels_escaped() {
        let svg = chart(vec![Series {
            name: "learning & <static>".into(),
            points: vec![(1.0, 0.5), (5.0, 0.75)],
            colour: 0,
            shape: Shape::LinePoints,
            labels: vec!["3 notes".into(), "12 notes".into()],
        }])
        .svg()
        .expect("drawn");
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{svg}"
        );
        assert_eq!(svg.matches("<svg").count(), 1);
        for text in [
            "commits &lt;scored&gt;",
            "share followed",
            "learning &amp; &lt;static&gt;",
            "as stated",
            "12 notes",
            "50%",
        ] {
            assert!(svg.contains(text), "{text} missing: {svg}");
        }
        assert!(!svg.contains("<static>"));
    }

    #[test]
    fn a_chart_without_points_says_so() {
        let svg = chart(vec![]).svg().expect("drawn");
        assert!(svg.contains("nothing to show yet"), "{svg}");
    }
}
