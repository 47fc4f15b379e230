//! The targets the trainer derives from a sample's game, beside its policy:
//! the value for the side to move and the opponent's reply. The trainer and
//! the dataset columns (the Python package) read samples through these, so
//! both see the same targets.

use pente_core::{Color, Point, Position};

use crate::record::GameResult;

/// The game's result for `to_move`: 1 win, 0 draw, -1 loss.
#[must_use]
pub fn value_for(result: GameResult, to_move: Color) -> f32 {
    match result.winner() {
        None => 0.0,
        Some(winner) if winner == to_move => 1.0,
        Some(_) => -1.0,
    }
}

/// The opponent's reply to `moves[ply]`, played from `before`: the move
/// after it, unless the game ends there or the mover moves again
/// (Connect6's second stone).
#[must_use]
pub fn reply_to(moves: &[Point], ply: usize, before: &Position) -> Option<Point> {
    let mut after = before.clone();
    after.play_unchecked(*moves.get(ply)?);
    reply_after(moves, ply, before.to_move(), &after)
}

/// [`reply_to`] for a walk over the moves that has already played
/// `moves[ply]` by `mover`, reaching `after`.
#[must_use]
pub fn reply_after(moves: &[Point], ply: usize, mover: Color, after: &Position) -> Option<Point> {
    moves.get(ply + 1).copied().filter(|_| after.to_move() != mover)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pente_core::{Game, Rules, Variant};

    #[test]
    fn the_value_is_the_result_for_the_side_to_move() {
        assert_eq!(value_for(GameResult::White, Color::White), 1.0);
        assert_eq!(value_for(GameResult::White, Color::Black), -1.0);
        assert_eq!(value_for(GameResult::Black, Color::Black), 1.0);
        assert_eq!(value_for(GameResult::Draw, Color::White), 0.0);
    }

    #[test]
    fn a_second_stone_of_the_same_turn_is_no_reply() {
        let rules = Rules::new(Variant::Connect6, 19).unwrap();
        let moves = pente_core::parse_move_list("K10 L9 L10 K9 K11").unwrap();
        let replies: Vec<_> = (0..moves.len())
            .map(|ply| {
                let before = Game::from_moves(rules, moves[..ply].iter().copied()).unwrap();
                reply_to(&moves, ply, before.position())
            })
            .collect();
        let p = |s: &str| s.parse::<Point>().ok();
        // K10 is answered by L9 (Black's first stone); L9 is followed by Black's own L10;
        // K11 is White's second stone after K9; the game ends after K11.
        assert_eq!(replies, vec![p("L9"), None, p("K9"), None, None]);
    }
}
