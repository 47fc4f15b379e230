//! The threat solver's verdicts on the positions of
//! `tests/data/solver-positions.txt` (its header describes the format): a
//! mismatch names the file's line and the setup.

use std::fmt;

use pente_core::{Color, EndReason, Point, Position};
use pente_search::solver::{Solver, SolverParams, forced_replies};

const FILE: &str = "tests/data/solver-positions.txt";
const POSITIONS: &str = include_str!("data/solver-positions.txt");

/// What the solver must answer.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict {
    /// A win in `moves` starting with one of `first`, ending that way.
    Win { moves: usize, first: Vec<Point>, reason: EndReason },
    /// The opponent wins at once whatever the reply.
    Loss,
    /// Exactly these replies stop the opponent's immediate win.
    Defend(Vec<Point>),
    /// No win, with budget to spare.
    None,
    /// No win found, the budget spent.
    Unknown,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |points: &[Point], sep: &str| points.iter().map(ToString::to_string).collect::<Vec<_>>().join(sep);
        match self {
            Verdict::Win { moves, first, reason } => write!(f, "win {moves} {} by {reason}", list(first, ",")),
            Verdict::Loss => f.write_str("loss"),
            Verdict::Defend(points) => write!(f, "defend {}", list(points, " ")),
            Verdict::None => f.write_str("none"),
            Verdict::Unknown => f.write_str("unknown"),
        }
    }
}

struct Case {
    line: usize,
    setup: String,
    position: Position,
    params: SolverParams,
    verdict: Verdict,
}

fn points(text: &str, sep: char) -> Result<Vec<Point>, String> {
    text.split(sep).filter(|t| !t.is_empty()).map(|t| t.parse().map_err(|e| format!("{e}"))).collect()
}

/// Parses the parameters and the verdict after `=>`.
fn parse_verdict(text: &str) -> Result<(SolverParams, Verdict), String> {
    let mut params = SolverParams::default();
    let mut words = text.split_whitespace().peekable();
    while let Some((key, value)) = words.peek().and_then(|w| w.split_once('=')) {
        let number = |v: &str| v.parse::<u64>().map_err(|_| format!("`{key}={v}`: not a number"));
        match key {
            "depth" => params.max_depth = u8::try_from(number(value)?).map_err(|e| e.to_string())?,
            "threes" => params.max_threes = u8::try_from(number(value)?).map_err(|e| e.to_string())?,
            "nodes" => params.max_nodes = number(value)?,
            _ => return Err(format!("unknown parameter `{key}` (expected depth, threes or nodes)")),
        }
        words.next();
    }
    let words: Vec<&str> = words.collect();
    let verdict = match words.as_slice() {
        ["win", n, first, "by", reason] => Verdict::Win {
            moves: n.parse().map_err(|_| format!("`{n}`: not a number of moves"))?,
            first: points(first, ',')?,
            reason: match *reason {
                "five" => EndReason::Five,
                "captures" => EndReason::Captures,
                other => return Err(format!("`{other}`: expected `five` or `captures`")),
            },
        },
        ["loss"] => Verdict::Loss,
        ["defend", replies @ ..] if !replies.is_empty() => Verdict::Defend(points(&replies.join(" "), ' ')?),
        ["none"] => Verdict::None,
        ["unknown"] => Verdict::Unknown,
        _ => return Err(format!("`{}`: not a verdict", words.join(" "))),
    };
    Ok((params, verdict))
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (i, line) in POSITIONS.lines().enumerate() {
        let line_number = i + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fail = |why: String| -> ! { panic!("{FILE}:{line_number}: {why}\n  {line}") };
        let Some((setup, verdict)) = line.split_once("=>") else { fail("no `=>` before the verdict".into()) };
        let setup = setup.trim().to_string();
        let position: Position = setup.parse().unwrap_or_else(|e| fail(format!("setup: {e}")));
        let (params, verdict) = parse_verdict(verdict).unwrap_or_else(|e| fail(e));
        cases.push(Case { line: line_number, setup, position, params, verdict });
    }
    cases
}

