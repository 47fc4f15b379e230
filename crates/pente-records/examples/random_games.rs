//! Prints legal games for test data, one move list per line with the result
//! the rules give (nothing if a game hits the move limit):
//!
//! ```text
//! cargo run -p pente-records --example random_games -- keryo/19 5 42 [max_moves]
//! ```
//!
//! or, with `csv` or `jsonl` last, as a self-play dataset (`games.csv` with
//! its header, or `games.jsonl`), where the player to move resigns a game
//! that hits the move limit; several rules separated by commas are used in
//! turn:
//!
//! ```text
//! cargo run -p pente-records --example random_games -- pente,keryo/13 4 7 60 jsonl
//! ```
//!
//! The players are weak but not random: each takes a win when it has one,
//! avoids moves that let the opponent win at once, likes captures, and plays
//! near the stones already on the board. In datasets the policy of a move is
//! made up: half on the move played, the rest on other candidates; the loser
//! of a game won by five or captures is said to have been ready to resign
//! four moves before the end (`resign_check`). The games under `tests/data/`
//! were made with it and then frozen.

use std::io::{self, Write};
use std::process::ExitCode;

use pente_core::{Color, Point, Position, Rules};
use pente_records::{
    Captures, CsvGame, DATASET_SCHEMA, GameEnd, GameResult, JsonGame, JsonMove, ResignCheck, write_csv_header,
    write_csv_row, write_jsonl_game,
};

/// splitmix64: enough randomness for test games, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick(&mut self, points: &[Point]) -> Option<Point> {
        (!points.is_empty()).then(|| points[self.below(points.len())])
    }
}

fn wins(position: &Position, p: Point, me: Color) -> bool {
    let mut next = position.clone();
    next.play(p).is_ok() && next.outcome().is_some_and(|o| o.winner == Some(me))
}

/// Legal moves within two points of a stone (all legal moves if none is).
fn candidates(position: &Position) -> Vec<Point> {
    let size = position.rules().size();
    let near = |p: Point| {
        (-2i8..=2).any(|dy| {
            (-2i8..=2).any(|dx| {
                let (x, y) = (p.x() as i8 + dx, p.y() as i8 + dy);
                (0..size as i8).contains(&x)
                    && (0..size as i8).contains(&y)
                    && position.stone_at(Point::new(x as u8, y as u8)).is_some()
            })
        })
    };
    let all: Vec<Point> = position.legal_moves().collect();
    let close: Vec<Point> = all.iter().copied().filter(|&p| near(p)).collect();
    if close.is_empty() { all } else { close }
}

fn choose(position: &Position, rng: &mut Rng) -> Option<Point> {
    let me = position.to_move();
    let moves = candidates(position);
    let winning: Vec<Point> = moves.iter().copied().filter(|&p| wins(position, p, me)).collect();
    if rng.chance(95)
        && let Some(p) = rng.pick(&winning)
    {
        return Some(p);
    }
    let mut safe = Vec::new();
    let mut captures = Vec::new();
    for &p in &moves {
        let mut next = position.clone();
        let Ok(taken) = next.play(p) else { continue };
        if next.is_over() || !candidates(&next).iter().any(|&q| wins(&next, q, me.opponent())) {
            safe.push(p);
            if taken > 0 {
                captures.push(p);
            }
        }
    }
    if rng.chance(60)
        && let Some(p) = rng.pick(&captures)
    {
        return Some(p);
    }
    rng.pick(&safe).or_else(|| rng.pick(&moves))
}

/// A made-up search result for the move `chosen` out of `candidates`.
fn search_data(position: &Position, chosen: Point, rng: &mut Rng) -> JsonMove {
    let value = (rng.below(201) as f32 - 100.0) / 100.0;
    if position.ply() == 0 {
        return JsonMove { point: chosen, value, visits: 0, policy: Vec::new() };
    }
    let mut others: Vec<Point> = candidates(position).into_iter().filter(|&p| p != chosen).collect();
    let mut policy = vec![(chosen, 0.5)];
    let count = others.len().min(1 + rng.below(3));
    // Halves, the last taking what is left: exact in binary, short in JSON.
    let mut left = 0.5;
    for i in 0..count {
        let p = others.swap_remove(rng.below(others.len()));
        let share = if i + 1 == count { left } else { left / 2.0 };
        policy.push((p, share));
        left -= share;
    }
    JsonMove { point: chosen, value, visits: 50 + rng.below(150) as u32, policy }
}

