//! PNG pictures: heatmaps of the next moves from a position, and a training
//! run's curves.
//!
//! Drawing uses plotters' bitmap backend into a buffer that `png` encodes;
//! text is drawn with Noto Sans, embedded in the binary, so no system font
//! or image library is needed.

mod canvas;

use std::collections::HashMap;
use std::error::Error as StdError;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use pente_core::{Color, Point, Rules, Symmetry, column_letter, format_move_list};
use pente_records::Cause;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::Color as _;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use thiserror::Error;

use self::canvas::Canvas;
use crate::canonical::{Stones, stone_symmetries_between, symmetries_between};
use crate::stats::{Stats, Tally};
use crate::training::{EloRow, IterationLoss};

/// A picture that could not be drawn or written.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PlotError {
    /// Nothing to draw, too much to draw, or no font to draw text with.
    #[error("{0}")]
    Cannot(String),
    /// plotters failed to draw.
    #[error("drawing failed: {0}")]
    Drawing(#[source] Cause),
    /// The PNG file could not be created or written.
    #[error("{}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O or PNG encoder's error.
        source: Cause,
    },
}

impl PlotError {
    fn drawing(error: impl StdError + Send + Sync + 'static) -> PlotError {
        PlotError::Drawing(Cause::new(error))
    }
}

/// The font family every text asks for; [`canvas::Canvas`] draws all text
/// in the embedded Noto Sans whatever the family.
const FONT: &str = "sans-serif";

/// A part of a picture to draw on.
type Area<'a> = DrawingArea<Canvas<'a>, Shift>;

/// Encodes an RGB buffer as a PNG file.
fn write_png(path: &Path, (width, height): (u32, u32), rgb: &[u8]) -> Result<(), PlotError> {
    let error = |source| PlotError::Write { path: path.to_path_buf(), source };
    let file = File::create(path).map_err(|e| error(Cause::new(e)))?;
    let mut encoder = png::Encoder::new(BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| error(Cause::new(e)))?;
    writer.write_image_data(rgb).map_err(|e| error(Cause::new(e)))?;
    writer.finish().map_err(|e| error(Cause::new(e)))
}

/// Draws into a fresh `width` x `height` white image and writes it to `path`.
fn draw_png(
    path: &Path,
    (width, height): (u32, u32),
    draw: impl FnOnce(&Area<'_>) -> Result<(), PlotError>,
) -> Result<(), PlotError> {
    if !canvas::font_loads() {
        return Err(PlotError::Cannot("the embedded font does not load".into()));
    }
    let mut buffer = vec![255u8; width as usize * height as usize * 3];
    {
        let root = Canvas(BitMapBackend::with_buffer(&mut buffer, (width, height))).into_drawing_area();
        draw(&root)?;
        root.present().map_err(PlotError::drawing)?;
    }
    write_png(path, (width, height), &buffer)
}

/// The games that went on with one move, or any of its mirror images.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    /// The games of the move and its images together.
    pub tally: Tally,
    /// How many points the move and its images cover (1 to 8).
    pub images: u32,
}

impl Cell {
    /// The share of `games` this one point stands for: its move's games
    /// split evenly among the move's images.
    #[must_use]
    pub fn share(&self, games: u64) -> f64 {
        self.tally.games as f64 / f64::from(self.images.max(1)) / games.max(1) as f64
    }
}

/// The next moves from one position, ready to draw on the board.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardMap {
    /// The rules of the games.
    pub rules: Rules,
    /// The position's moves.
    pub moves: Vec<Point>,
    /// The stones on the board there.
    pub stones: Vec<(Point, Color)>,
    /// The player to move.
    pub mover: Color,
    /// The games that went on from the position.
    pub games: u64,
    /// Per point: the games that went on with a move there. When the
    /// position is symmetric, a move and its mirror images (which lead to
    /// the same position) share one [`Cell`].
    pub cells: HashMap<Point, Cell>,
    /// Points where the opening rule forbids the next move.
    pub forbidden: Vec<Point>,
}

