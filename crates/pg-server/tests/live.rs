//! Live tests against private PostgreSQL instances the tests start: every load method with 1
//! and 4 writers, measured splits from the WAL, full-page images after a checkpoint, churn +
//! VACUUM, REINDEX under a fillfactor, and the `--url` safety rules (a second private instance
//! stands in for a user's server).
//!
//! Without PostgreSQL they print `SKIPPED: ...` and return, except under `CI=true`.

use keylab_core::{
    run_variant, Engine, KeySource, LoadMethod, LoadPlan, NoProgress, Op, Placement, Workload,
};
use keylab_keys::GenConfig;
use keylab_pg_server::installed_or_skip;
use keylab_pg_server::{PgEngine, PgSettings, TextCollation};

fn keys() -> KeySource {
    KeySource::Generated(GenConfig::default())
}

#[test]
fn every_method_with_one_and_four_writers_in_both_placements() {
    if !installed_or_skip(module_path!()) {
        return;
    }
    let mut engine = PgEngine::private(&PgSettings::default(), TextCollation::Default).unwrap();
    for placement in [Placement::Pk, Placement::Secondary] {
        for method in LoadMethod::ALL {
            for writers in [1, 4] {
                for variant in ["uuid4:text", "uuid7:bin", "seq", "auto-inc"] {
                    if variant == "auto-inc" && placement == Placement::Secondary {
                        continue;
                    }
                    let w = Workload::e1(variant, placement, 3007, "t_load");
                    let plan = LoadPlan { method, batch: 500, writers, batch_max: None };
                    let r = run_variant(&mut engine, &w, keys(), &plan, &mut NoProgress)
                        .unwrap_or_else(|e| {
                            panic!("{variant} {placement} {method} x{writers}: {e}")
                        });
                    assert_eq!(r.rows, 3007);
                    let v = r.load.verification.as_ref().unwrap();
                    assert_eq!((v.rows_found, v.checksum_equal), (Some(3007), Some(true)));
                    if variant == "auto-inc" || placement == Placement::Secondary {
                        // The identity key's values are checked too, whatever the writers.
                        assert!(v.checked.contains("consecutive values"), "{}", v.checked);
                    }
                    assert_eq!(r.indexes[0].name, "PRIMARY");
                    assert_eq!(r.indexes.len(), if placement == Placement::Pk { 1 } else { 2 });
                    assert!(r.indexes.iter().all(|i| i.leaf_pages.unwrap() > 0));
                    let pg = r.postgres.as_ref().unwrap();
                    assert!(pg.wal_bytes.unwrap() > 0 && pg.wal_records.unwrap() > 0);
                    assert!(pg.heap_pages.unwrap() > 0);
                }
            }
        }
    }
}

#[test]
fn uuid4_splits_are_counted_from_the_wal_and_match_the_tree() {
    if !installed_or_skip(module_path!()) {
        return;
    }
    let mut engine = PgEngine::private(&PgSettings::default(), TextCollation::C).unwrap();
    let plan = LoadPlan { method: LoadMethod::Multi, batch: 1000, writers: 1, batch_max: None };
    let r = run_variant(
        &mut engine,
        &Workload::e1("uuid4:bin", Placement::Pk, 50_000, "t4"),
        keys(),
        &plan,
        &mut NoProgress,
    )
    .unwrap();
    let pg = r.postgres.clone().unwrap();
    let ix = &r.indexes[0];
    let pages = ix.size_pages.unwrap();
    eprintln!("uuid4: {pg:?}\n{ix:?}");
    // The first insert makes the first root (a NEWROOT record, as every root split does);
    // every other page but the metapage came from a split.
    assert_eq!(pg.new_roots.unwrap(), u64::from(ix.height.unwrap()));
    let splits = pages - 1 - pg.new_roots.unwrap();
    assert_eq!(pg.split_left.unwrap() + pg.split_right.unwrap(), splits);
    assert_eq!(r.counters.page_splits, Some(splits));
    assert!(
        pg.split_left.unwrap() > 0 && pg.split_right.unwrap() > 0,
        "random keys split both ways"
    );
    let density = ix.avg_leaf_density.unwrap();
    assert!((60.0..80.0).contains(&density), "random inserts leave leaves ~70% full: {density}");
    let r7 = run_variant(
        &mut engine,
        &Workload::e1("uuid7:bin", Placement::Pk, 50_000, "t7"),
        keys(),
        &plan,
        &mut NoProgress,
    )
    .unwrap();
    let ix7 = &r7.indexes[0];
    eprintln!("uuid7: {:?}\n{ix7:?}", r7.postgres);
    assert!(ix7.avg_leaf_density.unwrap() > 85.0, "rightmost splits fill to the fillfactor");
    assert!(ix7.leaf_pages.unwrap() < ix.leaf_pages.unwrap());
}

