//! What a table is created with besides its columns: the block id generator an ORM's
//! `sequence`/`table` strategy draws on, and PostgreSQL's per-relation `fillfactor`s. Plain
//! data; the engines apply them.

use serde::{Deserialize, Serialize};

/// Where an ORM's block id generator takes its blocks on a server (the `sequence` and
/// `table` key strategies): the ids themselves come from keylab's generator, which hands
/// them out in the same blocks; the server pays the round trip per block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdBlocks {
    /// `SEQUENCE` (a server sequence) or `TABLE` (a row of an id table).
    pub source: IdBlockSource,
    /// Values per block.
    pub block: u32,
}

/// The server object an [`IdBlocks`] generator draws on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IdBlockSource {
    /// `CREATE SEQUENCE ... INCREMENT BY block`, one `NEXTVAL` per block.
    Sequence,
    /// An id table, one locked read and update of its row per block.
    Table,
}

impl IdBlocks {
    /// The block generator of `variant`'s strategy, `None` for every other strategy.
    pub fn of(variant: keylab_keys::Variant, block: u32) -> Option<IdBlocks> {
        let source = match variant.strategy {
            keylab_keys::Strategy::Sequence => IdBlockSource::Sequence,
            keylab_keys::Strategy::Table => IdBlockSource::Table,
            _ => return None,
        };
        Some(IdBlocks { source, block: block.max(1) })
    }
}

/// PostgreSQL's `fillfactor` storage parameters a table and its indexes are created with
/// (`WITH (fillfactor = N)`); each `None`/absent one is the server's default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FillFactors {
    /// The table's (its heap's), 10..=100.
    pub table_pct: Option<u8>,
    /// The primary key's index, 10..=100.
    pub primary_key_pct: Option<u8>,
    /// Secondary indexes', by their name in the table, 10..=100.
    pub index_pct: Vec<(String, u8)>,
}

impl FillFactors {
    /// True when every value is the server's default.
    pub fn is_empty(&self) -> bool {
        self.table_pct.is_none() && self.primary_key_pct.is_none() && self.index_pct.is_empty()
    }

    /// The fillfactor given for secondary index `name`.
    pub fn of_index(&self, name: &str) -> Option<u8> {
        self.index_pct.iter().find(|(n, _)| n == name).map(|(_, p)| *p)
    }

    /// The engine setting `index_fillfactor_by_index` (`PRIMARY` and each named index), or
    /// `None` when no index has its own.
    pub fn by_index_setting(&self) -> Option<serde_json::Value> {
        if self.primary_key_pct.is_none() && self.index_pct.is_empty() {
            return None;
        }
        let mut own = serde_json::Map::new();
        if let Some(p) = self.primary_key_pct {
            own.insert("PRIMARY".into(), p.into());
        }
        for (name, p) in &self.index_pct {
            own.insert(name.clone(), (*p).into());
        }
        Some(own.into())
    }
}