impl BoardMap {
    /// The next moves from `moves` under `rules`, from a [`Stats`] whose
    /// explorer position is `moves`.
    ///
    /// # Errors
    /// `moves` do not replay under `rules`.
    pub fn new(stats: &Stats, rules: Rules, moves: &[Point]) -> Result<BoardMap, String> {
        let stones = Stones::after(rules, moves).map_err(|(ply, reason)| format!("move {ply}: {reason}"))?;
        let size = rules.size();
        // The symmetries that leave the position as it is: each next move
        // stands for all its images under them.
        let own: Vec<Symmetry> = if stats.options().merge_transpositions {
            stone_symmetries_between(&stones, &stones, size).collect()
        } else {
            symmetries_between(moves, moves, size).collect()
        };
        let (reached, next) = stats.next_moves(rules);
        let mut cells = HashMap::new();
        let mut games = 0;
        for (point, tally) in next {
            games += tally.games;
            let mut images: Vec<Point> = own.iter().map(|s| s.apply(point, size)).collect();
            images.sort();
            images.dedup();
            let cell = Cell { tally, images: images.len() as u32 };
            for image in images {
                cells.insert(image, cell);
            }
        }
        debug_assert!(games <= reached.games);
        let ply = moves.len() as u32;
        let forbidden = (0..size)
            .flat_map(|y| (0..size).map(move |x| Point::new(x, y)))
            .filter(|&p| stones_free(&stones, p) && !rules.opening_allows(ply, p))
            .collect();
        let mut all_stones: Vec<(Point, Color)> = stones.white.iter().map(|&p| (p, Color::White)).collect();
        all_stones.extend(stones.black.iter().map(|&p| (p, Color::Black)));
        let mover = if moves.len().is_multiple_of(2) { Color::White } else { Color::Black };
        Ok(BoardMap { rules, moves: moves.to_vec(), stones: all_stones, mover, games, cells, forbidden })
    }

    /// The most played next move, in the position's frame; ties go to the
    /// point that sorts first.
    #[must_use]
    pub fn most_played(&self) -> Option<Point> {
        self.cells
            .iter()
            .max_by(|a, b| a.1.tally.games.cmp(&b.1.tally.games).then(crate::canonical::point_order(*b.0, *a.0)))
            .map(|(&p, _)| p)
    }

    fn title(&self) -> String {
        let size = self.rules.size();
        let variant = self.rules.variant();
        let mover = if self.mover == Color::White { "White" } else { "Black" };
        let ply = self.moves.len() + 1;
        if self.moves.is_empty() {
            format!("Start ({variant} {size}x{size}): {mover}'s move {ply}")
        } else {
            format!("After {} ({variant} {size}x{size}): {mover}'s move {ply}", format_move_list(&self.moves, false))
        }
    }
}

fn stones_free(stones: &Stones, p: Point) -> bool {
    !stones.white.contains(&p) && !stones.black.contains(&p)
}

/// Board drawing sizes, in pixels.
const BOARD: i32 = 494;
const LEFT: i32 = 36;
const TOP: i32 = 62;
const PANEL_WIDTH: u32 = 560;
const PANEL_HEIGHT: u32 = 626;

/// What a board panel shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Panel {
    /// How often each move was played.
    Frequency,
    /// How the mover did after each move.
    WinRate,
}

fn mix(a: (u8, u8, u8), b: (u8, u8, u8), t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let channel = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * t).round() as u8;
    RGBColor(channel(a.0, b.0), channel(a.1, b.1), channel(a.2, b.2))
}

