//! A server-assigned `AUTO_INCREMENT` key on a private MariaDB: `LOAD DATA` takes its values
//! in reserved blocks (1, 2, 4, ... per statement, the unused end lost), which the load check
//! expects and checksums; values numbered otherwise fail the load. They need MariaDB's
//! server binaries: without them they print SKIPPED, except under `CI=true`.

use keylab_core::{bulk_autoinc_reserved, Engine, LoadMethod, LoadPlan};
use keylab_mariadb::{MariaDbEngine, ServerSettings};
use keylab_schema::{Charset, Column, ColumnType, RowFormat, Table, Value};
use mysql::prelude::Queryable;

fn server_installed() -> bool {
    keylab_mariadb::installed_or_skip(module_path!())
}

fn table(name: &str) -> Table {
    Table {
        name: name.into(),
        columns: vec![
            Column::new("pk", ColumnType::BigInt { unsigned: false }, false),
            Column::new("b", ColumnType::VarChar { chars: 20, charset: Charset::Utf8mb4 }, true),
        ],
        primary_key: vec![0],
        auto_increment: true,
        indexes: Vec::new(),
        row_format: RowFormat::Dynamic,
        partitioning: None,
    }
}

fn rows(n: u64) -> impl Iterator<Item = Vec<Value>> {
    (0..n).map(|i| vec![Value::Null, Value::Bytes(format!("b{i}").into_bytes())])
}

/// Two `LOAD DATA` loads of 2,500 rows in statements of 1,000: the server's keys have the
/// reservation rule's gaps (row 1,001 gets 1,024), the check covers them and passes, and the
/// second load starts after the first one's lost values.
#[test]
fn load_data_keys_follow_the_reservation_rule_and_are_checksummed() {
    if !server_installed() {
        return;
    }
    let mut engine = MariaDbEngine::private(&ServerSettings::default()).unwrap();
    assert!(engine.bulk_autoinc_gaps(), "MariaDB's default lock mode 1 reserves blocks");
    let opts = engine.private_server().unwrap().socket_opts();
    let t = table("t_gaps");
    engine.create_table(&t).unwrap();
    let plan = LoadPlan { method: LoadMethod::LoadData, batch: 1000, writers: 1, batch_max: None };
    for _ in 0..2 {
        let out = engine.load(&t, &plan, &mut rows(2500), &mut |_| {}).unwrap();
        let v = out.verification.unwrap();
        assert_eq!(v.checksum_equal, Some(true));
        assert!(
            v.checked.contains("SUM(CRC32(`pk`))") && v.checked.contains("LOAD DATA"),
            "{}",
            v.checked
        );
    }
    let mut admin = mysql::Conn::new(opts).unwrap();
    let ids: Vec<i64> =
        admin.query(format!("SELECT pk FROM `{}`.t_gaps ORDER BY pk", engine.database())).unwrap();
    let per_load = 2 * bulk_autoinc_reserved(1000) + bulk_autoinc_reserved(500);
    assert_eq!(ids.len(), 5000);
    assert_eq!(ids[1000], 1024, "the second statement starts after 1 + 2 + ... + 512 values");
    assert_eq!(ids[2500], per_load as i64 + 1, "the second load starts after the first's gap");
}

/// The writers number the key otherwise than the rule (`auto_increment_increment = 2`, set
/// for new sessions after the engine read its own): every other column checks out, the key
/// does not, and the load fails naming it.
#[test]
fn keys_numbered_otherwise_fail_the_load() {
    if !server_installed() {
        return;
    }
    let mut engine = MariaDbEngine::private(&ServerSettings::default()).unwrap();
    let opts = engine.private_server().unwrap().socket_opts();
    let t = table("t_step");
    engine.create_table(&t).unwrap();
    let mut admin = mysql::Conn::new(opts).unwrap();
    admin.query_drop("SET GLOBAL auto_increment_increment = 2").unwrap();
    let plan = LoadPlan { method: LoadMethod::Multi, batch: 100, writers: 1, batch_max: None };
    let err = engine.load(&t, &plan, &mut rows(500), &mut |_| {}).unwrap_err().to_string();
    admin.query_drop("SET GLOBAL auto_increment_increment = 1").unwrap();
    assert!(err.contains("server-assigned key `pk`") && err.contains("500 values"), "{err}");
}
