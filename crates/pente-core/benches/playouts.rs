//! Criterion benchmarks of the rules hot paths: random playouts (placement,
//! capture and five detection, random move choice) and legal-move iteration.

#![allow(missing_docs)] // criterion_group! generates undocumented items
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pente_core::{Position, Rules, Variant};
use rand::SeedableRng;
use rand::rngs::SmallRng;

fn playouts(c: &mut Criterion) {
    let mut group = c.benchmark_group("random_playout");
    for variant in [Variant::Pente, Variant::Keryo, Variant::Gomoku] {
        let rules = Rules::new(variant, 19).expect("valid rules");
        let mut rng = SmallRng::seed_from_u64(1);
        // Throughput in stones placed: the average game length, measured first.
        let sample = 2000;
        let stones: u64 =
            (0..sample).map(|_| u64::from(Position::new(rules).random_playout(&mut rng).1)).sum::<u64>() / sample;
        group.throughput(Throughput::Elements(stones));
        group.bench_function(variant.name(), |b| b.iter(|| Position::new(rules).random_playout(&mut rng)));
    }
    group.finish();
}

fn legal_moves(c: &mut Criterion) {
    let mut rng = SmallRng::seed_from_u64(2);
    let mut position = Position::new(Rules::pente());
    for _ in 0..60 {
        let p = position.random_legal_move(&mut rng).expect("early game goes on");
        position.play_unchecked(p);
    }
    c.bench_function("legal_moves_19x19_ply60", |b| b.iter(|| std::hint::black_box(&position).legal_moves().count()));
}

criterion_group!(benches, playouts, legal_moves);
criterion_main!(benches);