const PALE: (u8, u8, u8) = (247, 247, 247);
const BLUE_DARK: (u8, u8, u8) = (8, 48, 107);
const LOSS: (u8, u8, u8) = (202, 0, 32);
const WIN: (u8, u8, u8) = (0, 104, 55);
const EMPTY_CELL: RGBColor = RGBColor(250, 244, 228);
const FORBIDDEN: RGBColor = RGBColor(200, 200, 200);
const GRID: RGBColor = RGBColor(170, 160, 140);

/// Colour of a share of games, relative to the largest (square-root scale,
/// so that rare moves still show).
fn frequency_color(share: f64, max_share: f64) -> RGBColor {
    mix(PALE, BLUE_DARK, if max_share > 0.0 { (share / max_share).sqrt() } else { 0.0 })
}

/// Colour of a score from 0 (red) through 0.5 (pale) to 1 (green).
fn score_color(score: f64) -> RGBColor {
    if score < 0.5 { mix(LOSS, PALE, score * 2.0) } else { mix(PALE, WIN, (score - 0.5) * 2.0) }
}

fn is_dark(color: &RGBColor) -> bool {
    0.299 * f64::from(color.0) + 0.587 * f64::from(color.1) + 0.114 * f64::from(color.2) < 128.0
}

fn text_style(size: u32, color: &RGBColor, h: HPos, v: VPos) -> TextStyle<'_> {
    TextStyle::from((FONT, size).into_font()).color(color).pos(Pos::new(h, v))
}

