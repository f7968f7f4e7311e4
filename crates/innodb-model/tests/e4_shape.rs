//! E4's shape, scaled down (docs/experiments.md): random secondary-index maintenance on data far
//! larger than the buffer pool. The change buffer cuts page reads; on the device model 4 KiB
//! pages beat 16 KiB on SSD and lose on HDD. (Times are the device model's estimates.)

use keylab_innodb_model::{Device, PageSize, SimSettings, SimTable};
use keylab_schema::{Charset, Column, ColumnType, Index, RowFormat, Table, Value};

fn table() -> Table {
    let big = ColumnType::BigInt { unsigned: false };
    Table {
        name: "sbtest".into(),
        columns: vec![
            Column::new("id", big, false),
            Column::new("k", big, false),
            Column::new("c", ColumnType::Char { chars: 120, charset: Charset::Latin1 }, false),
        ],
        primary_key: vec![0],
        auto_increment: false,
        indexes: vec![Index::new("k_1", vec![1], false)],
        row_format: RowFormat::Dynamic,
        partitioning: None,
    }
}

fn row(id: i64, k: i64) -> Vec<Value> {
    vec![Value::Int(id), Value::Int(k), Value::Bytes(vec![b'c'; 120])]
}

/// (reads, writes) of `updates` random UPDATEs of k after loading `rows` rows.
fn run(page: PageSize, change_buffer: bool) -> (u64, u64) {
    let (rows, updates) = (60_000u64, 6_000u64);
    let s = SimSettings {
        page_size: page,
        buffer_pool_bytes: Some(1 << 20),
        change_buffering: Some(change_buffer),
        ..SimSettings::default()
    };
    let mut sim = SimTable::new(&table(), s).unwrap();
    let mut x = 7u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for id in 0..rows as i64 {
        sim.insert(&row(id, (next() % rows) as i64)).unwrap();
    }
    sim.flush();
    let c0 = sim.pool_counters().unwrap();
    for _ in 0..updates {
        let id = (next() % rows) as i64;
        assert!(sim.delete(&[Value::Int(id)]).unwrap());
        sim.insert(&row(id, (next() % rows) as i64)).unwrap();
    }
    sim.flush();
    sim.check().unwrap();
    let c = sim.pool_counters().unwrap();
    (c.pages_read - c0.pages_read, c.pages_written - c0.pages_written)
}

#[test]
fn change_buffer_and_page_size_move_the_io_estimate_the_published_way() {
    let est = |d: Device, p: PageSize, (r, w): (u64, u64)| d.est_io_s(r, w, p.bytes());
    let off16 = run(PageSize::K16, false);
    let on16 = run(PageSize::K16, true);
    let on4 = run(PageSize::K4, true);
    eprintln!("16k off {off16:?}, 16k on {on16:?}, 4k on {on4:?}");
    // The change buffer saves reads (and so estimated time on both devices).
    assert!(on16.0 * 3 < off16.0 * 2, "{on16:?} vs {off16:?}");
    // 4 KiB pages: cheaper per I/O on SSD, more I/Os that cost a seek each on HDD.
    assert!(est(Device::Ssd, PageSize::K4, on4) < est(Device::Ssd, PageSize::K16, on16));
    assert!(est(Device::Hdd, PageSize::K4, on4) > est(Device::Hdd, PageSize::K16, on16));
}
