//! E2's writers on the simulator in an order measured on a server: `replay_order FILE`
//! reads AUTO_INCREMENT ids, one per line, in the order the server inserted them (logged
//! by an `AFTER INSERT` trigger taking `NEXT VALUE FOR` a sequence), inserts E2's rows
//! (`room_availability`, docs/experiments.md) into the model in that order and prints the
//! PRIMARY leaf pages and fill. It separates the two questions of E2's fill with many
//! writers: the page rules (this replay) and the order the server's scheduling gives (the
//! file). Not a test: the order file comes from a server run.

use keylab_innodb_model::{SimSettings, SimTable};
use keylab_schema::{Column, ColumnType, RowFormat, Table, Value};

fn table() -> Table {
    Table {
        name: "room_availability".into(),
        columns: vec![
            Column::new("id", ColumnType::BigInt { unsigned: false }, false),
            Column::new("room_type_id", ColumnType::Int, false),
            Column::new("date", ColumnType::Date, false),
            Column::new("available_count", ColumnType::Int, false),
            Column::new("price", ColumnType::Decimal { precision: 10, scale: 2 }, false),
        ],
        primary_key: vec![0],
        auto_increment: true,
        indexes: Vec::new(),
        row_format: RowFormat::Dynamic,
        partitioning: None,
    }
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: replay_order FILE");
    let text = std::fs::read_to_string(&path).expect("readable order file");
    let mut sim = SimTable::new(&table(), SimSettings::default()).unwrap();
    let mut n = 0u64;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let id: i64 = line.trim().parse().expect("one integer id per line");
        // Fixed-size columns: only the id's order shapes the pages.
        let day = (id - 1) % 360;
        let row = [
            Value::Int(id),
            Value::Int(1 + (id - 1) / 360),
            Value::Time(1_735_689_600 + day * 86_400),
            Value::Int(7),
            Value::Int(100),
        ];
        sim.insert(&row).unwrap();
        n += 1;
    }
    let stats = sim.stats();
    let primary = &stats.indexes[0];
    println!(
        "{path}: {n} rows, PRIMARY leaf pages {}, fill {:.1}%",
        primary.leaf_pages, primary.fill_pct
    );
}