fn draw_board_panel(area: &Area<'_>, map: &BoardMap, panel: Panel, min_games: u64) -> Result<(), PlotError> {
    let d = |r: Result<(), DrawingAreaErrorKind<_>>| r.map_err(PlotError::drawing);
    let size = i32::from(map.rules.size());
    let cell = BOARD / size;
    let board = cell * size;
    let black = RGBColor(0, 0, 0);
    let mover = if map.mover == Color::White { "White" } else { "Black" };
    d(area.draw_text(&map.title(), &text_style(16, &black, HPos::Left, VPos::Top), (LEFT, 6)))?;
    let subtitle = match panel {
        Panel::Frequency => format!("Share of the {} games that went on, by next move", map.games),
        Panel::WinRate => format!("{mover}'s score after each move (games >= {min_games}), %"),
    };
    d(area.draw_text(&subtitle, &text_style(13, &RGBColor(60, 60, 60), HPos::Left, VPos::Top), (LEFT, 28)))?;
    let mut note = match panel {
        Panel::Frequency => "A move's share is split evenly among its mirror images".to_string(),
        Panel::WinRate => "A move and its mirror images share one score".to_string(),
    };
    if !map.forbidden.is_empty() {
        note.push_str("; grey: forbidden by the opening rule");
    }
    d(area.draw_text(&note, &text_style(11, &RGBColor(90, 90, 90), HPos::Left, VPos::Top), (LEFT, 46)))?;

    let max_share = map.cells.values().map(|c| c.share(map.games)).fold(0.0, f64::max);
    let label_size = (cell as u32 * 2 / 5).max(8);
    for y in 0..size {
        for x in 0..size {
            let point = Point::new(x as u8, y as u8);
            let x0 = LEFT + x * cell;
            let y0 = TOP + (size - 1 - y) * cell;
            let data = map.cells.get(&point).filter(|c| panel == Panel::Frequency || c.tally.games >= min_games);
            let (fill, label) = match (panel, data) {
                (_, None) if map.forbidden.contains(&point) => (FORBIDDEN, None),
                (_, None) => (EMPTY_CELL, None),
                (Panel::Frequency, Some(data)) => {
                    let share = data.share(map.games);
                    let label = if share >= 0.005 { format!("{:.0}", 100.0 * share) } else { "<1".into() };
                    (frequency_color(share, max_share), Some(label))
                }
                (Panel::WinRate, Some(data)) => {
                    let score = data.tally.score(map.mover) / data.tally.games as f64;
                    (score_color(score), Some(format!("{:.0}", 100.0 * score)))
                }
            };
            d(area.draw(&Rectangle::new([(x0, y0), (x0 + cell, y0 + cell)], fill.filled())))?;
            d(area.draw(&Rectangle::new([(x0, y0), (x0 + cell, y0 + cell)], GRID.stroke_width(1))))?;
            if let Some(label) = label {
                let color = if is_dark(&fill) { RGBColor(255, 255, 255) } else { black };
                let style = text_style(label_size, &color, HPos::Center, VPos::Center);
                d(area.draw_text(&label, &style, (x0 + cell / 2, y0 + cell / 2)))?;
            }
        }
    }
    for &(point, color) in &map.stones {
        let centre =
            (LEFT + i32::from(point.x()) * cell + cell / 2, TOP + (size - 1 - i32::from(point.y())) * cell + cell / 2);
        let radius = (cell * 2 / 5).max(3);
        let (fill, edge) = match color {
            Color::White => (RGBColor(255, 255, 255), black),
            Color::Black => (black, black),
        };
        d(area.draw(&Circle::new(centre, radius, fill.filled())))?;
        d(area.draw(&Circle::new(centre, radius, edge.stroke_width(2))))?;
    }
    let coordinate = text_style(11, &black, HPos::Center, VPos::Center);
    for i in 0..size {
        let letter = column_letter(i as u8).to_string();
        d(area.draw_text(&letter, &coordinate, (LEFT + i * cell + cell / 2, TOP + board + 10)))?;
        let row = (size - i).to_string();
        d(area.draw_text(&row, &coordinate, (LEFT / 2, TOP + i * cell + cell / 2)))?;
    }
    // A colour scale under the board.
    let bar_top = TOP + board + 24;
    let steps = 50;
    let step = board / steps;
    for i in 0..steps {
        let t = f64::from(i) / f64::from(steps - 1);
        let color = match panel {
            Panel::Frequency => frequency_color(t * t * max_share, max_share),
            Panel::WinRate => score_color(t),
        };
        d(area.draw(&Rectangle::new(
            [(LEFT + i * step, bar_top), (LEFT + (i + 1) * step, bar_top + 12)],
            color.filled(),
        )))?;
    }
    let (low, high) = match panel {
        Panel::Frequency => ("0 %".to_string(), format!("{:.0} %", 100.0 * max_share)),
        Panel::WinRate => ("0 % (loses)".to_string(), "100 % (wins)".to_string()),
    };
    let scale = text_style(11, &black, HPos::Left, VPos::Top);
    d(area.draw_text(&low, &scale, (LEFT, bar_top + 15)))?;
    let scale = text_style(11, &black, HPos::Right, VPos::Top);
    d(area.draw_text(&high, &scale, (LEFT + steps * step, bar_top + 15)))?;
    Ok(())
}

/// Draws one row per position: the share of games of each next move on the
/// left, the mover's score after it on the right (for moves played in at
/// least `min_games` games), and writes the PNG to `path`.
///
/// # Errors
/// No positions, or the picture cannot be drawn or written.
pub fn write_heatmaps(maps: &[BoardMap], min_games: u64, path: &Path) -> Result<(), PlotError> {
    if maps.is_empty() {
        return Err(PlotError::Cannot("no position to draw".into()));
    }
    let rows = u32::try_from(maps.len()).map_err(|_| PlotError::Cannot("too many positions".into()))?;
    draw_png(path, (PANEL_WIDTH * 2, PANEL_HEIGHT * rows), |root| {
        root.fill(&WHITE).map_err(PlotError::drawing)?;
        let panels = root.split_evenly((maps.len(), 2));
        for (map, pair) in maps.iter().zip(panels.chunks(2)) {
            draw_board_panel(&pair[0], map, Panel::Frequency, min_games)?;
            draw_board_panel(&pair[1], map, Panel::WinRate, min_games)?;
        }
        Ok(())
    })
}

