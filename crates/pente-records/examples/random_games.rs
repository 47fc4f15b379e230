//! Prints legal games for test data, one move list per line with the result
//! the rules give (nothing if a game hits the move limit):
//!
//! ```text
//! cargo run -p pente-records --example random_games -- keryo/19 5 42 [max_moves]
//! ```
//!
//! The players are weak but not random: each takes a win when it has one,
//! avoids moves that let the opponent win at once, likes captures, and plays
//! near the stones already on the board. The games under `tests/data/` were
//! made with it and then frozen.

use std::process::ExitCode;

use pente_core::{Color, Point, Position, Rules};

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

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(rules), Some(count), Some(seed)) = (
        args.first().and_then(|s| s.parse::<Rules>().ok()),
        args.get(1).and_then(|s| s.parse::<usize>().ok()),
        args.get(2).and_then(|s| s.parse::<u64>().ok()),
    ) else {
        eprintln!("usage: random_games RULES COUNT SEED [MAX_MOVES]   (RULES like pente, keryo/13)");
        return ExitCode::FAILURE;
    };
    let max_moves = args.get(3).and_then(|s| s.parse::<usize>().ok()).unwrap_or(usize::MAX);
    let mut rng = Rng(seed);
    for _ in 0..count {
        let mut position = Position::new(rules);
        let mut moves = Vec::new();
        while moves.len() < max_moves
            && let Some(p) = choose(&position, &mut rng)
        {
            if position.play(p).is_err() {
                break;
            }
            moves.push(p.to_string());
        }
        let result = match position.outcome() {
            Some(o) => match o.winner {
                Some(Color::White) => format!(" 1-0 # white by {}", o.reason),
                Some(Color::Black) => format!(" 0-1 # black by {}", o.reason),
                None => format!(" 1/2-1/2 # {}", o.reason),
            },
            None => String::new(),
        };
        println!("{}{result}", moves.join(" "));
    }
    ExitCode::SUCCESS
}
