//! A game's samples replayed into positions, with the targets the trainer
//! derives from the game: the value for the side to move, the opponent's
//! reply and the game's last position. The trainer and the Python package
//! read samples through these, so both see the same targets.

use pente_core::{Color, Game, Point, Position, ReplayError};

use crate::record::GameResult;
use crate::samples::{GameSamples, PositionSample};

/// One sample's position and its targets.
#[derive(Debug, Clone)]
pub struct ReplayedSample<'a> {
    /// The position before the sample's move.
    pub position: Position,
    /// The sample: its ply and policy target.
    pub sample: &'a PositionSample,
    /// The game's result for the side to move: 1 win, 0 draw, -1 loss.
    pub value: f32,
    /// The opponent's reply to the move played, if the game went on with one.
    pub reply: Option<Point>,
}

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
    let played = *moves.get(ply)?;
    let mut after = before.clone();
    after.play_unchecked(played);
    if after.to_move() == before.to_move() {
        return None;
    }
    moves.get(ply + 1).copied()
}

impl GameSamples {
    /// Every sample's position with its targets, in the file's order, and
    /// the game's last position, replaying the moves once.
    ///
    /// # Errors
    /// The first illegal move, if the game is not legal under its rules.
    pub fn replay(&self) -> Result<(Vec<ReplayedSample<'_>>, Position), ReplayError> {
        let mut order: Vec<usize> = (0..self.samples.len()).collect();
        order.sort_by_key(|&i| self.samples[i].ply);
        let mut replayed: Vec<Option<ReplayedSample<'_>>> = vec![None; self.samples.len()];
        let mut game = Game::new(self.rules);
        let mut next = order.iter().peekable();
        for (ply, &point) in self.moves.iter().enumerate() {
            while let Some(&&i) = next.peek().filter(|&&&i| self.samples[i].ply as usize == ply) {
                let position = game.position().clone();
                let value = value_for(self.result, position.to_move());
                let reply = reply_to(&self.moves, ply, &position);
                replayed[i] = Some(ReplayedSample { position, sample: &self.samples[i], value, reply });
                next.next();
            }
            game.play(point)?;
        }
        let replayed = replayed.into_iter().map(|s| s.expect("every sample's ply is below the move count")).collect();
        Ok((replayed, game.position().clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pente_core::Rules;

    fn game(rules: Rules, moves: &str, plies: &[u32], result: GameResult) -> GameSamples {
        let moves = pente_core::parse_move_list(moves).unwrap();
        let samples = plies.iter().map(|&ply| PositionSample { ply, policy: vec![(moves[ply as usize], 1.0)] }).collect();
        GameSamples { game_id: 7, rules, moves, result, samples }
    }

    #[test]
    fn each_sample_is_the_position_before_its_move_with_its_targets() {
        let moves = "K10 L9 K7 L8 K8 L7 K9 L10 K6";
        // Out of order on purpose: the file's order is kept.
        let samples = game(Rules::pente(), moves, &[4, 0, 8], GameResult::White);
        let (replayed, last) = samples.replay().unwrap();
        let all = pente_core::parse_move_list(moves).unwrap();
        for (r, ply) in replayed.iter().zip([4, 0, 8]) {
            let before = Game::from_moves(Rules::pente(), all[..ply].iter().copied()).unwrap();
            assert_eq!(r.position.hash(), before.position().hash(), "ply {ply}");
            assert_eq!(r.sample.ply as usize, ply);
            // White moves at even plies and wins.
            assert_eq!(r.value, 1.0);
        }
        assert_eq!(replayed[0].reply, Some(all[5]));
        assert_eq!(replayed[2].reply, None, "the game ends with the sample's move");
        assert!(last.is_over());
        let lost = game(Rules::pente(), moves, &[1], GameResult::White);
        assert_eq!(lost.replay().unwrap().0[0].value, -1.0);
        let drawn = game(Rules::pente(), moves, &[1], GameResult::Draw);
        assert_eq!(drawn.replay().unwrap().0[0].value, 0.0);
    }

    #[test]
    fn a_second_stone_of_the_same_turn_is_no_reply() {
        let rules = Rules::new(pente_core::Variant::Connect6, 19).unwrap();
        let samples = game(rules, "K10 L9 L10 K9 K11", &[0, 1, 2], GameResult::Draw);
        let replies: Vec<_> = samples.replay().unwrap().0.iter().map(|r| r.reply).collect();
        let p = |s: &str| s.parse::<Point>().ok();
        // K10 is answered by L9 (Black's first stone); L9 is followed by Black's own L10.
        assert_eq!(replies, vec![p("L9"), None, p("K9")]);
    }

    #[test]
    fn an_illegal_game_names_its_move() {
        let samples = game(Rules::pente(), "K10 K10", &[0], GameResult::Draw);
        let error = samples.replay().unwrap_err().to_string();
        assert!(error.contains("move 2"), "{error}");
    }
}
