//! The fairness study: the first player's score under strong self-play,
//! from the games a book played out from the empty board, split over the
//! openings they took and, in the colour-choice variants, over the choices.

use std::collections::BTreeMap;

use pente_analysis::canonical::canonical_moves;
use pente_core::{Point, format_move_list};
use serde::Serialize;

use crate::error::BookError;
use crate::stats::{Score, Tally};
use crate::store::Book;

/// One variant's line of the study.
#[derive(Debug, Clone, Serialize)]
pub struct Fairness {
    /// The variant's name.
    pub variant: String,
    /// The board size.
    pub size: u8,
    /// The player (model id) that played the games.
    pub player: String,
    /// Its playouts a move.
    pub visits: u32,
    /// Moves drawn with temperature at the start of each game.
    pub temperature_plies: u32,
    /// The root's games.
    pub tally: Tally,
    /// The first player's score.
    pub first_score: Score,
    /// White's score.
    pub white_score: Score,
    /// Mean moves a game.
    pub mean_plies: f64,
    /// The most played openings (their first moves, up to symmetry), most played first.
    pub openings: Vec<Share>,
    /// Colour-choice variants: each way the choice went (`swap`, `stay`,
    /// `pass stay`, ...), most taken first.
    pub choices: Vec<Share>,
}

/// A part of the games: an opening or a colour choice.
#[derive(Debug, Clone, Serialize)]
pub struct Share {
    /// The opening's moves, or the choices made.
    pub name: String,
    /// Its games.
    pub games: u64,
    /// Their share of the root's games.
    pub share: f64,
    /// The first player's score in them.
    pub first_score: Score,
}

fn shares(groups: BTreeMap<String, Tally>, total: u64, top: usize) -> Vec<Share> {
    let mut shares: Vec<Share> = groups
        .into_iter()
        .map(|(name, tally)| Share {
            name,
            games: tally.games,
            share: tally.games as f64 / total.max(1) as f64,
            first_score: tally.first_score(),
        })
        .collect();
    shares.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.name.cmp(&b.name)));
    if top > 0 {
        shares.truncate(top);
    }
    shares
}

/// The study's line for `book`: its root's games, their openings of
/// `opening_plies` stones (the `top` most played; 0 for all) and choices.
///
/// # Errors
/// The book's errors.
pub fn fairness(book: &Book, opening_plies: usize, top: usize) -> Result<Fairness, BookError> {
    let root = book.node_by_key(&crate::key::Located::after(book.rules(), &[])?.key)?;
    let games = match &root {
        Some(root) => book.games(Some(root.id))?,
        None => Vec::new(),
    };
    let size = book.rules().size();
    let mut tally = Tally::default();
    let mut openings: BTreeMap<String, Tally> = BTreeMap::new();
    let mut choices: BTreeMap<String, Tally> = BTreeMap::new();
    let mut plies = 0;
    for game in &games {
        let one = game_tally(game);
        tally.add(&one);
        plies += game.moves.len();
        let stones: Vec<Point> = game.moves.iter().copied().filter(|p| !p.is_choice()).take(opening_plies).collect();
        openings.entry(format_move_list(&canonical_moves(&stones, size).0, false)).or_default().add(&one);
        let made: Vec<Point> = game.moves.iter().copied().filter(|p| p.is_choice()).collect();
        if !made.is_empty() {
            choices.entry(format_move_list(&made, false)).or_default().add(&one);
        }
    }
    let settings = book.settings();
    Ok(Fairness {
        variant: settings.variant.name().to_string(),
        size,
        player: book.player().to_string(),
        visits: settings.play.visits,
        temperature_plies: settings.games.temperature_plies,
        tally,
        first_score: tally.first_score(),
        white_score: tally.white_score(),
        mean_plies: plies as f64 / games.len().max(1) as f64,
        openings: shares(openings, tally.games, top),
        choices: shares(choices, tally.games, 0),
    })
}

/// One game as a tally.
fn game_tally(game: &crate::store::GameRecord) -> Tally {
    use pente_core::{Color, Seat};
    Tally {
        games: 1,
        white: u64::from(game.winner == Some(Color::White)),
        black: u64::from(game.winner == Some(Color::Black)),
        draws: u64::from(game.winner.is_none()),
        first: u64::from(game.winner_seat == Some(Seat::First)),
        second: u64::from(game.winner_seat == Some(Seat::Second)),
    }
}

/// Recounts every node's games one by one, as a check of the book's own
/// sums ([`Book::tallies`]): the two must agree.
///
/// # Errors
/// The book's errors.
pub fn recount(book: &Book) -> Result<BTreeMap<i64, Tally>, BookError> {
    let mut tallies: BTreeMap<i64, Tally> = BTreeMap::new();
    for game in book.games(None)? {
        tallies.entry(game.node).or_default().add(&game_tally(&game));
    }
    Ok(tallies)
}
