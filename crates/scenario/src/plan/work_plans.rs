//! A scenario's `reads` and `mixed` phases as plans: each read spec string parsed (an error
//! points at that string, with the valid choices), counts and operations scaled by `--scale`,
//! the insert share checked.
//!
//! Not for: whether a table can serve a read kind (a run whose table lacks the index a kind
//! reads through gets that spec as `not_applicable`, with the reason, when it runs).

use super::{scale_count, PhasePlan};
use crate::error::ScenarioError;
use crate::spec::MixedSpec;
use crate::table::Ctx;
use keylab_core::{parse_mix_reads, MixSpec, ReadSpec};
use toml::Spanned;

/// `reads = ["point:100000:latest=5%", ...]`.
pub(super) fn reads(
    cx: &Ctx,
    list: &Spanned<Vec<Spanned<String>>>,
    scale: f64,
) -> Result<PhasePlan, ScenarioError> {
    if list.get_ref().is_empty() {
        return Err(cx.err(
            list.span(),
            "a reads phase needs at least one read, KIND:COUNT[:DISTRIBUTION] (e.g. \
             \"point:100000:latest=5%\")",
        ));
    }
    let specs = list
        .get_ref()
        .iter()
        .map(|s| {
            let mut spec: ReadSpec =
                s.get_ref().parse().map_err(|e: String| cx.err(s.span(), e))?;
            spec.count = scale_count(spec.count, scale);
            Ok(spec)
        })
        .collect::<Result<Vec<_>, ScenarioError>>()?;
    Ok(PhasePlan::Reads { specs })
}

/// `mixed = { ops, insert_share, reads }`.
pub(super) fn mixed(cx: &Ctx, m: &MixedSpec, scale: f64) -> Result<PhasePlan, ScenarioError> {
    let insert_share = MixSpec::check_share(*m.insert_share.get_ref())
        .map_err(|e| cx.err(m.insert_share.span(), e))?;
    let (kind, distribution) =
        parse_mix_reads(m.reads.get_ref()).map_err(|e| cx.err(m.reads.span(), e))?;
    Ok(PhasePlan::Mixed {
        mix: MixSpec { ops: scale_count(m.ops.get(), scale), insert_share, kind, distribution },
    })
}
