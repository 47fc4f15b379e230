//! The counts as tables: rows of one shape for every section, written as an
//! aligned terminal table, Markdown, CSV or JSON.

use std::cmp::{Ordering, Reverse};
use std::fmt;
use std::io::{self, Write};
use std::str::FromStr;

use pente_core::{Color, Point, Rules, Variant, format_move_list};
use serde::Serialize;

use crate::stats::{OpeningKey, Stats, Tally};

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Aligned columns for a terminal.
    #[default]
    Table,
    /// Markdown tables.
    Markdown,
    /// One CSV table of [`Row`]s, every section in one file.
    Csv,
    /// The whole [`Report`] as one JSON object.
    Json,
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Format, String> {
        match s.to_ascii_lowercase().as_str() {
            "table" => Ok(Format::Table),
            "markdown" | "md" => Ok(Format::Markdown),
            "csv" => Ok(Format::Csv),
            "json" => Ok(Format::Json),
            _ => Err(format!("unknown format `{s}` (expected table, markdown, csv or json)")),
        }
    }
}

/// How openings (and next moves) are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SortKey {
    /// Most games first.
    #[default]
    Games,
    /// Highest White win rate first.
    White,
    /// Highest Black win rate first.
    Black,
    /// By rules, then by the moves' names.
    Name,
}

impl FromStr for SortKey {
    type Err = String;

    fn from_str(s: &str) -> Result<SortKey, String> {
        match s.to_ascii_lowercase().as_str() {
            "games" => Ok(SortKey::Games),
            "white" => Ok(SortKey::White),
            "black" => Ok(SortKey::Black),
            "name" => Ok(SortKey::Name),
            _ => Err(format!("unknown sort key `{s}` (expected games, white, black or name)")),
        }
    }
}

impl fmt::Display for SortKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SortKey::Games => "games",
            SortKey::White => "white",
            SortKey::Black => "black",
            SortKey::Name => "name",
        })
    }
}

/// Which openings or next moves a report lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportOptions {
    /// Leave out openings and next moves with fewer games.
    pub min_games: u64,
    /// The order of the openings and next moves.
    pub sort: SortKey,
    /// List at most this many (0: all).
    pub top: usize,
}

impl Default for ReportOptions {
    fn default() -> ReportOptions {
        ReportOptions { min_games: 1, sort: SortKey::Games, top: 0 }
    }
}

/// The part of a report a [`Row`] belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Section {
    /// All games, and the games of each rule set.
    Overall,
    /// The games of one opening.
    Opening,
    /// The games that reached the explorer's position.
    Position,
    /// The games that went on from the explorer's position with one move.
    Next,
}

/// One line of any table: a set of games and what became of them.
///
/// Percentages are rounded to 2 decimals, scores to 4; the counts are exact.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The section.
    pub section: Section,
    /// `all`, or a rule set such as `pente` or `pente/13`.
    pub rules: String,
    /// Empty for `overall`; the canonical moves (or `W ... / B ...` stones)
    /// for `opening` and `position`; the move for `next`.
    pub key: String,
    /// Games with a result.
    pub games: u64,
    /// White wins.
    pub white: u64,
    /// Black wins.
    pub black: u64,
    /// Draws.
    pub draws: u64,
    /// White wins, % of games.
    pub white_pct: f64,
    /// Black wins, % of games.
    pub black_pct: f64,
    /// Draws, % of games.
    pub draw_pct: f64,
    /// White's mean score (a draw counts half), 0 to 1.
    pub white_score: f64,
    /// Lower end of the 95 % Wilson interval of White's score.
    pub white_score_low: f64,
    /// Upper end of that interval.
    pub white_score_high: f64,
    /// Decisive games won by five in a row.
    pub five: u64,
    /// Decisive games won by captures.
    pub captures: u64,
    /// Decisive games won by resignation.
    pub resign: u64,
    /// Decisive games won otherwise (forfeit, or not said).
    pub other: u64,
    /// Mean moves per game.
    pub avg_plies: f64,
    /// `position`: the player to move; `next`: the player of the move.
    pub mover: Option<Color>,
    /// `next`: % of the position's continuing games that played this move.
    pub share_pct: Option<f64>,
    /// `position`, `next`: the mover's wins, % of games.
    pub mover_win_pct: Option<f64>,
    /// `position`, `next`: lower end of the 95 % Wilson interval of the mover's score.
    pub mover_score_low: Option<f64>,
    /// `position`, `next`: upper end of that interval.
    pub mover_score_high: Option<f64>,
}