/// A range that holds `values`, padded by 5 %, never empty.
fn padded_range(values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let (low, high) =
        values.filter(|v| v.is_finite()).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if !low.is_finite() {
        return 0.0..1.0;
    }
    let pad = ((high - low) * 0.05).max(1e-3 * high.abs().max(1.0));
    (low - pad)..(high + pad)
}

/// Line colours, one per series.
const SERIES: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
];

/// The colour of series `i`, and whether its line is dashed: the colours
/// come round again after ten series, dashed the second time, so that up
/// to twenty lines (two campaigns with their baselines) stay apart.
fn series_style(i: usize) -> (RGBColor, bool) {
    (SERIES[i % SERIES.len()], (i / SERIES.len()) % 2 == 1)
}

/// A line's points: x, y and the interval drawn as a bar, if any.
type Points = Vec<(f64, f64, Option<(f64, f64)>)>;
/// A line: its name in the legend (none if empty) and its points.
type Series = (String, Points);

/// A corner of the chart no point (nor error-bar end) falls in, for the
/// legend: a corner is the outer 45 % of the width and 40 % of the height.
/// The upper right first, then the upper left, lower right, lower left.
fn emptiest_corner(
    series: &[Series],
    x: &std::ops::Range<f64>,
    y: &std::ops::Range<f64>,
) -> Option<SeriesLabelPosition> {
    let points = series.iter().flat_map(|(_, points)| {
        points.iter().flat_map(|&(px, py, bar)| {
            [Some(py), bar.map(|b| b.0), bar.map(|b| b.1)].into_iter().flatten().map(move |v| (px, v))
        })
    });
    let (width, height) = (x.end - x.start, y.end - y.start);
    let mut counts = [0usize; 4]; // upper right, upper left, lower right, lower left
    for (px, py) in points {
        let (left, right) = (px < x.start + 0.45 * width, px > x.end - 0.45 * width);
        let (low, high) = (py < y.start + 0.4 * height, py > y.end - 0.4 * height);
        for (i, inside) in [high && right, high && left, low && right, low && left].into_iter().enumerate() {
            counts[i] += usize::from(inside);
        }
    }
    match counts.iter().position(|&n| n == 0)? {
        0 => Some(SeriesLabelPosition::UpperRight),
        1 => Some(SeriesLabelPosition::UpperLeft),
        2 => Some(SeriesLabelPosition::LowerRight),
        _ => Some(SeriesLabelPosition::LowerLeft),
    }
}

