//! Replays ids (one per line) into the nbtree model and prints the figures pgstatindex and
//! pg_stat_wal give, for checking the model against a real PostgreSQL by hand:
//! `cargo run --release -p keylab-nbtree-model --example nbtree_replay -- uuid pk ids.txt
//! [checkpoint_every_rows] [n | pN]`. Types: uuid, bigint, text (COLLATE "C").
//! Placements: pk (`id` is the primary key) and secondary (an identity primary key and a
//! non-unique index `k_id` on `id`). With `n` every n-th row, with `pN` the first N % of the
//! rows (load order), is then deleted and the table vacuumed.

use keylab_nbtree_model::{NbtreeSettings, NbtreeTable};
use keylab_schema::{Charset, Column, ColumnType, Index, RowFormat, Table, Value};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [ty, placement, file, rest @ ..] = &args[..] else {
        eprintln!("usage: nbtree_replay uuid|bigint|text pk|secondary FILE [CKPT_ROWS] [DEL_NTH]");
        std::process::exit(2);
    };
    let ckpt: Option<u64> = rest.first().and_then(|s| s.parse().ok()).filter(|&n| n > 0);
    // `n`: every n-th row; `pN`: the first N % of the rows, in load order.
    let del = rest.get(1).cloned();
    let col = match ty.as_str() {
        "uuid" => ColumnType::Binary { bytes: 16 },
        "bigint" => ColumnType::BigInt { unsigned: false },
        _ => ColumnType::VarChar { chars: 36, charset: Charset::Utf8mb4Bin },
    };
    let secondary = placement == "secondary";
    let id = Column::new("id", col, false);
    let (columns, indexes) = if secondary {
        let pk = Column::new("pk", ColumnType::BigInt { unsigned: false }, false);
        (vec![pk, id], vec![Index::new("k_id", vec![1], false)])
    } else {
        (vec![id], Vec::new())
    };
    let t = Table {
        name: "t".into(),
        columns,
        primary_key: vec![0],
        auto_increment: secondary,
        indexes,
        row_format: RowFormat::Dynamic,
        partitioning: None,
    };
    let settings = NbtreeSettings { checkpoint_every_rows: ckpt, ..NbtreeSettings::default() };
    let mut m = NbtreeTable::new(&t, settings).expect("table");
    let text = std::fs::read_to_string(file).expect("ids file");
    let mut n = 0i64;
    let mut pks = Vec::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let v = match ty.as_str() {
            "uuid" => {
                let hex: String = line.chars().filter(|c| *c != '-').collect();
                Value::Bytes(
                    (0..16)
                        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
                        .collect(),
                )
            }
            "bigint" => Value::Int(line.trim().parse().expect("bigint")),
            _ => Value::Bytes(line.as_bytes().to_vec()),
        };
        n += 1;
        let row = if secondary { vec![Value::Int(n), v.clone()] } else { vec![v.clone()] };
        pks.push(row[0].clone());
        m.insert(&row).expect("insert");
    }
    m.commit();
    if let Some(d) = del {
        let total = pks.len();
        let hit = |i: usize| match d.strip_prefix('p') {
            Some(pct) => i * 100 < total * pct.parse::<usize>().expect("percent"),
            None => (i + 1) % d.parse::<usize>().expect("every n-th") == 0,
        };
        for (i, pk) in pks.iter().enumerate() {
            if hit(i) {
                m.delete(std::slice::from_ref(pk)).expect("delete");
            }
        }
        m.commit();
        m.vacuum().expect("vacuum");
    }
    let s = m.stats();
    for (name, ix) in &s.indexes {
        println!(
            "{name}: leaf_pages={} internal_pages={} tree_level={} avg_leaf_density={:.2} \
             leaf_fragmentation={:.2} deleted_pages={} size_pages={}",
            ix.leaf_pages,
            ix.internal_pages,
            ix.height.saturating_sub(1),
            ix.avg_leaf_density,
            ix.leaf_fragmentation,
            ix.deleted_pages,
            ix.size_pages
        );
    }
    println!(
        "heap_pages={} fpi={} fpi_bytes={} split_l={} split_r={} newroot={}",
        s.heap_pages,
        s.wal.full_page_images,
        s.wal.full_page_image_bytes,
        s.wal.split_left,
        s.wal.split_right,
        s.wal.new_roots
    );
}
