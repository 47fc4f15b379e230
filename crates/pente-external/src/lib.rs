//! External Pente programs as opponents.
//!
//! [`TextPente`] drives Debian's `pente` (`apt-get install pente`) in its
//! plain-text mode, `pente -text`: computer levels 1-9 on 19x19 Pente with
//! the tournament rule, moves typed as `k10`. The program prints the whole
//! board after every move; each board is checked against our own rules, so
//! any disagreement (a capture we would not make, a refused move) is an
//! error naming the move instead of a silently wrong game.
//!
//! Its output is block-buffered on a pipe, so the program runs under
//! `stdbuf -o0` (coreutils). It keeps its state in `$HOME/.pente.ad`; every
//! game gets a fresh temporary `HOME`, so games in parallel do not mix.

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use pente_core::{Color, IllegalMove, ParsePointError, Point, Position, Rules, Variant};

/// The board side `pente -text` plays on.
const SIZE: u8 = 19;

/// What can go wrong with an external program.
#[derive(Debug, thiserror::Error)]
pub enum ExternalError {
    /// A level outside 1-9.
    #[error("level {0}: pente -text has computer levels 1 to 9")]
    BadLevel(u8),
    /// The program could not be started.
    #[error(
        "cannot start `{program}` ({reason}); install it with `apt-get install pente` or set {PROGRAM_ENV} to its path"
    )]
    Start {
        /// The program.
        program: String,
        /// Why.
        reason: String,
    },
    /// Running the program (under `stdbuf`), or giving it its levels, failed.
    #[error(
        "cannot start `{program}` ({step}: {source}); install it with `apt-get install pente` or set {PROGRAM_ENV} to its path"
    )]
    Launch {
        /// The program.
        program: String,
        /// What failed: `stdbuf` (running it), `sending the levels`.
        step: &'static str,
        /// The system's reason.
        source: io::Error,
    },
    /// The program would not take our move.
    #[error("pente -text refused our move {point} at move {ply}")]
    Refused {
        /// Our move.
        point: Point,
        /// Its number (1-based).
        ply: u32,
    },
    /// The program printed something we cannot follow.
    #[error("pente -text at move {ply}: {detail}")]
    Protocol {
        /// Move number (1-based) being waited for.
        ply: u32,
        /// What was wrong.
        detail: String,
    },
    /// The program reported a move that is not a point.
    #[error("pente -text at move {ply}: unreadable move `{text}`: {source}")]
    UnreadableMove {
        /// Move number (1-based).
        ply: u32,
        /// The move as printed.
        text: String,
        /// Why it is not a point.
        source: ParsePointError,
    },
    /// The program reported a move that our rules do not allow there.
    #[error("pente -text at move {ply}: its move {point} is illegal here: {source}")]
    Illegal {
        /// Move number (1-based).
        ply: u32,
        /// The move.
        point: Point,
        /// Why our rules refuse it.
        source: IllegalMove,
    },
    /// The program and our rules disagree about the board.
    #[error("pente -text's board differs from ours after move {ply} ({point}): {detail}")]
    BoardMismatch {
        /// Move number (1-based).
        ply: u32,
        /// The move just played.
        point: Point,
        /// The first differing point.
        detail: String,
    },
    /// The program exited.
    #[error("pente -text exited while we waited for move {ply}; its last output: {tail:?}")]
    Exited {
        /// Move number (1-based) being waited for.
        ply: u32,
        /// The end of its output.
        tail: String,
    },
    /// The program took longer than the configured limit.
    #[error("pente -text sent no move {ply} within {seconds} s")]
    Timeout {
        /// Move number (1-based).
        ply: u32,
        /// The limit.
        seconds: u64,
    },
    /// The program's home directory could not be made.
    #[error("pente -text: {}: {source}", path.display())]
    Io {
        /// The directory.
        path: PathBuf,
        /// The system's reason.
        source: io::Error,
    },
    /// Our move could not be sent to the program.
    #[error("pente -text: sending move {ply} ({point}): {source}; last output: {tail:?}")]
    SendMove {
        /// Its number (1-based).
        ply: u32,
        /// Our move.
        point: Point,
        /// The end of the program's output.
        tail: String,
        /// The system's reason.
        source: io::Error,
    },
}

/// Environment variable naming the program; default [`DEFAULT_PROGRAM`].
pub const PROGRAM_ENV: &str = "PENTE_TEXT_ENGINE";

/// Where Debian installs it.
pub const DEFAULT_PROGRAM: &str = "/usr/games/pente";

/// How to run `pente -text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextPenteConfig {
    /// The executable.
    pub program: PathBuf,
    /// Computer level, 1 (weakest) to 9.
    pub level: u8,
    /// Longest wait for one move.
    pub move_timeout: Duration,
}