#[test]
fn full_page_images_follow_a_checkpoint_and_vacuum_deletes_pages() {
    if !installed_or_skip(module_path!()) {
        return;
    }
    let mut engine = PgEngine::private(&PgSettings::default(), TextCollation::Default).unwrap();
    let w = Workload::e1("uuid4:bin", Placement::Pk, 20_000, "t_fpi");
    let table = w.table();
    engine.create_table(&table).unwrap();
    let plan = LoadPlan { method: LoadMethod::LoadData, batch: 5000, writers: 1, batch_max: None };
    let mut rows = w.row_gen(keys());
    let first: Vec<_> = (&mut rows).take(10_000).collect();
    engine.load(&table, &plan, &mut first.clone().into_iter(), &mut |_| {}).unwrap();
    let before = engine.measure(&table).unwrap().postgres.unwrap();
    engine.new_connection().unwrap().batch_execute("CHECKPOINT").unwrap();
    engine.load(&table, &plan, &mut rows, &mut |_| {}).unwrap();
    let after = engine.measure(&table).unwrap();
    let pg = after.postgres.clone().unwrap();
    eprintln!("before {before:?}\nafter {pg:?}");
    assert_eq!(pg.checkpoints.unwrap() - before.checkpoints.unwrap(), 1);
    let fpi = pg.full_page_images.unwrap() - before.full_page_images.unwrap();
    assert!(
        fpi >= after.indexes[0].leaf_pages.unwrap() / 2,
        "random inserts touch most leaves again: {fpi}"
    );
    assert!(pg.full_page_image_bytes.unwrap() > 0);
    // Churn: delete the lowest half of the keys (whole leaves empty), then VACUUM.
    let mut ids: Vec<_> = w.row_gen(keys()).map(|r| r[0].clone()).collect();
    ids.sort_by_key(|v| match v {
        keylab_schema::Value::Bytes(b) => b.clone(),
        _ => unreachable!("binary ids"),
    });
    let deletes: Vec<Op> = ids.into_iter().take(10_000).map(|id| Op::Delete(vec![id])).collect();
    engine.apply(&table, &mut deletes.into_iter(), &mut |_| {}).unwrap();
    let churned = engine.measure(&table).unwrap();
    let ix = &churned.indexes[0];
    eprintln!("after churn {ix:?}");
    assert!(ix.deleted_pages.unwrap() > 40, "VACUUM deleted the emptied pages");
    // A page deleted by one VACUUM is safe to reuse, and enters the free space map, once no
    // transaction may still see it: at a later VACUUM (`_bt_pendingfsm_finalize`).
    // (A transaction id taken in between moves the horizon past the deletion's.)
    engine.new_connection().unwrap().batch_execute("SELECT txid_current()").unwrap();
    engine.apply(&table, &mut std::iter::empty(), &mut |_| {}).unwrap();
    let later = engine.measure(&table).unwrap();
    eprintln!("after a second VACUUM {:?}", later.indexes[0]);
    assert!(later.indexes[0].recyclable_pages.unwrap() > 0, "recycled by a later VACUUM");
    engine.rebuild(&table, 70).unwrap();
    let rebuilt = engine.measure(&table).unwrap();
    let d = rebuilt.indexes[0].avg_leaf_density.unwrap();
    eprintln!("after REINDEX fillfactor 70: {:?}", rebuilt.indexes[0]);
    assert!((60.0..75.0).contains(&d), "{d}");
    assert_eq!(rebuilt.indexes[0].deleted_pages, Some(0));
    engine.drop_table(&table).unwrap();
}

#[test]
fn timed_queries_return_rows_with_the_plan_postgres_chose() {
    if !installed_or_skip(module_path!()) {
        return;
    }
    use keylab_core::QuerySpec;
    let mut engine = PgEngine::private(&PgSettings::default(), TextCollation::C).unwrap();
    let w = Workload::e1("ulid:text", Placement::Pk, 5000, "t_q");
    let table = w.table();
    engine.create_table(&table).unwrap();
    let plan = LoadPlan { method: LoadMethod::Multi, batch: 1000, writers: 1, batch_max: None };
    engine.load(&table, &plan, &mut w.row_gen(keys()), &mut |_| {}).unwrap();
    let point = engine.query(&table, &QuerySpec::Point { count: 10 }, 3).unwrap();
    assert_eq!((point.rows, point.run_ms.len()), (10, 3));
    let p = point.plan.unwrap();
    assert_eq!(p.key.as_deref(), Some("PRIMARY"), "{p:?}");
    let scan = engine.query(&table, &QuerySpec::FullScan, 2).unwrap();
    assert_eq!(scan.rows, 5000);
    let range = engine.query(&table, &QuerySpec::PkRange { rows: 100 }, 2).unwrap();
    assert_eq!(range.rows, 100);
    // Under COLLATE "C" a LIKE prefix is an index range.
    let prefix = engine.query(&table, &QuerySpec::IdPrefix { prefix: "01".into() }, 2).unwrap();
    assert_eq!(prefix.rows, 5000);
    assert!(prefix.server_ms.is_none() && !prefix.notes.is_empty());
    let share = engine.query(&table, &QuerySpec::IdShare { share: 0.1 }, 2).unwrap();
    assert_eq!(share.rows, 500);
    assert!(share.condition.unwrap().starts_with("BETWEEN '01"));
    engine.drop_table(&table).unwrap();
}
