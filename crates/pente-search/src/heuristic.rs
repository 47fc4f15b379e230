//! A cheap hand-written tactical evaluator: fives, fours, threes and capture
//! threats. A baseline player and a stand-in before any network is trained.

use pente_core::{Color, LineWin, Point, Position};

use crate::evaluator::{Evaluation, Evaluator};

/// Scores every legal move by the lines and captures it makes or blocks.
#[derive(Debug, Clone, Copy)]
pub struct HeuristicEvaluator {
    /// Softmax temperature applied to move scores to form the priors.
    pub temperature: f32,
}

impl Default for HeuristicEvaluator {
    fn default() -> HeuristicEvaluator {
        HeuristicEvaluator { temperature: 6.0 }
    }
}

const AXES: [(i8, i8); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];
const WIN: f32 = 1000.0;

/// What a stone of one colour on an empty point would do.
#[derive(Debug, Default, Clone, Copy)]
struct Threat {
    /// The placement wins at once (line or capture threshold).
    wins: bool,
    /// Fours with both ends open, and with one.
    open_fours: u8,
    fours: u8,
    open_threes: u8,
    /// Stones it would capture.
    captures: u16,
}

impl Threat {
    fn score(self) -> f32 {
        if self.wins {
            return WIN;
        }
        100.0 * f32::from(self.open_fours)
            + 30.0 * f32::from(self.fours)
            + 12.0 * f32::from(self.open_threes)
            + 7.0 * f32::from(self.captures)
    }
}

fn stone(position: &Position, x: i32, y: i32) -> Option<Option<Color>> {
    let size = i32::from(position.rules().size());
    ((0..size).contains(&x) && (0..size).contains(&y)).then(|| position.stone_at(Point::new(x as u8, y as u8)))
}

/// The threat `color` would make with a stone on the empty point `p`.
fn threat(position: &Position, p: Point, color: Color) -> Threat {
    let rules = position.rules();
    let (px, py) = (i32::from(p.x()), i32::from(p.y()));
    let mut threat = Threat::default();
    for (dx, dy) in AXES {
        let (dx, dy) = (i32::from(dx), i32::from(dy));
        // Own stones running from p each way, and whether the next point is empty.
        let run = |sign: i32| {
            let mut n = 0;
            while stone(position, px + sign * dx * (n + 1), py + sign * dy * (n + 1)) == Some(Some(color)) {
                n += 1;
            }
            let open = stone(position, px + sign * dx * (n + 1), py + sign * dy * (n + 1)) == Some(None);
            (n, open)
        };
        let ((a, open_a), (b, open_b)) = (run(1), run(-1));
        let length = 1 + a + b;
        let opens = u8::from(open_a) + u8::from(open_b);
        let five = match rules.line_win() {
            LineWin::FiveOrMore | LineWin::SixOrMore => length >= i32::from(rules.win_length()),
            LineWin::ExactlyFive => length == 5,
        };
        // A "four" is one stone short of the winning line (five in Connect6).
        let short = i32::from(rules.win_length()) - length;
        if five {
            threat.wins = true;
        } else if short == 1 && opens == 2 {
            threat.open_fours += 1;
        } else if short == 1 && opens == 1 {
            threat.fours += 1;
        } else if short == 2 && opens == 2 {
            threat.open_threes += 1;
        }
    }
    if rules.has_captures() {
        let other = Some(Some(color.opponent()));
        for (dx, dy) in AXES.iter().flat_map(|&(dx, dy)| [(dx, dy), (-dx, -dy)]) {
            let (dx, dy) = (i32::from(dx), i32::from(dy));
            let at = |k: i32| stone(position, px + k * dx, py + k * dy);
            if at(1) != other || at(2) != other {
                continue;
            }
            if at(3) == Some(Some(color)) && rules.captures_run_of(2) {
                threat.captures += 2;
            } else if at(3) == other && at(4) == Some(Some(color)) && rules.captures_run_of(3) {
                threat.captures += 3;
            }
        }
        if let Some(win) = rules.capture_win()
            && threat.captures > 0
            && position.captured(color) + threat.captures >= win
        {
            threat.wins = true;
        }
    }
    threat
}

/// Whether any stone lies within distance 2 of `p`.
fn near_stones(position: &Position, p: Point) -> bool {
    let (px, py) = (i32::from(p.x()), i32::from(p.y()));
    (-2..=2).any(|dy| (-2..=2).any(|dx| matches!(stone(position, px + dx, py + dy), Some(Some(_)))))
}

impl HeuristicEvaluator {
    fn evaluate_one(&self, position: &Position) -> Evaluation {
        let me = position.to_move();
        let size = position.rules().size();
        let mut policy = vec![0.0; position.rules().area()];
        let mut scores = Vec::new();
        let (mut best_mine, mut best_theirs, mut their_wins) = (0.0f32, 0.0f32, 0);
        // A colour choice has no slot in the policy: the search spreads its
        // prior evenly over the choices.
        for p in position.legal_moves().filter(|p| !p.is_choice()) {
            let score = if position.ply() > 0 && !near_stones(position, p) {
                -20.0
            } else {
                let mine = threat(position, p, me);
                let theirs = threat(position, p, me.opponent());
                best_mine = best_mine.max(mine.score());
                best_theirs = best_theirs.max(theirs.score());
                their_wins += u32::from(theirs.wins);
                // Winning first, then blocking a win, then the rest.
                mine.score() + 0.8 * theirs.score()
            };
            scores.push((p, score));
        }
        let max = scores.iter().map(|s| s.1).fold(f32::NEG_INFINITY, f32::max);
        for &(p, score) in &scores {
            policy[p.dense_index(size)] = ((score - max) / self.temperature).exp();
        }
        let material = f32::from(position.captured(me)) - f32::from(position.captured(me.opponent()));
        let value = if best_mine >= WIN {
            0.95
        } else if their_wins >= 2 {
            -0.9
        } else {
            (0.004 * (best_mine - best_theirs) + 0.08 * material).tanh()
        };
        Evaluation { policy, value }
    }
}

impl Evaluator for HeuristicEvaluator {
    fn evaluate(&self, positions: &[&Position]) -> Vec<Evaluation> {
        positions.iter().map(|p| self.evaluate_one(p)).collect()
    }

    fn name(&self) -> String {
        "heuristic".into()
    }
}