/// One chart of `series` (name, points with optional error bars), the x
/// axis named `x_label`.
fn draw_chart(
    area: &Area<'_>,
    caption: &str,
    (x_label, y_label): (&str, &str),
    x_range: std::ops::Range<f64>,
    series: &[Series],
) -> Result<(), PlotError> {
    let e = PlotError::drawing;
    let ys = series.iter().flat_map(|(_, points)| {
        points.iter().flat_map(|&(_, y, bar)| [Some(y), bar.map(|b| b.0), bar.map(|b| b.1)].into_iter().flatten())
    });
    let mut y_range = padded_range(ys);
    let legend = series.iter().any(|(name, _)| !name.is_empty());
    // The legend goes in a corner no point falls in; with none free, in
    // headroom added above the data.
    let corner = emptiest_corner(series, &x_range, &y_range).unwrap_or_else(|| {
        if legend {
            y_range.end += (y_range.end - y_range.start) * 0.7;
        }
        SeriesLabelPosition::UpperRight
    });
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(x_range, y_range)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .x_label_formatter(&|x| if x.fract() == 0.0 { format!("{x:.0}") } else { format!("{x:.1}") })
        .y_desc(y_label)
        .label_style((FONT, 12))
        .axis_desc_style((FONT, 13))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(e)?;
    for (i, (name, points)) in series.iter().enumerate() {
        let (color, dashed) = series_style(i);
        let line: Vec<(f64, f64)> = points.iter().map(|&(x, y, _)| (x, y)).collect();
        let drawn = if dashed {
            chart.draw_series(DashedLineSeries::new(line.clone(), 6, 4, color.stroke_width(2)))
        } else {
            chart.draw_series(LineSeries::new(line.clone(), color.stroke_width(2)))
        };
        drawn.map_err(e)?.label(name).legend(move |(x, y)| {
            // Two segments: apart for a dashed line, meeting for a solid one.
            let (end, start) = if dashed { (7, 11) } else { (9, 9) };
            let style = color.stroke_width(2);
            EmptyElement::at((x, y))
                + PathElement::new(vec![(0, 0), (end, 0)], style)
                + PathElement::new(vec![(start, 0), (18, 0)], style)
        });
        // Hollow markers on the dashed lines, filled on the solid ones.
        let marker = if dashed { color.stroke_width(2) } else { color.filled() };
        chart.draw_series(line.iter().map(|&p| Circle::new(p, 3, marker))).map_err(e)?;
        let bars = points.iter().filter_map(|&(x, _, bar)| {
            bar.map(|(lo, hi)| PathElement::new(vec![(x, lo), (x, hi)], color.stroke_width(2)))
        });
        chart.draw_series(bars).map_err(e)?;
    }
    if legend {
        chart
            .configure_series_labels()
            .position(corner)
            .label_font((FONT, 13))
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(180, 180, 180))
            .draw()
            .map_err(e)?;
    }
    Ok(())
}

/// Draws a run's curves, stacked: policy loss, value loss (the mean of
/// each iteration's logged steps) and, if there are ratings, Elo with its
/// interval per model, by CPU-hour where every rating records one (else by
/// iteration); writes the PNG to `path`.
///
/// # Errors
/// No losses to draw, or the picture cannot be drawn or written.
pub fn write_training_curves(
    losses: &[IterationLoss],
    elo: &[EloRow],
    title: &str,
    path: &Path,
) -> Result<(), PlotError> {
    if losses.is_empty() && elo.is_empty() {
        return Err(PlotError::Cannot("no losses or ratings to draw".into()));
    }
    let iterations = losses.iter().map(|l| l.iteration).chain(elo.iter().map(|r| r.iteration));
    let x_range = span(iterations.map(|i| i as f64));
    let by_hours = elo.iter().all(|r| r.cpu_hours.is_some_and(f64::is_finite));
    let elo_x = |r: &EloRow| if by_hours { r.cpu_hours.unwrap_or(0.0) } else { r.iteration as f64 };
    let elo_range = span(elo.iter().map(elo_x));
    let panels = usize::from(!losses.is_empty()) * 2 + usize::from(!elo.is_empty());
    let height = 40 + 300 * panels as u32;
    draw_png(path, (1000, height), |root| {
        root.fill(&WHITE).map_err(PlotError::drawing)?;
        let root = root.titled(title, (FONT, 22)).map_err(PlotError::drawing)?;
        let areas = root.split_evenly((panels, 1));
        let mut areas = areas.iter();
        if !losses.is_empty() {
            let policy: Vec<_> = losses.iter().map(|l| (l.iteration as f64, l.policy_loss, None)).collect();
            let value: Vec<_> = losses.iter().map(|l| (l.iteration as f64, l.value_loss, None)).collect();
            if let Some(area) = areas.next() {
                draw_chart(
                    area,
                    "Policy loss (mean per iteration)",
                    ("iteration", "cross-entropy"),
                    x_range.clone(),
                    &[(String::new(), policy)],
                )?;
            }
            if let Some(area) = areas.next() {
                draw_chart(
                    area,
                    "Value loss (mean per iteration)",
                    ("iteration", "cross-entropy"),
                    x_range.clone(),
                    &[(String::new(), value)],
                )?;
            }
        }
        if !elo.is_empty() {
            let series = elo_series(elo, &elo_x, "");
            if let Some(area) = areas.next() {
                let (title, x_label) = if by_hours {
                    ("Elo by CPU-hour (bars: interval)", "CPU-hours")
                } else {
                    ("Elo by iteration (bars: interval)", "iteration")
                };
                draw_chart(area, title, (x_label, "Elo"), elo_range.clone(), &series)?;
            }
        }
        Ok(())
    })
}

