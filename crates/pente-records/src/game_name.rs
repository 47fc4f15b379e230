//! pente.org's names for the variants, as its `Game` header writes them,
//! and the `[Rated "N"]` header that makes a rated game's variant free.
//! Both the PGN reader and writer and [`crate::GameRecord::new`] use them.

use pente_core::Variant;

/// The pente.org name of a variant, as exported in the `Game` header.
/// pente.org has no game of its own for the free variants: it writes their
/// games as unrated (`[Rated "N"]`) Pente or Keryo-Pente.
#[must_use]
pub const fn game_name(variant: Variant) -> &'static str {
    match variant {
        Variant::Pente | Variant::FreePente => "Pente",
        Variant::Keryo | Variant::FreeKeryo => "Keryo-Pente",
        Variant::GPente => "G-Pente",
        Variant::PoofPente | Variant::FreePoofPente => "Poof-Pente",
        Variant::BoatPente | Variant::FreeBoatPente => "Boat-Pente",
        Variant::OPente | Variant::FreeOPente => "O-Pente",
        Variant::Gomoku => "Gomoku",
        Variant::GomokuExact => "Gomoku-Exact",
        Variant::DPente => "D-Pente",
        Variant::DkPente => "DK-Pente",
        Variant::Swap2Pente => "Swap2-Pente",
        Variant::Swap2Keryo => "Swap2-Keryo",
        Variant::Connect6 => "Connect6",
    }
}

/// Whether pente.org writes the variant's games with `[Rated "N"]`: an
/// unrated Pente, Keryo-Pente, Poof-Pente, Boat-Pente or O-Pente game was
/// played without the tournament rule, so the variant is another's
/// [`Variant::free`] form.
#[must_use]
pub(crate) fn unrated(variant: Variant) -> bool {
    Variant::ALL.into_iter().any(|rated| rated != variant && rated.free() == variant)
}

/// The variant of a game's headers: its `Game` header (plain Pente without
/// one), made free by `[Rated "N"]`. `None` for a game this crate does not
/// know.
pub(crate) fn headers_variant(headers: &[(String, String)]) -> Option<Variant> {
    let value = |name: &str| headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str());
    let named = match value("Game") {
        Some(name) => variant_from_game_name(name)?,
        None => Variant::Pente,
    };
    let unrated = value("Rated").is_some_and(|rated| rated.trim().eq_ignore_ascii_case("n"));
    Some(if unrated { named.free() } else { named })
}

