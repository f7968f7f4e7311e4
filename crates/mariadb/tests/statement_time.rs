//! Live tests of a load's server-side statement time (`load.server_statement_ms`) on a
//! private MariaDB/MySQL instance with performance_schema on: the server adds a statement's
//! time to its sums only after replying to it, and a writer's disconnect gets no reply, so
//! the engine reads the sum once the writers' sessions have ended ([`MariaDbEngine::sessions_ended`]).
//!
//! Without a server binary they print `SKIPPED: ...` and return, except under `CI=true`,
//! where a missing server fails the run.

use keylab_core::{Engine, KeySource, LoadMethod, LoadPlan, Placement, Workload};
use keylab_keys::GenConfig;
use keylab_mariadb::{MariaDbEngine, ServerSettings};
use mysql::prelude::Queryable;
use std::time::{Duration, Instant};

fn private_with_perf_schema() -> Option<MariaDbEngine> {
    if !keylab_mariadb::installed_or_skip(module_path!()) {
        return None;
    }
    let settings = ServerSettings { performance_schema: true, ..ServerSettings::default() };
    Some(MariaDbEngine::private(&settings).expect("private server"))
}

#[test]
fn sessions_ended_waits_for_a_session_still_running_its_statement() {
    let Some(mut engine) = private_with_perf_schema() else {
        return;
    };
    let mut busy = engine.new_connection().unwrap();
    let id = busy.connection_id();
    let started = Instant::now();
    let session = std::thread::spawn(move || {
        busy.query_drop("SELECT SLEEP(0.5)").unwrap();
        // The connection closes here, after its statement.
    });
    std::thread::sleep(Duration::from_millis(100));
    assert!(engine.sessions_ended(&[id], Duration::from_secs(30)));
    assert!(started.elapsed() >= Duration::from_millis(500), "{:?}", started.elapsed());
    session.join().unwrap();
    // A session still open after `within` has not ended.
    let open = engine.new_connection().unwrap();
    assert!(!engine.sessions_ended(&[open.connection_id()], Duration::from_millis(20)));
    drop(open);
    assert!(engine.sessions_ended(&[], Duration::ZERO));
}

#[test]
fn a_load_with_four_writers_is_timed_once_they_have_ended() {
    let Some(mut engine) = private_with_perf_schema() else {
        return;
    };
    let mut status = engine.new_connection().unwrap();
    let others: u64 = status
        .query_first(
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND <> 'Daemon'",
        )
        .unwrap()
        .unwrap();
    let w = Workload::e1("uuid4:text", Placement::Pk, 4000, "t_stmt_time");
    let table = w.table();
    for method in [LoadMethod::Multi, LoadMethod::PreparedUncached] {
        engine.create_table(&table).unwrap();
        let plan = LoadPlan { method, batch: 100, writers: 4, batch_max: None };
        let mut rows = w.row_gen(KeySource::Generated(GenConfig::default()));
        let out = engine.load(&table, &plan, &mut rows, &mut |_| {}).unwrap();
        // Read at once, without waiting: the writers' sessions are gone already.
        let listed: u64 = status
            .query_first(
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND <> 'Daemon'",
            )
            .unwrap()
            .unwrap();
        assert_eq!(listed, others, "{method}: writer sessions still listed");
        assert!(out.server_statement_ms.unwrap() > 0.0, "{method}");
        engine.drop_table(&table).unwrap();
    }
}
