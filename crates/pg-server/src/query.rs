//! Timed queries on PostgreSQL: point lookups, primary-key ranges, the id-prefix range (E1's
//! `WHERE id LIKE '01J%'`), the lowest share of the ids, and a full count.
//!
//! Keys to look up are chosen before the runs, untimed, at evenly spread positions of the
//! primary key's order (as on MariaDB), and travel as text cast to the column's type. Each run
//! is timed on the client around sending the statements and reading every row; the plan is
//! `EXPLAIN (FORMAT JSON)`'s top node. Server-side statement times are `null`: keylab reads no
//! per-statement timer on PostgreSQL (`pg_stat_statements` is not assumed), and a note says
//! so. On a text id, `LIKE 'prefix%'` can use the nbtree only under `COLLATE "C"` (or a
//! `text_pattern_ops` index): the plan shows which ran. A `uuid` id is matched by its text.

use crate::engine::{sql_err, PgEngine};
use crate::sql::{self, column_type, qualified, quote_ident, TextCollation};
use keylab_core::{EngineError, QueryOutcome, QueryPlan, QuerySpec};
use keylab_schema::Table;
use postgres::types::ToSql;
use postgres::Client;
use std::time::Instant;

/// The column holding the generated id (see `keylab_mariadb`'s rule: the single column of the
/// first secondary index under an identity key, else the primary key's first column).
fn id_column(table: &Table) -> usize {
    if table.auto_increment {
        if let Some(ix) = table.indexes.iter().find(|i| i.columns.len() == 1) {
            return ix.columns[0];
        }
    }
    table.primary_key[0]
}

/// `count` positions spread evenly over `0..span`.
fn spread(span: u64, count: u64) -> Vec<i64> {
    let count = count.min(span);
    (0..count).map(|i| (i as u128 * span as u128 / count as u128) as i64).collect()
}

