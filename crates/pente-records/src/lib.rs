//! Game records for Pente: pente.org's PGN-like game files, move-list files,
//! self-play datasets (`games.csv`, `games.jsonl`), and checking a record
//! against the rules.
//!
//! Parsing is syntax only: a record that parses may still break the rules.
//! [`check`] replays it with [`pente_core::Game`] and says whether the moves
//! and the stated result hold up.
//!
//! ```
//! use pente_records::{Conclusion, Verdict, check, parse_pgn, write_pgn};
//!
//! let text = "[Game \"Pente\"]\n[Result \"1-0\"]\n\n1. K10 L9 2. K7 L8 3. K8 L7 4. K9 L10 5. K6 1-0\n";
//! let games = parse_pgn(text).unwrap();
//! assert_eq!(games[0].moves.len(), 9);
//! assert!(matches!(check(&games[0]), Verdict::Valid(Conclusion::Finished { .. })));
//! assert_eq!(write_pgn(&games), text);
//! ```
//!
//! The pente.org format, as its server writes it (`PGNGameFormat.java` in the
//! pente.org sources): one `[Name "value"]` header per line, a blank line,
//! then numbered moves wrapped at 80 columns and ending with the result
//! (`1-0`, `0-1`, `1/2-1/2`, or `?` when unknown); `Resign` or `Forfeit` may
//! stand in a move's place. The server writes `\r\n` line endings.

mod check;
mod dataset;
mod dataset_io;
mod error;
mod game_end;
mod game_name;
mod movelist;
mod movetext;
mod pgn;
mod record;
mod samples;
mod targets;
mod validate;

pub use check::{Conclusion, Verdict, Violation, check};
pub use dataset::{CSV_HEADER, Captures, CsvGame, DATASET_SCHEMA, JsonGame, JsonMove, ResignCheck};
pub use dataset_io::{
    CsvGames, JsonlGames, csv_games, jsonl_games, open_games_csv, open_games_jsonl, parse_csv, parse_jsonl,
    write_csv_header, write_csv_row, write_jsonl_game,
};
pub use error::{Cause, ParseError, ParseErrorKind};
pub use game_end::GameEnd;
pub use game_name::{game_name, variant_from_game_name};
pub use movelist::{MoveListGames, move_list_games, parse_move_list_file, write_move_list_file};
pub use pgn::{PgnGames, parse_pgn, pgn_games, write_pgn, write_pgn_game};
pub use record::{GameRecord, GameResult, Termination};
pub use samples::{
    GameSamples, PositionSample, SAMPLES_HEADER_LEN, SAMPLES_MAGIC, SAMPLES_VERSION, SamplesError, SamplesReader,
    write_game_samples, write_samples_header,
};
pub use targets::{reply_after, reply_to, value_for};
pub use validate::{FileReport, Format, GameReport, Summary, validate_csv, validate_jsonl, validate_text};
