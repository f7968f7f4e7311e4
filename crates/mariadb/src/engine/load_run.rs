//! A load on a `MariaDbEngine`: the writers' connections, the buffer pool curve sampled while
//! they send rows, and the check afterwards that the server holds exactly what it held before
//! plus what the client sent (row count and checksum), with the server-side statement time
//! (read once the writers' sessions have ended). The checks' own buffer pool reads are kept
//! out of the table's figures (`check_io`) and said in the check's text.
//!
//! This module does not send rows itself (see `crate::load`) or measure the table after the
//! load (see `measure`).

use super::{sql_err, LoadDetails, MariaDbEngine, Target};
use crate::load;
use crate::metrics;
use crate::sql::{self, quote_ident};
use keylab_core::{LoadOutcome, LoadPlan, LoadVerification, Row};
use keylab_schema::Table;
use keylab_server_common::LoadStats;
use keylab_server_common::ServerError;
use mysql::prelude::Queryable;
use mysql::Conn;
use std::time::{Duration, Instant};

/// How long a load waits for its writers' sessions to end before it reads the server-side
/// statement time (they end within milliseconds; a server that takes longer gives none).
const WRITERS_END_WITHIN: Duration = Duration::from_secs(10);

impl MariaDbEngine {
    pub(super) fn run_load(
        &mut self,
        table: &Table,
        plan: &LoadPlan,
        rows: &mut dyn Iterator<Item = Row>,
        on_rows: &mut dyn FnMut(u64),
    ) -> Result<LoadOutcome, ServerError> {
        let name = self.owned_name(table)?;
        if plan.method == keylab_core::LoadMethod::LoadData {
            let on: Option<u64> = self.conn.query_first("SELECT @@local_infile").ok().flatten();
            if on == Some(0) {
                return Err(ServerError::Refused(
                    "the server has local_infile=OFF, so LOAD DATA LOCAL INFILE is refused; \
                     an administrator can SET GLOBAL local_infile=1, or use another --method"
                        .into(),
                ));
            }
        }
        let writers = plan.writers.max(1) as usize;
        let statements_before = self.server_statement_ns();
        let conns = (0..writers).map(|_| self.new_connection()).collect::<Result<Vec<_>, _>>()?;
        let writer_ids: Vec<u32> = conns.iter().map(Conn::connection_id).collect();
        self.track(&name, &writer_ids);
        // A table loaded in several calls (load samples), or after churn, already holds rows.
        // The checks before and after the load scan the table: their buffer pool reads are
        // kept out of the load's figures (`check_io`) and said in the check's text.
        let known = self.contents.get(&name).copied();
        let (checked_before, reads_before) = self.keep_apart(&name, |e| {
            let held = match known {
                Some(c) => c,
                None => e.table_checksum(table)?,
            };
            Ok::<_, ServerError>((held, e.key_check_before(table, plan)?))
        });
        let (held, key_check) = checked_before?;
        // Unknown until checked, also when the load fails half-way.
        self.contents.remove(&name);
        let fetch = self.id_fetch(&name);
        // The buffer pool curve: server-wide reads and writes, read on this engine's own
        // connection (idle while the writers load) whenever the rows sent pass a sample point.
        let conn = &mut self.conn;
        let base = metrics::read_pool_io(conn);
        let mut sampler = base.map(|_| keylab_core::PoolCurveSampler::new());
        let mut sent_rows = 0u64;
        let since = |conn: &mut Conn| {
            let (b, now) = (base?, metrics::read_pool_io(conn)?);
            Some((now.0.saturating_sub(b.0), now.1.saturating_sub(b.1)))
        };
        let mut sampled = |n: u64| {
            on_rows(n);
            sent_rows += n;
            if let Some(s) = sampler.as_mut().filter(|s| sent_rows >= s.next_due()) {
                if let Some((read, written)) = since(conn) {
                    s.offer(sent_rows, read, Some(written));
                }
            }
        };
        let stats = load::run_load_with_ids(table, plan, conns, rows, &mut sampled, fetch.as_ref());
        let curve = sampler
            .zip(since(&mut self.conn))
            .map(|(s, (read, written))| s.finish(sent_rows, read, Some(written)));
        match curve {
            Some(c) if stats.is_ok() => self.pool_curves.insert(name.clone(), c),
            _ => self.pool_curves.remove(&name),
        };
        self.track(&name, &[]);
        let stats: LoadStats = stats?;
        // The server adds a statement's time to its sums after replying to it (in
        // `dispatch_command`, the reply comes before `MYSQL_END_STATEMENT`), and a writer's
        // last COM_STMT_CLOSE and its disconnect get no reply: the sum is read once the
        // writers' sessions have ended, and not given when they do not end in time.
        let server_statement_ms = match statements_before {
            Some(before) if self.sessions_ended(&writer_ids, WRITERS_END_WITHIN) => {
                self.server_statement_ns().map(|after| after.saturating_sub(before) as f64 / 1e6)
            }
            _ => None,
        };
        let expected = (held.0 + stats.rows, held.1.wrapping_add(stats.client_checksum));
        let (checked_after, reads_after) = self.keep_apart(&name, |e| {
            let server_checksum = e.verify(table, held, expected)?;
            if let Some(check) = &key_check {
                e.key_check_after(table, check, stats.rows)?;
            }
            Ok::<_, ServerError>(server_checksum)
        });
        let server_checksum = checked_after?;
        let (check_reads, check_requests) =
            super::check_io::reads_and_requests(&reads_before.plus(&reads_after));
        let not_counted = format!(
            "; the checks' own {check_reads} buffer pool reads and {check_requests} page \
             requests are not counted in the table's figures"
        );
        self.contents.insert(name, server_checksum);
        self.last_load = Some(LoadDetails {
            first_batch_ms: stats.times.first_batch_ms.clone(),
            server_checksum,
        });
        let columns: Vec<&str> =
            sql::checksum_columns(table).iter().map(|&c| table.columns[c].name.as_str()).collect();
        // `verify` fails the load on any difference, so what is reported here is equal.
        let checked_text: String = if columns.is_empty() && key_check.is_some() {
            format!(
                "COUNT(*) of the whole table on the server (no other column is sent){}",
                super::key_check::key_check_text(table, key_check.as_ref())
            )
        } else if columns.is_empty() {
            "COUNT(*) of the whole table on the server; no checksum (no column is sent)".into()
        } else {
            let assigned = super::key_check::key_check_text(table, key_check.as_ref());
            format!(
                "COUNT(*) and SUM(CRC32(CONCAT_WS('|', {}))) of the whole table after the \
                 load, against before the load plus the rows sent (every column keylab \
                 generated){assigned}",
                columns.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ")
            )
        };
        let verification = LoadVerification {
            rows_expected: expected.0,
            rows_found: Some(server_checksum.0),
            checksum_equal: (!columns.is_empty() || key_check.is_some())
                .then_some(server_checksum.1 == expected.1),
            checked: checked_text + &not_counted,
        };
        Ok(LoadOutcome {
            rows: stats.rows,
            wall_s: Some(stats.wall_s),
            batch_latency_ms: keylab_server_common::latency_ms(&stats.times.batch_latency_us),
            first_batch_ms: Some(stats.times.first_batch_ms),
            other_batch_p50_ms: Some(stats.times.other_batch_p50_ms),
            verification: Some(verification),
            server_statement_ms,
        })
    }

