//! `keylab report`: re-render a saved JSON result without re-running it.

use crate::args::ReportArgs;
use crate::output;
use crate::UsageError;
use anyhow::Result;

/// Runs `keylab report`.
pub fn run(args: ReportArgs) -> Result<()> {
    crate::checks::check_exports(&args.output, &[("the result file", &args.result)])?;
    let report = keylab_report::load_report(&args.result).map_err(|e| UsageError(e.to_string()))?;
    output::write_exports(&report, &args.output, output::Stage::Final)?;
    output::print(&report, &args.output)
}
