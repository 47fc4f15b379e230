//! The Wilson score interval of a proportion.

/// The normal quantile of a two-sided 95 % interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The Wilson score interval `(low, high)` of a proportion: `score`
/// successes out of `n` trials at normal quantile `z` ([`Z95`] for 95 %).
///
/// `score` may be fractional (a draw counts half a win) and is clamped to
/// `0..=n`. Unlike the normal approximation, the interval stays inside
/// `[0, 1]` and is not empty at 0 or `n` successes. With no trials nothing
/// is known: `(0, 1)`.
#[must_use]
pub fn wilson_interval(score: f64, n: u64, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let n = n as f64;
    let p = (score / n).clamp(0.0, 1.0);
    let z2 = z * z;
    let denominator = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denominator;
    let half = z / denominator * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}