/// The variant a `Game` header names, case-insensitively: pente.org's names
/// (`Pente`, `Keryo-Pente`, `G-Pente`, `D-Pente`, `DK-Pente`, `Poof-Pente`,
/// `Boat-Pente`, `O-Pente`, `Swap2-Pente`, `Swap2-Keryo`, `Connect6`,
/// `Gomoku`, with their `Speed` and `Turn-based` forms), our own names
/// (`free-pente`, `free-keryo`, `gomoku-exact`, `keryo`, ...), with spaces,
/// hyphens or underscores. `None` for other games (Go, Renju, ...). A
/// `[Rated "N"]` header makes Pente, Keryo-Pente, Poof-Pente, Boat-Pente and
/// O-Pente free; the reader applies it.
///
/// Note: pente.org's own Gomoku counts only exactly five (its server sets
/// `allowOverlines(false)`), which is our `gomoku-exact`; `Gomoku` is read as
/// `gomoku` here all the same, so a pente.org Gomoku game in which an
/// overline did not end the play is reported as moves after the end.
#[must_use]
pub fn variant_from_game_name(name: &str) -> Option<Variant> {
    let normal: String =
        name.trim().chars().map(|c| if c == ' ' || c == '_' { '-' } else { c.to_ascii_lowercase() }).collect();
    let base = normal.strip_prefix("speed-").or_else(|| normal.strip_prefix("turn-based-")).unwrap_or(&normal);
    match base {
        "pente" => Some(Variant::Pente),
        "keryo-pente" | "keryo" => Some(Variant::Keryo),
        "free-pente" => Some(Variant::FreePente),
        "free-keryo" | "free-keryo-pente" => Some(Variant::FreeKeryo),
        "g-pente" => Some(Variant::GPente),
        "poof-pente" => Some(Variant::PoofPente),
        "boat-pente" => Some(Variant::BoatPente),
        "o-pente" => Some(Variant::OPente),
        "free-poof-pente" => Some(Variant::FreePoofPente),
        "free-boat-pente" => Some(Variant::FreeBoatPente),
        "free-o-pente" => Some(Variant::FreeOPente),
        "gomoku" => Some(Variant::Gomoku),
        "gomoku-exact" => Some(Variant::GomokuExact),
        "d-pente" => Some(Variant::DPente),
        "dk-pente" => Some(Variant::DkPente),
        "swap2-pente" => Some(Variant::Swap2Pente),
        "swap2-keryo" => Some(Variant::Swap2Keryo),
        "connect6" => Some(Variant::Connect6),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_names() {
        let header = |k: &str, v: &str| (k.to_string(), v.to_string());
        for v in Variant::ALL {
            let mut headers = vec![header("Game", game_name(v))];
            if unrated(v) {
                headers.push(header("Rated", "n"));
            }
            assert_eq!(headers_variant(&headers), Some(v));
            assert_eq!(variant_from_game_name(v.name()), Some(v));
        }
        // pente.org's rated games keep the tournament rule; unrated ones lose it.
        let keryo = |rated: &str| headers_variant(&[header("Game", "Keryo-Pente"), header("Rated", rated)]);
        assert_eq!((keryo("Y"), keryo(" N ")), (Some(Variant::Keryo), Some(Variant::FreeKeryo)));
        assert_eq!(headers_variant(&[header("Rated", "N")]), Some(Variant::FreePente), "Pente without a Game");
        assert_eq!(headers_variant(&[header("Game", "Gomoku"), header("Rated", "N")]), Some(Variant::Gomoku));
        assert_eq!(variant_from_game_name("Free Keryo"), Some(Variant::FreeKeryo));
        assert_eq!(variant_from_game_name("Speed Pente"), Some(Variant::Pente));
        assert_eq!(variant_from_game_name("speed keryo-pente"), Some(Variant::Keryo));
        assert_eq!(variant_from_game_name("Turn-based Gomoku"), Some(Variant::Gomoku));
        assert_eq!(variant_from_game_name("Free Pente"), Some(Variant::FreePente));
        assert_eq!(variant_from_game_name("GOMOKU_EXACT"), Some(Variant::GomokuExact));
        assert_eq!(variant_from_game_name("Turn-based G-Pente"), Some(Variant::GPente));
        assert_eq!(variant_from_game_name("Speed Poof-Pente"), Some(Variant::PoofPente));
        assert_eq!(variant_from_game_name("Boat-Pente"), Some(Variant::BoatPente));
        assert_eq!(variant_from_game_name("Speed O-Pente"), Some(Variant::OPente));
        for name in ["Poof-Pente", "Boat-Pente", "O-Pente"] {
            let unrated = headers_variant(&[header("Game", name), header("Rated", "N")]).unwrap();
            assert_eq!(game_name(unrated), name);
            assert!(self::unrated(unrated) && unrated.name().starts_with("free-"), "{unrated}");
        }
        assert_eq!(variant_from_game_name("Speed DK-Pente"), Some(Variant::DkPente));
        assert_eq!(variant_from_game_name("Turn-based Swap2-Keryo"), Some(Variant::Swap2Keryo));
        assert_eq!(variant_from_game_name("connect6"), Some(Variant::Connect6));
        for other in ["Go", "Renju", "Swap2-Gomoku", ""] {
            assert_eq!(variant_from_game_name(other), None, "{other}");
        }
    }
}