fn round(x: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (x * scale).round() / scale
}

impl Row {
    fn new(section: Section, rules: String, key: String, t: &Tally) -> Row {
        let (low, high) = t.score_interval(Color::White);
        let score = if t.games == 0 { 0.0 } else { t.score(Color::White) / t.games as f64 };
        Row {
            section,
            rules,
            key,
            games: t.games,
            white: t.white,
            black: t.black,
            draws: t.draws,
            white_pct: round(t.percent(t.white), 2),
            black_pct: round(t.percent(t.black), 2),
            draw_pct: round(t.percent(t.draws), 2),
            white_score: round(score, 4),
            white_score_low: round(low, 4),
            white_score_high: round(high, 4),
            five: t.five,
            captures: t.captures,
            resign: t.resign,
            other: t.other,
            avg_plies: round(t.average_plies(), 2),
            mover: None,
            share_pct: None,
            mover_win_pct: None,
            mover_score_low: None,
            mover_score_high: None,
        }
    }

    fn with_mover(mut self, mover: Color, t: &Tally) -> Row {
        let (low, high) = t.score_interval(mover);
        self.mover = Some(mover);
        self.mover_win_pct = Some(round(t.percent(t.wins(mover)), 2));
        self.mover_score_low = Some(round(low, 4));
        self.mover_score_high = Some(round(high, 4));
        self
    }
}

/// The explorer's view of one position.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explorer {
    /// The position's moves as given.
    pub moves: String,
    /// The player to move there.
    pub to_move: Color,
    /// Whether stones were compared rather than move orders.
    pub merge_transpositions: bool,
    /// Per rule set, the games that reached the position (`position` rows;
    /// `key` is the moves).
    pub positions: Vec<Row>,
    /// Games that reached the position and ended there.
    pub ended_there: u64,
    /// The next moves (`next` rows), in the position's frame.
    pub next: Vec<Row>,
}

/// Everything `pente stats` shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The files read.
    pub files: Vec<String>,
    /// Games read, counted or not.
    pub games_read: u64,
    /// Games counted: with a result and within the filters.
    pub games_counted: u64,
    /// Games without a result (open or unknown), not counted.
    pub no_result: u64,
    /// Games left out by the variant and size filters.
    pub filtered_out: u64,
    /// Bad records skipped (only when the reader was told to skip them).
    pub skipped: u64,
    /// All games, then each rule set (`overall` rows).
    pub overall: Vec<Row>,
    /// Moves per opening.
    pub depth: usize,
    /// Whether openings are keyed by their stones rather than move orders.
    pub merge_transpositions: bool,
    /// Counted games shorter than `depth`, in no opening.
    pub short_games: u64,
    /// Distinct openings, before `min_games` and `top`.
    pub opening_count: usize,
    /// The openings listed (`opening` rows); absent in the explorer view.
    pub openings: Option<Vec<Row>>,
    /// The explorer view, when a position was given.
    pub explorer: Option<Explorer>,
    /// `min_games`, `sort` and `top` as applied.
    pub min_games: u64,
    /// The order of openings and next moves.
    pub sort: SortKey,
    /// The most openings or next moves listed (0: all).
    pub top: usize,
}

/// Rule sets in documentation order, 19x19 first.
fn rules_order(rules: &Rules) -> (usize, Reverse<u8>) {
    let variant = Variant::ALL.iter().position(|&v| v == rules.variant()).unwrap_or(usize::MAX);
    (variant, Reverse(rules.size()))
}

