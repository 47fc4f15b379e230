//! Whole games against Debian's `pente -text` (level 1), every board it
//! prints checked against our rules. Skipped when the program is not
//! installed, unless `PENTE_REQUIRE_EXTERNAL=1` (as `.ci/run` sets).

use pente_core::{Color, Point};
use pente_external::{ExternalError, TextPente, TextPenteConfig};

fn config() -> Option<TextPenteConfig> {
    let config = TextPenteConfig::new(1).unwrap();
    if config.program.is_file() {
        return Some(config);
    }
    assert!(
        std::env::var_os("PENTE_REQUIRE_EXTERNAL").is_none(),
        "PENTE_REQUIRE_EXTERNAL is set but {} is missing",
        config.program.display()
    );
    eprintln!("skipped: {} is not installed (apt-get install pente)", config.program.display());
    None
}

/// A random legal move touching a stone (so captures happen), drawn by `state`.
fn near_move(engine: &TextPente, state: &mut u64) -> Point {
    let position = engine.position();
    if position.ply() == 0 {
        return Point::centre(19);
    }
    let touches = |p: &Point| {
        (-1i32..=1).any(|dy| {
            (-1i32..=1).any(|dx| {
                let (x, y) = (i32::from(p.x()) + dx, i32::from(p.y()) + dy);
                (0..19).contains(&x)
                    && (0..19).contains(&y)
                    && position.stone_at(Point::new(x as u8, y as u8)).is_some()
            })
        })
    };
    let near: Vec<Point> = position.legal_moves().filter(touches).collect();
    let moves: Vec<Point> = if near.is_empty() { position.legal_moves().collect() } else { near };
    // xorshift64
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    moves[(*state % moves.len() as u64) as usize]
}

#[test]
fn whole_games_agree_with_our_rules() {
    let Some(config) = config() else { return };
    let mut captures = 0;
    for (game, program_color) in [Color::White, Color::Black].into_iter().cycle().take(8).enumerate() {
        let mut engine = TextPente::start(&config, program_color).unwrap();
        let mut state = 0x9E37_79B9_7F4A_7C15 ^ game as u64;
        while !engine.position().is_over() {
            if engine.position().to_move() == program_color {
                engine.next_move().unwrap();
            } else {
                engine.play(near_move(&engine, &mut state)).unwrap();
            }
        }
        let position = engine.position();
        assert!(position.outcome().is_some());
        assert!(position.ply() >= 9, "a win needs at least five stones of one side");
        captures += position.captured(Color::White) + position.captured(Color::Black);
    }
    assert!(captures > 0, "eight games without a capture check nothing about captures");
}

#[test]
fn a_move_it_refuses_is_an_error() {
    let Some(config) = config() else { return };
    let mut engine = TextPente::start(&config, Color::Black).unwrap();
    engine.play(Point::centre(19)).unwrap();
    let reply = engine.next_move().unwrap();
    // Its own stone's point is taken: our rules and the program both refuse it.
    match engine.play(reply) {
        Err(ExternalError::Refused { point, ply: 3 }) => assert_eq!(point, reply),
        other => panic!("expected a refusal, got {other:?}"),
    }
}