/// The solver's verdict on `case`, or why it matches none.
fn check(case: &Case) -> Result<(), String> {
    let position = &case.position;
    let me = position.to_move();
    let solution = Solver::default().solve(position, &case.params);
    let line = || solution.line.iter().flatten().map(ToString::to_string).collect::<Vec<_>>().join(" ");
    let found = match (&solution.line, solution.exhausted) {
        (Some(_), _) => format!("a win in {} ({})", solution.moves_to_win().unwrap(), line()),
        (None, true) => "no win, the budget spent".to_string(),
        (None, false) => "no win".to_string(),
    };
    let replies = forced_replies(position);
    match &case.verdict {
        Verdict::Win { moves, first, reason } => {
            let Some(principal) = &solution.line else { return Err(found) };
            if solution.moves_to_win() != Some(*moves) || !first.contains(&principal[0]) {
                return Err(found);
            }
            let mut end = position.clone();
            for &p in principal {
                end.play(p).map_err(|e| format!("the line {} is not legal: {e}", line()))?;
            }
            let outcome = end.outcome();
            if outcome.map(|o| (o.winner, o.reason)) != Some((Some(me), *reason)) {
                return Err(format!("{found}, which ends in {outcome:?}"));
            }
            let alone = Solver::default().move_wins(position, principal[0], &case.params);
            if alone != u8::try_from(*moves).ok() {
                return Err(format!("{found}, but move_wins({}) says {alone:?}", principal[0]));
            }
        }
        Verdict::Loss => {
            if solution.line.is_some() || replies != Some(Vec::new()) {
                return Err(format!("{found}; forced replies {replies:?}"));
            }
        }
        Verdict::Defend(expected) => {
            let mut replies = replies.ok_or("no threat to defend against")?;
            replies.sort();
            let mut expected = expected.clone();
            expected.sort();
            if replies != expected {
                let list = replies.iter().map(ToString::to_string).collect::<Vec<_>>().join(" ");
                return Err(format!("the forced replies are `{list}`"));
            }
        }
        Verdict::None if solution.line.is_some() || solution.exhausted => return Err(found),
        Verdict::Unknown if solution.line.is_some() || !solution.exhausted => return Err(found),
        Verdict::None | Verdict::Unknown => {}
    }
    Ok(())
}

#[test]
fn the_solver_gives_every_verdict_of_the_data_file() {
    let cases = cases();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            check(case)
                .err()
                .map(|why| format!("{FILE}:{}: expected {}, found {why}\n  {}", case.line, case.verdict, case.setup))
        })
        .collect();
    assert!(failures.is_empty(), "{} of {} positions:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn the_data_file_covers_every_kind_of_verdict() {
    let cases = cases();
    assert!(cases.len() >= 10, "{} positions", cases.len());
    let has = |f: &dyn Fn(&Verdict) -> bool| cases.iter().any(|c| f(&c.verdict));
    assert!(has(&|v| matches!(v, Verdict::Win { reason: EndReason::Five, .. })));
    assert!(has(&|v| matches!(v, Verdict::Win { reason: EndReason::Captures, .. })));
    assert!(has(&|v| matches!(v, Verdict::Defend(_))));
    assert!(has(&|v| *v == Verdict::Loss));
    assert!(has(&|v| *v == Verdict::None));
    assert!(has(&|v| *v == Verdict::Unknown));
    // Both colours attack.
    for color in Color::ALL {
        assert!(cases.iter().any(|c| c.position.to_move() == color && matches!(c.verdict, Verdict::Win { .. })));
    }
}

#[test]
fn a_wrong_verdict_is_reported_with_its_line_and_setup() {
    let case = &cases()[0];
    let wrong = Case { verdict: Verdict::None, position: case.position.clone(), setup: case.setup.clone(), ..*case };
    assert!(check(&wrong).unwrap_err().starts_with("a win in 1"));
    assert!(parse_verdict("win 2 K10").is_err());
    assert!(parse_verdict("speed=3 none").is_err());
    assert_eq!(parse_verdict("nodes=7 unknown").map(|(p, v)| (p.max_nodes, v)), Ok((7, Verdict::Unknown)));
}
