//! Checks of a whole run made before any engine starts, so bad usage exits 2 at once instead
//! of failing (exit 1) after a server was started: a row or key that no page of the chosen
//! size can hold, and a load plan no server can run. The row and key sizes are the
//! simulator's record-size rules (the same the simulator applies when it creates a table);
//! this module runs nothing.

use crate::engines::sim_settings;
use crate::UsageError;
use keylab_core::{EngineSettings, LoadPlan};
use keylab_innodb_model::SimTable;
use keylab_schema::Table;

/// Refuses `table` loaded with `loads` under `settings` if it cannot work on any engine;
/// `what` names the run in the message (a variant, or a scenario run's label).
pub fn check_run(
    what: &str,
    table: &Table,
    settings: &EngineSettings,
    loads: &[&LoadPlan],
) -> Result<(), UsageError> {
    let sim = sim_settings(settings)?;
    SimTable::new(table, sim).map_err(|e| {
        UsageError(format!("{what}: {e} (page size {} bytes)", settings.page_size_bytes))
    })?;
    for plan in loads {
        keylab_mariadb::check_plan(table, plan).map_err(|e| UsageError(format!("{what}: {e}")))?;
    }
    Ok(())
}