/// The lines of a run's Elo table, each name after `prefix`: a model rated
/// at several iterations (a fixed reference such as the heuristic player)
/// gets a line of its own; models rated once share one line: each
/// iteration's new network, rated by the gates, or the final network of a
/// run, rated against its first. A line of networks alone, with no prefix,
/// goes without a name.
fn elo_series(elo: &[EloRow], x: &dyn Fn(&EloRow) -> f64, prefix: &str) -> Vec<Series> {
    let mut repeated: Vec<&str> = Vec::new();
    for row in elo {
        let name = row.model.as_str();
        if !repeated.contains(&name) && elo.iter().filter(|r| r.model == name).count() > 1 {
            repeated.push(name);
        }
    }
    let points = |keep: &dyn Fn(&EloRow) -> bool| {
        let mut points: Points = elo
            .iter()
            .filter(|r| keep(r) && r.elo.is_finite())
            .map(|r| {
                let bar = r.elo_low.zip(r.elo_high).filter(|(lo, hi)| lo.is_finite() && hi.is_finite());
                (x(r), r.elo, bar)
            })
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        points
    };
    let is_final = |r: &EloRow| r.model.ends_with(" (final)");
    let once = points(&|r: &EloRow| !repeated.contains(&r.model.as_str()) && !is_final(r));
    let finals = points(&|r: &EloRow| !repeated.contains(&r.model.as_str()) && is_final(r));
    let mut series = Vec::new();
    if !once.is_empty() {
        let alone = prefix.is_empty() && repeated.is_empty() && finals.is_empty();
        series.push((if alone { String::new() } else { format!("{prefix}the networks, by their gates") }, once));
    }
    if !finals.is_empty() {
        series.push((format!("{prefix}final networks, against the first of their run"), finals));
    }
    for &model in &repeated {
        series.push((format!("{prefix}{model}"), points(&|r: &EloRow| r.model == model)));
    }
    series
}

/// Draws the Elo by CPU-hour of several campaigns (name, Elo table) in one
/// chart, each with its networks' line and its fixed baselines' lines:
/// campaigns whose Elo goes on from a common network (one grown from the
/// other, `pente model grow`) share its scale. Writes the PNG to `path`.
///
/// # Errors
/// No ratings with CPU-hours to draw, or the picture cannot be drawn or
/// written.
pub fn write_campaign_comparison(
    campaigns: &[(String, Vec<EloRow>)],
    title: &str,
    path: &Path,
) -> Result<(), PlotError> {
    let timed = |elo: &[EloRow]| !elo.is_empty() && elo.iter().all(|r| r.cpu_hours.is_some_and(f64::is_finite));
    if campaigns.is_empty() {
        return Err(PlotError::Cannot("no campaign to draw".into()));
    }
    if let Some((name, _)) = campaigns.iter().find(|(_, elo)| !timed(elo)) {
        return Err(PlotError::Cannot(format!("{name}: no ratings, or a rating without its CPU-hours")));
    }
    let rows = || campaigns.iter().flat_map(|(_, elo)| elo);
    let x = |r: &EloRow| r.cpu_hours.unwrap_or(0.0);
    let series: Vec<Series> =
        campaigns.iter().flat_map(|(name, elo)| elo_series(elo, &x, &format!("{name}: "))).collect();
    let x_range = span(rows().map(x));
    draw_png(path, (1000, 560), |root| {
        root.fill(&WHITE).map_err(PlotError::drawing)?;
        let root = root.titled(title, (FONT, 22)).map_err(PlotError::drawing)?;
        draw_chart(&root, "Elo by CPU-hour (bars: interval)", ("CPU-hours", "Elo"), x_range, &series)
    })
}

