//! A scenario's `[[phases]]` as one cell's [`PhasePlan`]s: the cell's load overrides, `--scale`
//! on the row counts, and the checks that need more than one field (a varying batch only on
//! shaped methods, churn writers only with row inserts, id_prefix or id_share, what a ddl
//! phase may drop under writers).
//!
//! Not for: parsing the phase tables (`spec.rs`) or running them (`execute.rs`).

use super::{scale_count, Cell, PhasePlan, MAX_DDL_WRITERS};
use crate::error::ScenarioError;
use crate::spec::{PhaseSpec, ScenarioSpec};
use crate::table::Ctx;
use keylab_core::{
    ChurnInsert, ChurnStyle, DdlSpec, EngineSettings, LoadMethod, LoadPlan, QuerySpec,
};
use keylab_schema::Charset;

pub(super) fn phases(
    cx: &Ctx,
    spec: &ScenarioSpec,
    cell: &Cell,
    settings: &EngineSettings,
    scale: f64,
) -> Result<Vec<PhasePlan>, ScenarioError> {
    let mut out = Vec::new();
    for p in spec.phases.get_ref() {
        out.push(match p.get_ref() {
            PhaseSpec::Load(l) => {
                let batch = cell.batch.unwrap_or(l.batch);
                let method = cell.method.unwrap_or(l.method);
                let shaped = matches!(
                    method,
                    LoadMethod::Multi | LoadMethod::Prepared | LoadMethod::PreparedUncached
                );
                if batch.max.is_some() && !shaped {
                    return Err(cx.err(
                        p.span(),
                        format!(
                            "batch {batch} varies the statement shape, which only multi, \
                             prepared and prepared-uncached have; method {method} needs one \
                             row count"
                        ),
                    ));
                }
                PhasePlan::Load {
                    rows: scale_count(cell.rows.unwrap_or(l.rows.get()), scale),
                    plan: LoadPlan {
                        method,
                        batch: batch.min,
                        writers: cell.writers.unwrap_or(l.writers.get()),
                        batch_max: batch.max,
                    },
                    sample_every: l.sample_every.map(|n| scale_count(n.get(), scale)),
                }
            }
            PhaseSpec::Churn(c) => PhasePlan::Churn {
                rounds: c.rounds.get(),
                inserts: if c.inserts == 0 { 0 } else { scale_count(c.inserts, scale) },
                deletes: if c.deletes == 0 { 0 } else { scale_count(c.deletes, scale) },
                measure_every: c.measure_every.get(),
                style: {
                    if c.writers.get() > 1 && c.insert_method != ChurnInsert::Row {
                        return Err(cx.err(
                            p.span(),
                            "churn writers > 1 needs insert_method = \"row\" (valid: \
                             insert_method = \"row\" with any writers, or \"multi\" with \
                             writers = 1)",
                        ));
                    }
                    ChurnStyle {
                        insert: c.insert_method,
                        writers: c.writers.get(),
                        delete: c.delete_method,
                    }
                },
            },
            PhaseSpec::Rebuild(r) => PhasePlan::Rebuild {
                fill_factor_pct: r.fill_factor.map_or(settings.fill_factor_pct, |f| f.0),
            },
            PhaseSpec::Restart(_) => PhasePlan::Restart,
            PhaseSpec::Queries(q) => {
                let mut queries = Vec::new();
                if let Some(n) = q.point {
                    queries.push(("point".to_string(), QuerySpec::Point { count: n.get() }));
                }
                if let Some(n) = q.pk_range {
                    let rows = u32::try_from(scale_count(n.get(), scale)).unwrap_or(u32::MAX);
                    queries.push(("pk_range".to_string(), QuerySpec::PkRange { rows }));
                }
                if let Some(prefix) = &q.id_prefix {
                    queries.push(("id_prefix".to_string(), QuerySpec::IdPrefix { prefix: prefix.clone() }));
                }
                if let Some(share) = &q.id_share {
                    let v = *share.get_ref();
                    if !(v > 0.0 && v <= 1.0) {
                        return Err(cx.err(
                            share.span(),
                            format!("id_share must be in (0, 1] (a share of the rows), got {v}"),
                        ));
                    }
                    queries.push(("id_share".to_string(), QuerySpec::IdShare { share: v }));
                }
                if q.full_scan {
                    queries.push(("full_scan".to_string(), QuerySpec::FullScan));
                }
                if queries.is_empty() {
                    return Err(cx.err(
                        p.span(),
                        "a queries phase needs at least one of point, pk_range, id_prefix, id_share, full_scan",
                    ));
                }
                PhasePlan::Queries { runs: q.runs.get(), queries }
            }
            PhaseSpec::Reads(list) => super::work_plans::reads(cx, list, scale)?,
            PhaseSpec::Mixed(m) => super::work_plans::mixed(cx, m, scale)?,
            PhaseSpec::Timed(t) => {
                let positive = |v: &toml::Spanned<f64>, what: &str| {
                    let x = *v.get_ref();
                    if x.is_finite() && x > 0.0 && x <= 86_400.0 {
                        Ok(x)
                    } else {
                        Err(cx.err(v.span(), format!("{what} must be in (0, 86400] seconds, got {x}")))
                    }
                };
                let seconds = positive(&t.seconds, "seconds")?;
                let interval = match &t.interval_s {
                    Some(i) => positive(i, "interval_s")?,
                    None => 1.0,
                };
                if interval > seconds {
                    let span = t.interval_s.as_ref().map_or(t.seconds.span(), |i| i.span());
                    return Err(cx.err(
                        span,
                        format!("interval_s {interval} is longer than seconds {seconds}: no whole interval"),
                    ));
                }
                // How many rows the threads insert is the server's timing: no later phase
                // may rely on which rows the table holds.
                let last = spec.phases.get_ref().last().is_some_and(|l| std::ptr::eq(l, p));
                if !last {
                    return Err(cx.err(
                        p.span(),
                        "a timed phase must be the last phase (how many rows it inserts is the \
                         server's timing, so later phases could not know the table's rows)",
                    ));
                }
                PhasePlan::Timed {
                    plan: keylab_core::TimedPlan {
                        threads: t.threads.get(),
                        duration: std::time::Duration::from_secs_f64(seconds),
                        interval: std::time::Duration::from_secs_f64(interval),
                    },
                    max_rows: scale_count(t.max_rows.get(), scale),
                }
            }
            PhaseSpec::Ddl(d) => {
                // Every column any table of the scenario has (the writers insert into each).
                let spec_columns: Vec<&str> = spec
                    .tables
                    .get_ref()
                    .iter()
                    .flat_map(|t| {
                        [t.id.name.get_ref().as_str(), t.surrogate.get_ref().as_str()]
                            .into_iter()
                            .chain(t.columns.iter().map(|c| c.name.get_ref().as_str()))
                    })
                    .collect();
                if d.steps.get_ref().is_empty() {
                    return Err(cx.err(d.steps.span(), "a ddl phase needs at least one step"));
                }
                if d.steps.get_ref().iter().any(|s| {
                    s.after.is_some() && s.action != keylab_core::DdlAction::AddColumn
                }) {
                    return Err(cx.err(
                        d.steps.span(),
                        "`after` places a new column; only add_column steps take it",
                    ));
                }
                if let Some(t) = d.steps.get_ref().iter().find_map(|s| {
                    s.ty.as_ref().filter(|_| s.action != keylab_core::DdlAction::AddColumn)
                }) {
                    return Err(cx.err(
                        t.span(),
                        "`type` is the type of a new column; only add_column steps take it",
                    ));
                }
                let writers = d.concurrent_writers.as_ref().map_or(0, |w| *w.get_ref());
                if let Some(w) = d.concurrent_writers.as_ref().filter(|_| writers > MAX_DDL_WRITERS)
                {
                    return Err(cx.err(
                        w.span(),
                        format!("concurrent_writers is at most {MAX_DDL_WRITERS}, got {writers}"),
                    ));
                }
                // An index or a primary key goes on a column the table has (or an earlier step
                // added).
                let mut known: Vec<&str> = spec_columns.clone();
                for s in d.steps.get_ref() {
                    let on_column = matches!(
                        s.action,
                        keylab_core::DdlAction::AddFulltextIndex
                            | keylab_core::DdlAction::ChangePrimaryKey
                    );
                    if on_column && !known.contains(&s.column.as_str()) {
                        return Err(cx.err(
                            d.steps.span(),
                            format!(
                                "{}: `{}` is not a column of the table or of an earlier step; \
                                 valid: {}",
                                token_of(s.action),
                                s.column,
                                known.join(", ")
                            ),
                        ));
                    }
                    if s.action == keylab_core::DdlAction::AddColumn {
                        known.push(&s.column);
                    }
                }
                let dropped_table_column = d.steps.get_ref().iter().find(|s| {
                    s.action == keylab_core::DdlAction::DropColumn
                        && spec_columns.contains(&s.column.as_str())
                });
                if let Some(s) = dropped_table_column.filter(|_| writers > 0) {
                    return Err(cx.err(
                        d.steps.span(),
                        format!(
                            "drop_column `{}`: with concurrent_writers the writers insert into \
                             every column of the table, so only a column an earlier step added \
                             can be dropped",
                            s.column
                        ),
                    ));
                }
                PhasePlan::Ddl {
                    concurrent_writers: writers,
                    steps: d
                        .steps
                        .get_ref()
                        .iter()
                        .map(|s| DdlSpec {
                            action: s.action,
                            column: s.column.clone(),
                            algorithm: s.algorithm,
                            after: s.after.clone(),
                            lock: s.lock,
                            // A string type takes utf8mb4, a table column's default.
                            column_type: s.ty.as_ref().map(|t| {
                                crate::table::column_type(*t.get_ref(), Charset::Utf8mb4)
                            }),
                        })
                        .collect(),
                }
            }
        });
    }
    Ok(out)
}

/// A ddl action as a scenario spells it (`add_fulltext_index`).
fn token_of(action: keylab_core::DdlAction) -> String {
    serde_json::to_value(action)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