/// Plays one game: its moves with made-up search data, and its end. The
/// search data has its own generator so that the games of a seed stay those
/// of the move-list output before datasets existed.
fn play(rules: Rules, max_moves: usize, rng: &mut Rng, data_rng: &mut Rng) -> (Position, Vec<JsonMove>) {
    let mut position = Position::new(rules);
    let mut moves = Vec::new();
    while moves.len() < max_moves
        && let Some(p) = choose(&position, rng)
    {
        let data = search_data(&position, p, data_rng);
        if position.play(p).is_err() {
            break;
        }
        moves.push(data);
    }
    (position, moves)
}

/// The dataset record of a game; an unfinished game is resigned by the player to move.
fn json_game(game_id: u64, seed: u64, position: &Position, moves: Vec<JsonMove>) -> JsonGame {
    let (result, reason) = match position.outcome() {
        Some(o) => (GameResult::from_winner(o.winner), GameEnd::from(o.reason)),
        None => (GameResult::from_winner(Some(position.to_move().opponent())), GameEnd::Resign),
    };
    let plies = moves.len() as u32;
    let resign_check = match (result.winner(), reason) {
        (Some(winner), GameEnd::Five | GameEnd::Captures) if plies > 4 => {
            Some(ResignCheck { color: winner.opponent(), ply: plies - 4 })
        }
        _ => None,
    };
    JsonGame {
        schema: DATASET_SCHEMA,
        game_id,
        rules: *position.rules(),
        white: "random".into(),
        black: "random".into(),
        model: "random_games".into(),
        seed,
        search: serde_json::json!({"player": "random_games"}),
        result,
        reason,
        plies,
        captures: Captures { white: position.captured(Color::White), black: position.captured(Color::Black) },
        resign_check,
        moves,
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rules: Option<Vec<Rules>> = args.first().and_then(|s| s.split(',').map(|r| r.parse().ok()).collect());
    let (Some(rules), Some(count), Some(seed)) =
        (rules, args.get(1).and_then(|s| s.parse::<usize>().ok()), args.get(2).and_then(|s| s.parse::<u64>().ok()))
    else {
        eprintln!("usage: random_games RULES COUNT SEED [MAX_MOVES] [csv|jsonl]   (RULES like pente, keryo/13)");
        return ExitCode::FAILURE;
    };
    let max_moves = args.get(3).and_then(|s| s.parse::<usize>().ok()).unwrap_or(usize::MAX);
    let format = args.iter().skip(3).find(|a| *a == "csv" || *a == "jsonl").map(String::as_str);
    let mut rng = Rng(seed);
    let mut data_rng = Rng(!seed);
    let mut out = io::stdout().lock();
    if format == Some("csv")
        && let Err(err) = write_csv_header(&mut out)
    {
        eprintln!("{err}");
        return ExitCode::FAILURE;
    }
    for i in 0..count {
        let (position, moves) = play(rules[i % rules.len()], max_moves, &mut rng, &mut data_rng);
        let game = json_game(i as u64, seed.wrapping_add(i as u64), &position, moves);
        let written = match format {
            Some("csv") => write_csv_row(&mut out, &CsvGame::from_json(&game)),
            Some(_) => write_jsonl_game(&mut out, &game),
            None => {
                let moves: Vec<String> = game.moves.iter().map(|m| m.point.to_string()).collect();
                let result = match position.outcome() {
                    Some(o) => match o.winner {
                        Some(Color::White) => format!(" 1-0 # white by {}", o.reason),
                        Some(Color::Black) => format!(" 0-1 # black by {}", o.reason),
                        None => format!(" 1/2-1/2 # {}", o.reason),
                    },
                    None => String::new(),
                };
                writeln!(out, "{}{result}", moves.join(" "))
            }
        };
        if let Err(err) = written {
            eprintln!("{err}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