/// The range from the least to the greatest of `xs`, one unit either side
/// if they are all equal (or there are none).
fn span(xs: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
    if lo.is_finite() && hi > lo {
        lo..hi
    } else if lo.is_finite() {
        (lo - 1.0)..(lo + 1.0)
    } else {
        0.0..1.0
    }
}

/// One row of [`write_interval_bars`]: a share with its interval.
#[derive(Debug, Clone, PartialEq)]
pub struct IntervalBar {
    /// The row's name (e.g. a variant).
    pub label: String,
    /// The share, in `[0, 1]`.
    pub value: f64,
    /// Its interval's lower end.
    pub low: f64,
    /// ... and upper end.
    pub high: f64,
}

/// Draws one row per bar: its share as a dot with its interval as a
/// whisker, in percent, with a line at 50 % (an even game); writes the PNG
/// to `path`.
///
/// # Errors
/// No rows, or the picture cannot be drawn or written.
pub fn write_interval_bars(bars: &[IntervalBar], title: &str, path: &Path) -> Result<(), PlotError> {
    if bars.is_empty() {
        return Err(PlotError::Cannot("no rows to draw".into()));
    }
    let lows = bars.iter().map(|b| b.low * 100.0).chain([45.0]);
    let highs = bars.iter().map(|b| b.high * 100.0).chain([55.0]);
    let x_min = (lows.fold(f64::INFINITY, f64::min) / 5.0).floor() * 5.0;
    let x_max = (highs.fold(f64::NEG_INFINITY, f64::max) / 5.0).ceil() * 5.0;
    let rows = bars.len();
    let height = 120 + 34 * rows as u32;
    draw_png(path, (900, height), |root| {
        let e = PlotError::drawing;
        root.fill(&WHITE).map_err(e)?;
        // Row i is drawn at y = rows - i, so the first bar is on top.
        let mut chart = ChartBuilder::on(root)
            .caption(title, (FONT, 20))
            .margin(16)
            .x_label_area_size(40)
            .y_label_area_size(130)
            .build_cartesian_2d(x_min..x_max, 0.5..rows as f64 + 0.5)
            .map_err(e)?;
        let label_of = |y: &f64| {
            let i = rows as f64 - y.round();
            if (y - y.round()).abs() < 1e-6 && i >= 0.0 && (i as usize) < rows {
                bars[i as usize].label.clone()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .x_desc("score, %")
            .y_labels(rows)
            .y_label_formatter(&label_of)
            .disable_y_mesh()
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 13))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(e)?;
        let even =
            PathElement::new(vec![(50.0, 0.5), (50.0, rows as f64 + 0.5)], RGBColor(150, 150, 150).stroke_width(1));
        chart.draw_series(std::iter::once(even)).map_err(e)?;
        let color = SERIES[0];
        for (i, bar) in bars.iter().enumerate() {
            let y = (rows - i) as f64;
            let whisker = PathElement::new(vec![(bar.low * 100.0, y), (bar.high * 100.0, y)], color.stroke_width(2));
            chart.draw_series(std::iter::once(whisker)).map_err(e)?;
            chart.draw_series(std::iter::once(Circle::new((bar.value * 100.0, y), 4, color.filled()))).map_err(e)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twenty_lines_have_twenty_styles_then_they_come_round() {
        let styles: Vec<_> = (0..20).map(series_style).map(|(c, dashed)| (c.0, c.1, c.2, dashed)).collect();
        for (i, a) in styles.iter().enumerate() {
            assert!(styles[i + 1..].iter().all(|b| a != b), "style {i} repeats");
        }
        assert_eq!(series_style(20), series_style(0));
        assert!(!series_style(9).1 && series_style(10).1);
    }
}