/// The text of column `col` at the given positions of its order.
fn values_at(
    client: &mut Client,
    t: &str,
    col: &str,
    at: &[i64],
) -> Result<Vec<String>, EngineError> {
    let q = format!(
        "SELECT v FROM (SELECT {col}::text AS v, row_number() OVER (ORDER BY {col}) - 1 AS rn \
         FROM {t}) s WHERE rn = ANY($1) ORDER BY rn"
    );
    let rows = client.query(&q, &[&at]).map_err(|e| sql_err("choosing keys failed", e))?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// `EXPLAIN (FORMAT JSON)` of `sql` with `params`: the top plan node.
fn explain(client: &mut Client, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Option<QueryPlan> {
    let row = client.query_one(&format!("EXPLAIN (FORMAT JSON) {sql}"), params).ok()?;
    let json: serde_json::Value = row.try_get(0).ok()?;
    // The first node that reads the table (below an Aggregate or Limit).
    let mut node = &json[0]["Plan"];
    while node.get("Relation Name").is_none() && node.get("Index Name").is_none() {
        match node.get("Plans").and_then(|p| p.get(0)) {
            Some(child) => node = child,
            None => break,
        }
    }
    Some(QueryPlan {
        access_type: node["Node Type"].as_str().map(str::to_string),
        key: node["Index Name"].as_str().map(str::to_string),
        rows: node["Plan Rows"].as_f64().map(|r| r as u64),
        // PostgreSQL's EXPLAIN has no key length.
        key_len: None,
        extra: ["Index Cond", "Filter"]
            .iter()
            .filter_map(|k| Some(format!("{k}: {}", node[k].as_str()?)))
            .reduce(|a, b| format!("{a}; {b}")),
    })
}

/// Runs `query` `runs` times on `table`.
pub fn run(
    engine: &mut PgEngine,
    table: &Table,
    query: &QuerySpec,
    runs: u32,
) -> Result<QueryOutcome, EngineError> {
    let t = qualified(engine.schema(), &sql::table_name(table));
    let client = engine.client();
    // Statistics for the planner, untimed (autovacuum is off on a private instance; the
    // InnoDB engines read their figures after ANALYZE TABLE too).
    client.batch_execute(&format!("ANALYZE {t}")).map_err(|e| sql_err("ANALYZE failed", e))?;
    let pk_col = &table.columns[table.primary_key[0]];
    let pk = quote_ident(&pk_col.name);
    let pk_ty = column_type(&pk_col.ty, TextCollation::Default);
    let pk_ty = pk_ty.split(' ').next().unwrap_or("text").to_string();
    let n: i64 = client
        .query_one(&format!("SELECT count(*) FROM {t}"), &[])
        .map_err(|e| sql_err("counting rows failed", e))?
        .get(0);
    let mut out = QueryOutcome { table_rows: Some(n as u64), ..QueryOutcome::default() };
    out.notes.push(
        "server-side statement times are not read on PostgreSQL (no pg_stat_statements); \
         client times only"
            .into(),
    );
    // Per run: one statement and the parameter lists it runs with.
    let (sql, per_run): (String, Vec<Vec<Vec<String>>>) = match query {
        QuerySpec::Point { count } => {
            let keys = values_at(client, &t, &pk, &spread(n as u64, u64::from(*count)))?;
            let take = if keys.is_empty() { 0 } else { *count as usize };
            let lookups: Vec<Vec<String>> =
                keys.iter().cycle().take(take).map(|k| vec![k.clone()]).collect();
            (
                format!("SELECT * FROM {t} WHERE {pk} = $1::text::{pk_ty}"),
                vec![lookups; runs as usize],
            )
        }
        QuerySpec::PkRange { rows } => {
            let span = (n as u64).saturating_sub(u64::from(*rows)) + 1;
            let starts = values_at(client, &t, &pk, &spread(span, u64::from(runs)))?;
            let take = if starts.is_empty() { 0 } else { runs as usize };
            let sql = format!(
                "SELECT * FROM {t} WHERE {pk} >= $1::text::{pk_ty} ORDER BY {pk} LIMIT {rows}"
            );
            (sql, starts.iter().cycle().take(take).map(|s| vec![vec![s.clone()]]).collect())
        }
        QuerySpec::IdPrefix { prefix } => {
            let col = &table.columns[id_column(table)];
            let id = quote_ident(&col.name);
            let pattern =
                format!("{}%", prefix.replace('!', "!!").replace('%', "!%").replace('_', "!_"));
            let target = if col.ty.fixed_len() == Some(16) { format!("{id}::text") } else { id };
            let sql = format!("SELECT {target} FROM {t} WHERE {target} LIKE $1 ESCAPE '!'");
            (sql, vec![vec![vec![pattern]]; runs as usize])
        }
        QuerySpec::IdShare { share } => {
            let col = &table.columns[id_column(table)];
            let id = quote_ident(&col.name);
            let ty = column_type(&col.ty, TextCollation::Default);
            let ty = ty.split(' ').next().unwrap_or("text").to_string();
            let want = ((share * n as f64).round() as i64).clamp(1, n.max(1));
            let bounds = values_at(client, &t, &id, &[0, want - 1])?;
            let (lo, hi) = match bounds.as_slice() {
                [lo, hi] => (lo.clone(), hi.clone()),
                [only] => (only.clone(), only.clone()),
                _ => (String::new(), String::new()),
            };
            out.condition = Some(format!("BETWEEN '{lo}' AND '{hi}'"));
            let sql = format!(
                "SELECT {id} FROM {t} WHERE {id} BETWEEN $1::text::{ty} AND $2::text::{ty}"
            );
            (sql, vec![vec![vec![lo, hi]]; runs as usize])
        }
        // Every row read back, as an application's "find all" does.
        QuerySpec::FullScan => (format!("SELECT * FROM {t}"), vec![vec![vec![]]; runs as usize]),
    };
    let stmt = client.prepare(&sql).map_err(|e| sql_err("preparing the query failed", e))?;
    if let Some(first) = per_run.first().and_then(|r| r.first()) {
        let params: Vec<&(dyn ToSql + Sync)> =
            first.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
        out.plan = explain(client, &sql, &params).map(|mut p| {
            p.key = p.key.map(|k| crate::metrics::report_name_of(table, &k));
            p
        });
    }
    for lists in &per_run {
        let started = Instant::now();
        let mut rows = 0u64;
        for list in lists {
            let params: Vec<&(dyn ToSql + Sync)> =
                list.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
            let got = client.query(&stmt, &params).map_err(|e| sql_err("the query failed", e))?;
            rows += got.len() as u64;
        }
        out.run_ms.push(started.elapsed().as_secs_f64() * 1000.0);
        out.rows = rows;
    }
    Ok(out)
}