/// Sorts, filters and cuts `(rules, name key, row)` triples as `options` say.
fn select<K: Ord>(mut rows: Vec<(Rules, K, Row)>, options: &ReportOptions) -> Vec<Row> {
    rows.retain(|(_, _, row)| row.games >= options.min_games.max(1));
    let by_name =
        |a: &(Rules, K, Row), b: &(Rules, K, Row)| rules_order(&a.0).cmp(&rules_order(&b.0)).then(a.1.cmp(&b.1));
    let by_games = |a: &(Rules, K, Row), b: &(Rules, K, Row)| b.2.games.cmp(&a.2.games);
    rows.sort_by(|a, b| {
        let first = match options.sort {
            SortKey::Games => Ordering::Equal,
            SortKey::White => b.2.white_pct.total_cmp(&a.2.white_pct),
            SortKey::Black => b.2.black_pct.total_cmp(&a.2.black_pct),
            SortKey::Name => by_name(a, b),
        };
        first.then_with(|| by_games(a, b)).then_with(|| by_name(a, b))
    });
    if options.top > 0 {
        rows.truncate(options.top);
    }
    rows.into_iter().map(|(_, _, row)| row).collect()
}

impl Stats {
    /// The report of the games counted so far. `files` and `skipped` are
    /// left for the reader of the files to fill in.
    #[must_use]
    pub fn report(&self, options: &ReportOptions) -> Report {
        let mut overall = vec![Row::new(Section::Overall, "all".into(), String::new(), &self.all)];
        let mut rules: Vec<&Rules> = self.by_rules.keys().collect();
        rules.sort_by_key(|r| rules_order(r));
        overall
            .extend(rules.iter().map(|r| Row::new(Section::Overall, r.to_string(), String::new(), &self.by_rules[r])));

        let (openings, explorer) = match &self.options.moves {
            None => {
                let rows = self
                    .openings
                    .iter()
                    .map(|((rules, key), tally)| {
                        (*rules, key.clone(), Row::new(Section::Opening, rules.to_string(), key.to_string(), tally))
                    })
                    .collect::<Vec<(Rules, OpeningKey, Row)>>();
                (Some(select(rows, options)), None)
            }
            Some(moves) => (None, Some(self.explorer(moves, options))),
        };
        Report {
            files: Vec::new(),
            games_read: self.games_read,
            games_counted: self.all.games,
            no_result: self.no_result,
            filtered_out: self.filtered_out,
            skipped: 0,
            overall,
            depth: self.options.depth,
            merge_transpositions: self.options.merge_transpositions,
            short_games: self.short,
            opening_count: self.openings.len(),
            openings,
            explorer,
            min_games: options.min_games,
            sort: options.sort,
            top: options.top,
        }
    }

    fn explorer(&self, moves: &[Point], options: &ReportOptions) -> Explorer {
        let key = format_move_list(moves, false);
        let mut rules: Vec<&Rules> = self.reached.keys().collect();
        rules.sort_by_key(|r| rules_order(r));
        // The colour of the next stone: Connect6 pairs its stones, and a
        // colour choice is a move but no stone.
        let stones = moves.iter().filter(|p| !p.is_choice()).count() as u32;
        let to_move = rules.first().map_or_else(Rules::default, |r| **r).colour_of_stone(stones);
        let positions = rules
            .iter()
            .map(|r| {
                let tally = &self.reached[r].all;
                Row::new(Section::Position, r.to_string(), key.clone(), tally).with_mover(to_move, tally)
            })
            .collect();
        let mut next = Vec::new();
        for (rules, reached) in &self.reached {
            let continued = reached.all.games - reached.ended;
            for (&point, tally) in &reached.next {
                let mut row =
                    Row::new(Section::Next, rules.to_string(), point.to_string(), tally).with_mover(to_move, tally);
                row.share_pct = Some(round(100.0 * tally.games as f64 / continued.max(1) as f64, 2));
                next.push((*rules, point, row));
            }
        }
        Explorer {
            moves: key,
            to_move,
            merge_transpositions: self.options.merge_transpositions,
            positions,
            ended_there: self.reached.values().map(|r| r.ended).sum(),
            next: select(next, options),
        }
    }
}

