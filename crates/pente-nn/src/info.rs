//! What a model directory says about its network (`model.json`).

use serde::{Deserialize, Serialize};

use crate::features::Features;
use crate::model::NetConfig;

/// What a model directory says about its network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelInfo {
    /// A unique name, recorded in every game the model plays.
    pub id: String,
    /// Version of the input encoding ([`Features::version`]); the
    /// network's `in_planes` must be that encoding's.
    pub features_version: u32,
    /// The network's shape.
    pub net: NetConfig,
    /// The model this one was trained from, if any.
    #[serde(default)]
    pub parent: Option<String>,
    /// Training samples seen so far.
    #[serde(default)]
    pub samples_trained: u64,
    /// CPU-hours spent making it: the self-play, training and arenas of the
    /// loop runs that led to it, its ancestors' included (0: not recorded).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cpu_hours: f64,
    /// Its Elo on the loop's chain of gates, the first network of its
    /// campaign being 0; `start` carries it from one sitting to the next.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elo: Option<f64>,
    /// Loop iterations spent on its lineage, kept or not: a loop run that
    /// starts from it names and seeds its networks after them.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub iterations: u32,
}

fn is_zero<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

impl ModelInfo {
    /// Info of a new network with no training yet.
    #[must_use]
    pub fn new(id: impl Into<String>, net: NetConfig) -> ModelInfo {
        ModelInfo {
            id: id.into(),
            features_version: net.features().map_or(0, Features::version),
            net,
            parent: None,
            samples_trained: 0,
            cpu_hours: 0.0,
            elo: None,
            iterations: 0,
        }
    }
}
