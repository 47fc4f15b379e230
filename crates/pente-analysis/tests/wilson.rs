//! The Wilson score interval against published values.

use pente_analysis::{Tally, Z95, wilson_interval};

fn rounded((low, high): (f64, f64)) -> (f64, f64) {
    ((low * 1e4).round() / 1e4, (high * 1e4).round() / 1e4)
}

#[test]
fn matches_newcombe_1998() {
    // R. G. Newcombe, "Two-sided confidence intervals for the single
    // proportion: comparison of seven methods", Statistics in Medicine 17
    // (1998): its examples for method 3, the score interval without
    // continuity correction.
    for (successes, n, expected) in [
        (81.0, 263, (0.2553, 0.3662)),
        (15.0, 148, (0.0624, 0.1605)),
        (0.0, 20, (0.0, 0.1611)),
        (1.0, 29, (0.0061, 0.1718)),
    ] {
        assert_eq!(rounded(wilson_interval(successes, n, Z95)), expected, "{successes}/{n}");
    }
}

#[test]
fn edge_cases() {
    assert_eq!(wilson_interval(0.0, 0, Z95), (0.0, 1.0), "no games: nothing known");
    assert_eq!(rounded(wilson_interval(5.0, 10, Z95)), (0.2366, 0.7634));
    assert_eq!(rounded(wilson_interval(10.0, 10, Z95)), (0.7225, 1.0));
    // Fractional scores (draws count half) lie between their neighbours.
    let half = wilson_interval(5.5, 10, Z95);
    assert!(half.0 > wilson_interval(5.0, 10, Z95).0 && half.1 < wilson_interval(6.0, 10, Z95).1);
    // The interval of the losses mirrors that of the wins.
    let (low, high) = wilson_interval(3.0, 17, Z95);
    let (low2, high2) = wilson_interval(14.0, 17, Z95);
    assert!((low - (1.0 - high2)).abs() < 1e-12 && (high - (1.0 - low2)).abs() < 1e-12);
}

#[test]
fn a_tally_scores_draws_as_half() {
    let tally = Tally { games: 10, white: 5, black: 4, draws: 1, five: 9, ..Tally::default() };
    assert_eq!(tally.score(pente_core::Color::White), 5.5);
    assert_eq!(tally.score_interval(pente_core::Color::White), wilson_interval(5.5, 10, Z95));
}