impl TextPenteConfig {
    /// Level `level` of the program named by [`PROGRAM_ENV`], else [`DEFAULT_PROGRAM`].
    ///
    /// # Errors
    /// [`ExternalError::BadLevel`] outside 1-9.
    pub fn new(level: u8) -> Result<TextPenteConfig, ExternalError> {
        if !(1..=9).contains(&level) {
            return Err(ExternalError::BadLevel(level));
        }
        let program = std::env::var_os(PROGRAM_ENV).map_or_else(|| PathBuf::from(DEFAULT_PROGRAM), PathBuf::from);
        Ok(TextPenteConfig { program, level, move_timeout: Duration::from_secs(600) })
    }

    /// The rules it plays: 19x19 Pente.
    #[must_use]
    pub fn rules() -> Rules {
        Rules::new(Variant::Pente, SIZE).expect("19x19 Pente exists")
    }

    /// `pente-text:5`.
    #[must_use]
    pub fn name(&self) -> String {
        format!("pente-text:{}", self.level)
    }
}

/// One line of the program's output that matters.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Line {
    /// A row of the board diagram: row number (1-19) and its 19 cells.
    Row(u8, [Option<Color>; SIZE as usize]),
    /// `Comp Lv3 [O] moved at j10.`
    Moved(Color, String),
    /// `Player 1 [#] has won!`
    Won(Color),
    /// Anything else.
    Other,
}

/// Player 1 (`#`) moves first: our White.
fn mark_color(mark: char) -> Option<Color> {
    match mark {
        '#' => Some(Color::White),
        'O' => Some(Color::Black),
        _ => None,
    }
}

/// The colour in the last `[#]` or `[O]` of `text`.
fn bracket_color(text: &str) -> Option<Color> {
    let open = text.rfind('[')?;
    let mut chars = text[open + 1..].chars();
    let mark = chars.next()?;
    (chars.next() == Some(']')).then_some(())?;
    mark_color(mark)
}

fn parse_line(line: &str) -> Line {
    let line = line.trim();
    if let Some((who, point)) = line.split_once(" moved at ") {
        return match bracket_color(who) {
            Some(color) => Line::Moved(color, point.trim_end_matches('.').to_string()),
            None => Line::Other,
        };
    }
    if let Some(who) = line.strip_suffix(" has won!") {
        return bracket_color(who).map_or(Line::Other, Line::Won);
    }
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.len() == SIZE as usize + 2
        && let (Ok(row), Ok(again)) = (tokens[0].parse::<u8>(), tokens[SIZE as usize + 1].parse::<u8>())
        && row == again
        && (1..=SIZE).contains(&row)
    {
        let mut cells = [None; SIZE as usize];
        for (cell, token) in cells.iter_mut().zip(&tokens[1..=SIZE as usize]) {
            *cell = match *token {
                "." => None,
                "#" => Some(Color::White),
                "O" => Some(Color::Black),
                _ => return Line::Other,
            };
        }
        return Line::Row(row, cells);
    }
    Line::Other
}

/// Fresh `HOME` directories, one a game.
static HOMES: AtomicU64 = AtomicU64::new(0);

/// A running `pente -text` game against one computer player.
pub struct TextPente {
    child: Child,
    stdin: ChildStdin,
    output: Receiver<Vec<u8>>,
    /// Output not yet split into lines.
    pending: Vec<u8>,
    /// The last lines, for error messages.
    recent: Vec<String>,
    /// The board as last printed, row 1 first.
    diagram: [[Option<Color>; SIZE as usize]; SIZE as usize],
    /// The game by our rules.
    position: Position,
    /// The colour the program plays.
    color: Color,
    home: PathBuf,
    move_timeout: Duration,
}