/// `White 38739 (54.23 %)`.
fn count_percent(label: &str, count: u64, percent: f64) -> String {
    if label.is_empty() { format!("{count} ({percent:.2} %)") } else { format!("{label} {count} ({percent:.2} %)") }
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// A table to print aligned or as Markdown.
struct Table {
    header: Vec<String>,
    /// Per column: right-aligned (numbers) or not.
    right: Vec<bool>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn new(columns: &[(&str, bool)]) -> Table {
        Table {
            header: columns.iter().map(|(name, _)| (*name).to_string()).collect(),
            right: columns.iter().map(|&(_, right)| right).collect(),
            rows: Vec::new(),
        }
    }

    fn write_text(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        let widths: Vec<usize> = (0..self.header.len())
            .map(|c| {
                self.rows
                    .iter()
                    .map(|r| r[c].chars().count())
                    .chain([self.header[c].chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            let mut line = String::new();
            for (c, cell) in row.iter().enumerate() {
                if c > 0 {
                    line.push_str("  ");
                }
                let pad = widths[c] - cell.chars().count();
                if self.right[c] {
                    line.extend(std::iter::repeat_n(' ', pad));
                    line.push_str(cell);
                } else {
                    line.push_str(cell);
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
            writeln!(out, "{}", line.trim_end())?;
        }
        Ok(())
    }

    fn write_markdown(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        writeln!(out, "| {} |", self.header.join(" | "))?;
        let rule: Vec<&str> = self.right.iter().map(|&r| if r { "---:" } else { "---" }).collect();
        writeln!(out, "| {} |", rule.join(" | "))?;
        for row in &self.rows {
            writeln!(out, "| {} |", row.join(" | "))?;
        }
        Ok(())
    }
}

fn interval(low: f64, high: f64) -> String {
    format!("{low:.3}-{high:.3}")
}

impl Report {
    /// Writes the report in `format`.
    ///
    /// # Errors
    /// Those of `out`.
    pub fn write(&self, format: Format, out: &mut impl Write) -> io::Result<()> {
        match format {
            Format::Table => self.write_text(out, false),
            Format::Markdown => self.write_text(out, true),
            Format::Csv => self.write_csv(out),
            Format::Json => {
                serde_json::to_writer_pretty(&mut *out, self)?;
                writeln!(out)
            }
        }
    }

    /// Every row, in the order the tables show them.
    #[must_use]
    pub fn rows(&self) -> Vec<&Row> {
        let mut rows: Vec<&Row> = self.overall.iter().collect();
        rows.extend(self.openings.iter().flatten());
        if let Some(explorer) = &self.explorer {
            rows.extend(&explorer.positions);
            rows.extend(&explorer.next);
        }
        rows
    }

    /// One CSV table: every row of every section (there is always the
    /// `overall` row of all games, so the header is never missing).
    fn write_csv(&self, out: &mut impl Write) -> io::Result<()> {
        let mut writer = csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(&mut *out);
        for row in self.rows() {
            writer.serialize(row)?;
        }
        writer.flush()
    }

    fn write_text(&self, out: &mut impl Write, markdown: bool) -> io::Result<()> {
        let heading = |out: &mut dyn Write, text: &str| -> io::Result<()> {
            if markdown { writeln!(out, "## {text}\n") } else { writeln!(out, "{text}") }
        };
        let end_table = |out: &mut dyn Write, table: &Table| -> io::Result<()> {
            if markdown {
                table.write_markdown(out)?;
            } else {
                table.write_text(out)?;
            }
            writeln!(out)
        };
        if markdown {
            writeln!(out, "# Game statistics\n")?;
        }
        let files = match self.files.len() {
            0 => String::new(),
            1..=3 => format!(" from {}", self.files.join(", ")),
            n => format!(" from {n} files"),
        };
        let mut read = format!("{} games read{files}; {} counted", self.games_read, self.games_counted);
        for (count, what) in
            [(self.no_result, "without a result"), (self.filtered_out, "filtered out"), (self.skipped, "bad, skipped")]
        {
            if count > 0 {
                read.push_str(&format!(", {count} {what}"));
            }
        }
        writeln!(out, "{read}\n")?;
        let all = &self.overall[0];
        let line = [
            count_percent("White", all.white, all.white_pct),
            count_percent("Black", all.black, all.black_pct),
            count_percent("Draws", all.draws, all.draw_pct),
        ]
        .join("   ");
        if markdown {
            writeln!(out, "**{line}**\n")?
        } else {
            writeln!(out, "{line}\n")?
        }

        heading(out, "Overall")?;
        let mut table = Table::new(&[
            ("rules", false),
            ("games", true),
            ("white", true),
            ("black", true),
            ("draws", true),
            ("five", true),
            ("captures", true),
            ("resign", true),
            ("other", true),
            ("avg moves", true),
        ]);
        for row in &self.overall {
            table.rows.push(vec![
                row.rules.clone(),
                row.games.to_string(),
                count_percent("", row.white, row.white_pct),
                count_percent("", row.black, row.black_pct),
                count_percent("", row.draws, row.draw_pct),
                row.five.to_string(),
                row.captures.to_string(),
                row.resign.to_string(),
                row.other.to_string(),
                format!("{:.1}", row.avg_plies),
            ]);
        }
        end_table(out, &table)?;
        writeln!(
            out,
            "five, captures, resign, other: how the decisive games were won{}\n",
            if markdown { "." } else { "" }
        )?;

        let merged =
            if self.merge_transpositions { "mirror images and transpositions merged" } else { "mirror images merged" };
        let shown = match self.top {
            0 => format!("at least {} game{}, by {}", self.min_games, plural(self.min_games), self.sort),
            top => {
                format!("top {top} with at least {} game{}, by {}", self.min_games, plural(self.min_games), self.sort)
            }
        };
        if let Some(openings) = &self.openings {
            heading(out, &format!("Openings: first {} moves, {merged}", self.depth))?;
            let mut note = format!("{} openings; {} listed ({shown})", self.opening_count, openings.len());
            if self.short_games > 0 {
                note.push_str(&format!("; {} shorter games in none", self.short_games));
            }
            writeln!(out, "{note}\n")?;
            let mut table = Table::new(&[
                ("rules", false),
                ("opening", false),
                ("games", true),
                ("white %", true),
                ("black %", true),
                ("draw %", true),
                ("white score", true),
                ("95 % interval", true),
            ]);
            for row in openings {
                table.rows.push(vec![
                    row.rules.clone(),
                    row.key.clone(),
                    row.games.to_string(),
                    format!("{:.2}", row.white_pct),
                    format!("{:.2}", row.black_pct),
                    format!("{:.2}", row.draw_pct),
                    format!("{:.3}", row.white_score),
                    interval(row.white_score_low, row.white_score_high),
                ]);
            }
            end_table(out, &table)?;
            writeln!(out, "white score: White's wins plus half the draws, per game; 95 % Wilson interval\n")?;
        }
        if let Some(explorer) = &self.explorer {
            let mover = color_name(explorer.to_move);
            let moves = if explorer.moves.is_empty() { "the start" } else { explorer.moves.as_str() };
            heading(out, &format!("After {moves}: {mover} to move, {merged}"))?;
            let mut table = Table::new(&[
                ("rules", false),
                ("games", true),
                ("white %", true),
                ("black %", true),
                ("draw %", true),
                ("avg moves", true),
            ]);
            for row in &explorer.positions {
                table.rows.push(vec![
                    row.rules.clone(),
                    row.games.to_string(),
                    format!("{:.2}", row.white_pct),
                    format!("{:.2}", row.black_pct),
                    format!("{:.2}", row.draw_pct),
                    format!("{:.1}", row.avg_plies),
                ]);
            }
            if explorer.positions.is_empty() {
                writeln!(out, "No game reached this position.\n")?;
            } else {
                end_table(out, &table)?;
            }
            if explorer.ended_there > 0 {
                writeln!(out, "{} games ended there.\n", explorer.ended_there)?;
            }
            if explorer.next.is_empty() {
                return Ok(());
            }
            heading(out, &format!("{mover}'s next moves ({shown})"))?;
            let win = format!("{} wins %", mover.to_lowercase());
            let mut table = Table::new(&[
                ("rules", false),
                ("move", false),
                ("games", true),
                ("share %", true),
                (&win, true),
                ("draw %", true),
                ("95 % interval", true),
            ]);
            for row in &explorer.next {
                table.rows.push(vec![
                    row.rules.clone(),
                    row.key.clone(),
                    row.games.to_string(),
                    format!("{:.2}", row.share_pct.unwrap_or_default()),
                    format!("{:.2}", row.mover_win_pct.unwrap_or_default()),
                    format!("{:.2}", row.draw_pct),
                    interval(row.mover_score_low.unwrap_or_default(), row.mover_score_high.unwrap_or(1.0)),
                ]);
            }
            end_table(out, &table)?;
            writeln!(
                out,
                "95 % interval: Wilson interval of {mover}'s score (wins plus half the draws) after the move"
            )?;
        }
        Ok(())
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}
