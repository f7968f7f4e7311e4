//! From a run's engine vocabulary to the InnoDB model's: which server's rules a
//! [`SimModel`] names, and the model's settings from a run's [`EngineSettings`] (a page
//! size InnoDB does not have is an error naming the valid ones).
//!
//! Not for running the model (`innodb.rs`).

use keylab_core::{EngineSettings, SimModel};
use keylab_innodb_model::{Flavour, PageSize, SimSettings};

/// The InnoDB model's rules of `model`; `None` for a model of another engine (PostgreSQL's
/// nbtree has its own engine, [`crate::NbtreeEngine`]).
pub fn flavour(model: SimModel) -> Option<Flavour> {
    match model {
        SimModel::Mariadb1011 => Some(Flavour::MariaDb1011),
        SimModel::Mysql80 => Some(Flavour::Mysql80),
        SimModel::Postgres15 => None,
    }
}

/// A page size that is not one of InnoDB's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("page size {bytes} bytes is not an InnoDB page size; valid: 4k, 8k, 16k, 32k, 64k")]
pub struct PageSizeError {
    /// The size asked for.
    pub bytes: u32,
}

/// The simulator's settings for a run's `settings` (the flavour, pool rules and checker are
/// the caller's to set).
pub fn sim_settings(settings: &EngineSettings) -> Result<SimSettings, PageSizeError> {
    let page_size = PageSize::ALL
        .into_iter()
        .find(|p| p.bytes() == settings.page_size_bytes)
        .ok_or(PageSizeError { bytes: settings.page_size_bytes })?;
    Ok(SimSettings {
        page_size,
        fill_factor_pct: settings.fill_factor_pct,
        merge_threshold_pct: settings.merge_threshold_pct,
        buffer_pool_bytes: settings.buffer_pool_bytes,
        change_buffering: settings.change_buffering,
        ..SimSettings::default()
    })
}

/// The model whose rules `flavour` are.
pub(super) fn sim_model(flavour: Flavour) -> SimModel {
    match flavour {
        Flavour::MariaDb1011 => SimModel::Mariadb1011,
        Flavour::Mysql80 => SimModel::Mysql80,
    }
}