    /// True once the server lists none of the sessions `connection_ids` (a session it no
    /// longer lists has run all its statements); false when some are still listed after
    /// `within`, or the list cannot be read.
    pub fn sessions_ended(&mut self, connection_ids: &[u32], within: Duration) -> bool {
        if connection_ids.is_empty() {
            return true;
        }
        let ids: Vec<String> = connection_ids.iter().map(u32::to_string).collect();
        let listed = format!(
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID IN ({})",
            ids.join(",")
        );
        let started = Instant::now();
        loop {
            match self.conn.query_first::<u64, _>(&listed) {
                Ok(Some(0)) => return true,
                Ok(Some(_)) if started.elapsed() < within => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                _ => return false,
            }
        }
    }

    /// Server-side time of every statement the server has run, ns (performance_schema,
    /// summed over statement kinds): on a private server only keylab runs statements, so
    /// the difference over a load is the load's (plus keylab's own reads around it). `None`
    /// on a user's server (other sessions' statements would count) or with
    /// performance_schema off.
    pub(super) fn server_statement_ns(&mut self) -> Option<u64> {
        if !matches!(self.target, Target::Private { .. }) {
            return None;
        }
        self.conn
            .query_first::<Option<u64>, _>(
                "SELECT CAST(SUM(SUM_TIMER_WAIT) DIV 1000 AS UNSIGNED) \
                 FROM performance_schema.events_statements_summary_global_by_event_name",
            )
            .ok()
            .flatten()
            .flatten()
    }

    /// Rows and `SUM(CRC32(..))` of the checksum columns (`sql::checksum_sql`) on the server.
    pub(super) fn table_checksum(&mut self, table: &Table) -> Result<(u64, u64), ServerError> {
        let expr = sql::checksum_sql(table);
        let server: Option<(u64, u64)> = self
            .conn
            .query_first(format!("SELECT COUNT(*), {expr} FROM {}", quote_ident(&table.name)))
            .map_err(|e| sql_err("checking the loaded rows failed", e))?;
        Ok(server.unwrap_or_default())
    }

    /// Row count and checksum on the server must be what it `held` before the load plus
    /// what the client sent (`expected`).
    pub(super) fn verify(
        &mut self,
        table: &Table,
        held: (u64, u64),
        expected: (u64, u64),
    ) -> Result<(u64, u64), ServerError> {
        let server = self.table_checksum(table)?;
        if server != expected {
            return Err(ServerError::Sql(format!(
                "load check failed on `{}`: it held {} rows, the client sent {} more (checksum \
                 {:#x} expected), the server holds {} rows (checksum {:#x}); rows were lost, \
                 duplicated or changed",
                table.name,
                held.0,
                expected.0 - held.0,
                expected.1,
                server.0,
                server.1
            )));
        }
        Ok(server)
    }
}
