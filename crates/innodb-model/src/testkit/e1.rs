//! E1's table (docs/experiments.md), used by the unit tests.

/// `id <id_ty> PRIMARY KEY, data VARCHAR(255)` (pk placement) or `pk BIGINT AUTO_INCREMENT,
/// id <id_ty>, data VARCHAR(255), KEY k_id (id)` (secondary placement); utf8mb4, DYNAMIC.
pub fn e1_table(id_ty: keylab_schema::ColumnType, secondary: bool) -> keylab_schema::Table {
    use keylab_schema::{Charset, Column, ColumnType, Index, RowFormat, Table};
    let data =
        Column::new("data", ColumnType::VarChar { chars: 255, charset: Charset::Utf8mb4 }, true);
    let id = Column::new("id", id_ty, false);
    let (columns, indexes) = if secondary {
        let pk = Column::new("pk", ColumnType::BigInt { unsigned: false }, false);
        (vec![pk, id, data], vec![Index::new("k_id", vec![1], false)])
    } else {
        (vec![id, data], vec![])
    };
    Table {
        name: "t".into(),
        columns,
        primary_key: vec![0],
        auto_increment: secondary,
        indexes,
        row_format: RowFormat::Dynamic,
        partitioning: None,
    }
}