impl TextPente {
    /// Starts a game in which the program plays `color` at `config.level`.
    ///
    /// # Errors
    /// [`ExternalError::Start`] if the program is not there,
    /// [`ExternalError::Launch`] if it (or `stdbuf`) cannot be run, and
    /// [`ExternalError::Io`] if its home directory cannot be made.
    pub fn start(config: &TextPenteConfig, color: Color) -> Result<TextPente, ExternalError> {
        let program = || config.program.display().to_string();
        if !config.program.is_file() {
            return Err(ExternalError::Start { program: program(), reason: "no such file".into() });
        }
        let launch = |step, source| ExternalError::Launch { program: program(), step, source };
        let home = std::env::temp_dir().join(format!(
            "pente-text-{}-{}",
            std::process::id(),
            HOMES.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&home).map_err(|source| ExternalError::Io { path: home.clone(), source })?;
        let spawned = Command::new("stdbuf")
            .arg("-o0")
            .arg(&config.program)
            .arg("-text")
            .env("HOME", &home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&home);
                return Err(launch("stdbuf", e));
            }
        };
        let stdin = child.stdin.take().expect("stdin is piped");
        let mut stdout = child.stdout.take().expect("stdout is piped");
        let (sender, output) = channel();
        std::thread::spawn(move || {
            let mut buffer = [0u8; 8192];
            while let Ok(n) = stdout.read(&mut buffer) {
                if n == 0 || sender.send(buffer[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        // The two level prompts: 0 is a human player (us).
        let levels = match color {
            Color::White => format!("{}\n0\n", config.level),
            Color::Black => format!("0\n{}\n", config.level),
        };
        let mut engine = TextPente {
            child,
            stdin,
            output,
            pending: Vec::new(),
            recent: Vec::new(),
            diagram: [[None; SIZE as usize]; SIZE as usize],
            position: Position::new(TextPenteConfig::rules()),
            color,
            home,
            move_timeout: config.move_timeout,
        };
        // Dropping `engine` on an error stops the program and removes its home.
        engine
            .stdin
            .write_all(levels.as_bytes())
            .and_then(|()| engine.stdin.flush())
            .map_err(|e| launch("sending the levels", e))?;
        Ok(engine)
    }

    /// The game so far, by our rules.
    #[must_use]
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The colour the program plays.
    #[must_use]
    pub const fn color(&self) -> Color {
        self.color
    }

    /// Plays our move. The program places the first stone on the centre by
    /// itself, so a first move of ours must be the centre and is not sent.
    ///
    /// # Errors
    /// [`ExternalError::Refused`] if the program will not take it,
    /// [`ExternalError::SendMove`] if it cannot be sent; the errors of
    /// [`TextPente::next_move`] while waiting for its echo.
    pub fn play(&mut self, point: Point) -> Result<(), ExternalError> {
        let ply = self.position.ply() + 1;
        if self.position.to_move() == self.color {
            return Err(ExternalError::Protocol {
                ply,
                detail: format!("our move {point} sent on the program's turn"),
            });
        }
        if self.position.ply() > 0 {
            let text = format!("{}\n", point.to_string().to_ascii_lowercase());
            self.stdin
                .write_all(text.as_bytes())
                .and_then(|()| self.stdin.flush())
                .map_err(|source| ExternalError::SendMove { ply, point, tail: self.tail(), source })?;
        }
        let echoed = self.await_move(Some(point))?;
        if echoed != point {
            return Err(ExternalError::Protocol { ply, detail: format!("we played {point}, it recorded {echoed}") });
        }
        Ok(())
    }

    /// Waits for the program's move and returns it.
    ///
    /// # Errors
    /// [`ExternalError::Exited`], [`ExternalError::Timeout`],
    /// [`ExternalError::UnreadableMove`] and [`ExternalError::Illegal`] if
    /// its move is unreadable or illegal by our rules,
    /// [`ExternalError::Protocol`] if it reports something else we do not
    /// follow, [`ExternalError::BoardMismatch`] if its board differs.
    pub fn next_move(&mut self) -> Result<Point, ExternalError> {
        let ply = self.position.ply() + 1;
        if self.position.to_move() != self.color {
            return Err(ExternalError::Protocol { ply, detail: "waiting for the program on our turn".into() });
        }
        self.await_move(None)
    }

    /// Reads until the side to move is reported as having moved; checks the
    /// move and the board, plays it, and on a win checks the program saw it.
    fn await_move(&mut self, ours: Option<Point>) -> Result<Point, ExternalError> {
        let ply = self.position.ply() + 1;
        let mover = self.position.to_move();
        let point = loop {
            match self.next_line(ply, ours)? {
                Line::Row(row, cells) => self.diagram[usize::from(row - 1)] = cells,
                Line::Moved(color, text) if color == mover => {
                    break text.parse::<Point>().map_err(|source| ExternalError::UnreadableMove {
                        ply,
                        text: text.clone(),
                        source,
                    })?;
                }
                Line::Moved(color, text) => {
                    return Err(ExternalError::Protocol {
                        ply,
                        detail: format!("{} ({color}) moved at {text} out of turn", self.name(color)),
                    });
                }
                Line::Won(color) => {
                    return Err(ExternalError::Protocol { ply, detail: format!("it says {color} has won; we do not") });
                }
                Line::Other => {}
            }
        };
        self.position.play(point).map_err(|source| ExternalError::Illegal { ply, point, source })?;
        self.check_board(ply, point)?;
        if let Some(outcome) = self.position.outcome()
            && let Some(winner) = outcome.winner
        {
            loop {
                match self.next_line(ply, None)? {
                    Line::Won(color) if color == winner => break,
                    Line::Won(color) => {
                        return Err(ExternalError::Protocol {
                            ply,
                            detail: format!("it says {color} won, we say {winner}"),
                        });
                    }
                    _ => {}
                }
            }
        }
        Ok(point)
    }

    fn name(&self, color: Color) -> &'static str {
        if color == self.color { "the program" } else { "our side" }
    }

    /// The next complete line; a bell before a prompt means our move `ours` was refused.
    fn next_line(&mut self, ply: u32, ours: Option<Point>) -> Result<Line, ExternalError> {
        loop {
            if let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
                let bytes: Vec<u8> = self.pending.drain(..=end).collect();
                let text = String::from_utf8_lossy(&bytes).trim_end().to_string();
                if text.contains('\u{7}')
                    && let Some(point) = ours
                {
                    return Err(ExternalError::Refused { point, ply });
                }
                self.recent.push(text.clone());
                if self.recent.len() > 4 {
                    self.recent.remove(0);
                }
                return Ok(parse_line(&text));
            }
            if self.pending.contains(&0x07)
                && let Some(point) = ours
            {
                return Err(ExternalError::Refused { point, ply });
            }
            match self.output.recv_timeout(self.move_timeout) {
                Ok(chunk) => self.pending.extend_from_slice(&chunk),
                Err(RecvTimeoutError::Timeout) => {
                    return Err(ExternalError::Timeout { ply, seconds: self.move_timeout.as_secs() });
                }
                Err(RecvTimeoutError::Disconnected) => return Err(ExternalError::Exited { ply, tail: self.tail() }),
            }
        }
    }

    /// The last lines it printed.
    fn tail(&self) -> String {
        let mut lines: Vec<&str> = self.recent.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect();
        let partial = String::from_utf8_lossy(&self.pending).trim().to_string();
        if !partial.is_empty() {
            lines.push(&partial);
        }
        lines.join(" | ")
    }

    fn check_board(&self, ply: u32, point: Point) -> Result<(), ExternalError> {
        for y in 0..SIZE {
            for x in 0..SIZE {
                let p = Point::new(x, y);
                let (theirs, ours) = (self.diagram[usize::from(y)][usize::from(x)], self.position.stone_at(p));
                if theirs != ours {
                    let show = |c: Option<Color>| c.map_or("empty".to_string(), |c| c.to_string());
                    return Err(ExternalError::BoardMismatch {
                        ply,
                        point,
                        detail: format!("{p} is {} there, {} here", show(theirs), show(ours)),
                    });
                }
            }
        }
        Ok(())
    }
}

impl Drop for TextPente {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_moves_wins_and_board_rows() {
        assert_eq!(parse_line("                  Comp Lv3 [O] moved at j10."), Line::Moved(Color::Black, "j10".into()));
        assert_eq!(parse_line("Player 1 [#] moved at k10."), Line::Moved(Color::White, "k10".into()));
        assert_eq!(parse_line("Comp Lv1 [#] has won!"), Line::Won(Color::White));
        let row = "                  10 . . . . . . . . O # . . . . . . . . . 10";
        let Line::Row(10, cells) = parse_line(row) else { panic!("not a row: {:?}", parse_line(row)) };
        assert_eq!(cells[8], Some(Color::Black));
        assert_eq!(cells[9], Some(Color::White));
        assert_eq!(cells.iter().filter(|c| c.is_some()).count(), 2);
        assert_eq!(
            parse_line("                   9 . . . . . . . . . . . . . . . . . . .  9"),
            Line::Row(9, [None; 19])
        );
        for other in [
            "                     A B C D E F G H J K L M N O P Q R S T",
            "Player 1 [#]: 0<<<Turn  2   Comp Lv3 [O]: 0",
            "Level of player 1 [0=Player, 1..9=Computer]:",
            "10 . . . 9",
            "10 . . . . . . . . . . . . . . . . . . x 10",
            "Someone [X] moved at k10.",
        ] {
            assert_eq!(parse_line(other), Line::Other, "{other}");
        }
    }

    #[test]
    fn levels_outside_one_to_nine_are_refused() {
        assert!(matches!(TextPenteConfig::new(0), Err(ExternalError::BadLevel(0))));
        assert!(matches!(TextPenteConfig::new(10), Err(ExternalError::BadLevel(10))));
        assert_eq!(TextPenteConfig::new(9).unwrap().name(), "pente-text:9");
    }

    #[test]
    fn a_missing_program_is_a_clear_error() {
        let config = TextPenteConfig { program: "/nonexistent/pente".into(), ..TextPenteConfig::new(1).unwrap() };
        let error = TextPente::start(&config, Color::White).err().expect("no such program");
        let text = error.to_string();
        assert!(text.contains("/nonexistent/pente") && text.contains("apt-get install pente"), "{text}");
    }
}
