//! The columns against the rules replayed move by move: the board kept as
//! an array through captures and poofs, the targets, the window's trimming.

use std::io::Write;

use pente_core::{Game, Point, Rules, Variant};
use pente_dataset::{Columns, Policy, ReadOptions, SampleChunks, SampleWindow, fill_board};
use pente_records::{GameResult, GameSamples, PositionSample, write_game_samples, write_samples_header};

/// Random legal games, sampled at every ply.
fn games(rules: Rules, count: u64) -> Vec<GameSamples> {
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(7);
    (0..count)
        .map(|game_id| {
            let mut game = Game::new(rules);
            while !game.position().is_over() && game.moves().len() < 120 {
                let point = game.position().random_legal_move(&mut rng).unwrap();
                game.play(point).unwrap();
            }
            let moves = game.moves().to_vec();
            let samples = (0..moves.len() as u32)
                .map(|ply| PositionSample { ply, policy: vec![(moves[ply as usize], 0.75), (Point::new(0, 0), 0.25)] })
                .collect();
            GameSamples { game_id, rules, moves, result: GameResult::Black, samples }
        })
        .collect()
}

fn write(path: &std::path::Path, games: &[GameSamples]) {
    let mut file = std::fs::File::create(path).unwrap();
    write_samples_header(&mut file).unwrap();
    for game in games {
        write_game_samples(&mut file, game).unwrap();
    }
    file.flush().unwrap();
}

#[test]
fn the_board_column_follows_captures_and_poofs() {
    let dir = tempfile::tempdir().unwrap();
    for variant in [Variant::Pente, Variant::PoofPente, Variant::BoatPente, Variant::DPente, Variant::Connect6] {
        let rules = Rules::new(variant, 9).unwrap();
        let written = games(rules, 6);
        let path = dir.path().join(format!("{}.bin", variant.name()));
        write(&path, &written);
        let columns = SampleChunks::open(&path, ReadOptions::default()).unwrap().read_all().unwrap();
        let mut row = 0;
        for game in &written {
            let replayed = Game::from_moves(rules, game.moves.iter().copied()).unwrap();
            for sample in &game.samples {
                let position = &replayed.positions()[sample.ply as usize];
                let mut board = vec![0i8; 81];
                fill_board(position, &mut board);
                assert_eq!(
                    columns.board[row * 81..(row + 1) * 81],
                    board[..],
                    "{variant:?} game {} ply {}",
                    game.game_id,
                    sample.ply
                );
                assert_eq!(columns.to_move[row], if position.to_move() == pente_core::Color::White { 1 } else { -1 });
                assert_eq!(columns.value[row], -f32::from(columns.to_move[row]), "Black won");
                row += 1;
            }
        }
        assert_eq!(row, columns.len());
        let Policy::Dense(policy) = &columns.policy else { panic!("dense by default") };
        // The policy is normalized over the board: here every entry is a point.
        let sum: f32 = policy[..81].iter().sum();
        assert!((sum - 1.0).abs() < 1e-4, "{sum}");
    }
}

#[test]
fn compact_columns_leave_out_the_boards() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("samples.bin");
    write(&path, &games(Rules::new(Variant::Pente, 9).unwrap(), 3));
    let options = ReadOptions { columns: Columns::COMPACT, ..ReadOptions::default() };
    let compact = SampleChunks::open(&path, options).unwrap().read_all().unwrap();
    assert!(compact.board.is_empty() && compact.ownership.is_empty());
    let Policy::Sparse { offsets, moves, probs } = &compact.policy else { panic!("sparse when compact") };
    assert_eq!(offsets.len(), compact.len() + 1);
    assert_eq!(moves.len(), probs.len());
    assert!(offsets.windows(2).all(|w| w[1] - w[0] == 2 || w[1] - w[0] == 1), "two entries, one where they coincide");
}

#[test]
fn a_window_keeps_the_newest_samples() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules::new(Variant::Pente, 9).unwrap();
    let (first, second) = (dir.path().join("a.bin"), dir.path().join("b.bin"));
    let written = games(rules, 8);
    write(&first, &written[..5]);
    write(&second, &written[5..]);
    let total: usize = written.iter().map(|g| g.samples.len()).sum();
    let keep = total - written[0].samples.len() - 3;
    let window = SampleWindow::load(&[first.clone(), second], ReadOptions::default(), |_| keep).unwrap();
    assert_eq!(window.len(), keep);
    // Its oldest sample is the second game's fourth.
    let oldest = window.columns(&[0], Columns::ALL, None);
    assert_eq!((oldest.game_id[0], oldest.ply[0]), (1, 3));
    assert_eq!(window.sample(0).sample.ply, 3);
    // A second board size is kept beside the first (a training window
    // draws each batch from one), or left out when a size is chosen.
    let other = dir.path().join("c.bin");
    write(&other, &games(Rules::new(Variant::Pente, 13).unwrap(), 1));
    let both = SampleWindow::load(&[first.clone(), other.clone()], ReadOptions::default(), |_| 10_000).unwrap();
    let sizes: Vec<u8> = both.sizes().iter().map(|&(size, _)| size).collect();
    assert_eq!(sizes, [9, 13]);
    let nine = ReadOptions { size: Some(9), ..ReadOptions::default() };
    let only = SampleWindow::load(&[first, other], nine, |_| 10_000).unwrap();
    assert_eq!(only.sizes().len(), 1);
    assert_eq!(only.len(), both.sizes()[0].1.len());
}
