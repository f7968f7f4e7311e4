//! The serialized dictionary (SDI) that MySQL 8.0 and later keep inside every tablespace:
//! the table's name, columns and indexes as zlib-compressed JSON, in a small B-tree of its
//! own (page type `FIL_PAGE_SDI`). It is what lets `keylab inspect` name a MySQL file's
//! indexes, as `ibd2sdi` and ibdNinja do.
//!
//! It finds the SDI root from page 0, walks the SDI tree to its leaves, reads each record
//! (inline or spilled to SDI BLOB pages), inflates it and keeps the table's schema, name,
//! columns and indexes (index id and root page from `se_private_data`). It does not read
//! MySQL 5.7 or MariaDB files' dictionaries (they live in the server, not in the file),
//! compressed (`ROW_FORMAT=COMPRESSED`) or encrypted tablespaces. Malformed input never
//! panics: every read is bounds-checked and a problem becomes a note, not an error, since
//! the page figures stay valid without names.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;

use super::{be16, be32, be64, FIL_PAGE_DATA};

/// Page type of an SDI B-tree page (`fil0fil.h`).
pub const FIL_PAGE_SDI: u16 = 17853;
/// Page type of a page holding part of an SDI record spilled off-page.
pub const FIL_PAGE_SDI_BLOB: u16 = 18;
/// `FSP_FLAGS_MASK_SDI`: the tablespace has an SDI (MySQL's flag layout, bit 14).
const FSP_FLAGS_SDI: u32 = 1 << 14;
/// MariaDB's full_crc32 marker: its flag layout has no SDI bit.
const FSP_FLAGS_FULL_CRC32: u32 = 1 << 4;
/// Page 0 keeps the SDI version and root page after the extent descriptors and the space
/// reserved for encryption information (`fsp_header_get_sdi_offset`, `Encryption::INFO_MAX_SIZE`).
const ENCRYPTION_INFO_MAX_SIZE: usize = 115;
const SDI_VERSION: u32 = 1;
/// `FIL_PAGE_NEXT` and the "no page" value.
const FIL_PAGE_NEXT: usize = 12;
const FIL_NULL: u32 = u32::MAX;
/// Index page header fields (`page0page.h`), relative to `FIL_PAGE_DATA`.
const PAGE_N_RECS: usize = 16;
const PAGE_LEVEL: usize = 26;
/// Origin of the infimum record on a compact page (`PAGE_NEW_INFIMUM`).
const PAGE_NEW_INFIMUM: usize = 99;
/// An SDI record (`ibd2sdi.cc`, `dict0sdi.cc`): type (4 bytes), id (8), DB_TRX_ID (6),
/// DB_ROLL_PTR (7), uncompressed length (4), compressed length (4), then the zlib data.
const REC_TYPE: usize = 0;
const REC_ID: usize = 4;
const REC_UNCOMP_LEN: usize = 25;
const REC_COMP_LEN: usize = 29;
const REC_DATA: usize = 33;
/// A node pointer's child page number follows the key (type, id).
const REC_CHILD_PAGE: usize = 12;
/// Compact record header bytes before the origin (`REC_N_NEW_EXTRA_BYTES`).
const REC_EXTRA_BYTES: usize = 5;
/// Record status (3 low bits of the byte 3 before the origin) and the delete mark.
const REC_STATUS_ORDINARY: u8 = 0;
const REC_STATUS_SUPREMUM: u8 = 3;
const REC_INFO_DELETED: u8 = 0x20;
/// The 20-byte reference to an off-page field: page number at +4, length (low 32 bits of
/// an 8-byte field whose high half holds flags) at +16 (`BTR_EXTERN_*`).
const EXTERN_REF_BYTES: usize = 20;
const EXTERN_PAGE_NO: usize = 4;
const EXTERN_LEN_LOW: usize = 16;
/// SDI BLOB pages: part length and next page at `FIL_PAGE_DATA`, data after them.
const BLOB_PART_LEN: usize = 0;
const BLOB_NEXT_PAGE: usize = 4;
const BLOB_DATA: usize = 8;
/// SDI record types (`SDI_TYPE_TABLE`).
const SDI_TYPE_TABLE: u32 = 1;
/// Column `hidden` value for InnoDB's own columns (DB_TRX_ID, DB_ROLL_PTR, DB_ROW_ID):
/// `dd::Column::enum_hidden_type::HT_HIDDEN_SE`; 3 is a functional index's hidden column.
const HIDDEN_SE: u32 = 2;
const HIDDEN_SQL: u32 = 3;
/// A dictionary larger than this is not a table's; refuse it rather than allocate it.
const MAX_SDI_BYTES: u32 = 64 << 20;

/// The dictionary a MySQL 8.0+ tablespace carries about itself.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Sdi {
    /// The server that wrote it (`mysqld_version_id`, e.g. "8.0.40").
    pub mysql_version: Option<String>,
    /// The tables stored in the tablespace (one for file-per-table).
    pub tables: Vec<SdiTable>,
}

/// One table from the SDI.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SdiTable {
    /// Database (`schema_ref`).
    pub schema: String,
    /// Table name.
    pub name: String,
    /// User columns in order (InnoDB's own hidden columns left out).
    pub columns: Vec<SdiColumn>,
    /// Indexes; for a partitioned table, one entry per partition index.
    pub indexes: Vec<SdiIndex>,
}

/// One column from the SDI.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SdiColumn {
    /// Column name.
    pub name: String,
    /// SQL type as the server prints it (`column_type_utf8`, e.g. "varchar(45)").
    pub sql_type: String,
    /// NULL allowed.
    pub nullable: bool,
}

/// One index from the SDI.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SdiIndex {
    /// Index name as the dictionary keeps it (PRIMARY for the clustered index).
    pub name: String,
    /// Added by the server, not declared: the clustered index on DB_ROW_ID of a table
    /// without a key, or a full-text table's FTS_DOC_ID_INDEX.
    pub hidden: bool,
    /// InnoDB's index id (the pages' `PAGE_INDEX_ID`), when `se_private_data` has one.
    pub index_id: Option<u64>,
    /// Root page number.
    pub root_page: Option<u32>,
    /// The partition it belongs to, for a partitioned table.
    pub partition: Option<String>,
}

impl Sdi {
    /// The index with this id, if the dictionary names it.
    pub fn index(&self, index_id: u64) -> Option<&SdiIndex> {
        self.tables.iter().flat_map(|t| &t.indexes).find(|ix| ix.index_id == Some(index_id))
    }
}

/// Where page 0 says the SDI is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SdiRoot {
    /// The file has no SDI (MySQL 5.7, MariaDB).
    Absent,
    /// Its root page number.
    Page(u32),
    /// The flags say SDI but page 0's pointer is unusable.
    Bad(String),
}

/// Reads the SDI pointer from page 0 (`fsp_header_get_sdi_offset`): after the XDES array
/// (`xdes_entries` entries of `xdes_entry_bytes`) and the encryption information.
pub(crate) fn sdi_root(
    page0: &[u8],
    flags: u32,
    xdes_entries: usize,
    xdes_entry_bytes: usize,
) -> SdiRoot {
    if flags & FSP_FLAGS_FULL_CRC32 != 0 || flags & FSP_FLAGS_SDI == 0 {
        return SdiRoot::Absent;
    }
    let at = super::XDES_ARR_OFFSET + xdes_entries * xdes_entry_bytes + ENCRYPTION_INFO_MAX_SIZE;
    match (be32(page0, at), be32(page0, at + 4)) {
        // No pointer at all: the bit belongs to another flag layout (MariaDB 10.1's).
        (Some(0), Some(0)) => SdiRoot::Absent,
        (Some(SDI_VERSION), Some(root)) if root > 0 && root != FIL_NULL => SdiRoot::Page(root),
        (Some(SDI_VERSION), Some(root)) => SdiRoot::Bad(format!("SDI root page {root} on page 0")),
        (Some(v), _) => SdiRoot::Bad(format!("unknown SDI version {v} on page 0")),
        _ => SdiRoot::Bad("page 0 too short for the SDI pointer".into()),
    }
}

/// Reads the SDI tree rooted at `root` from the SDI and SDI BLOB pages kept by page number.
/// Returns what could be read and a note for each problem.
pub(crate) fn read_sdi(root: u32, pages: &BTreeMap<u64, Vec<u8>>) -> (Sdi, Vec<String>) {
    let mut notes = Vec::new();
    let mut sdi = Sdi::default();
    let records = match leaf_records(root, pages) {
        Ok(records) => records,
        Err((records, why)) => {
            notes.push(format!("SDI: {why}"));
            records
        }
    };
    for rec in records {
        match decode_record(&rec, pages) {
            Ok(Some((version, table))) => {
                sdi.mysql_version = sdi.mysql_version.or(version);
                sdi.tables.push(table);
            }
            Ok(None) => {}
            Err(why) => notes.push(format!("SDI record (type {}, id {}): {why}", rec.ty, rec.id)),
        }
    }
    (sdi, notes)
}

/// An SDI record's fields, with its data still compressed (inline or a reference).
struct RawRecord {
    ty: u32,
    id: u64,
    uncomp_len: u32,
    comp_len: u32,
    /// The bytes stored in the record (the whole data, or a prefix and the reference).
    local: Vec<u8>,
    external: bool,
}

/// An SDI B-tree page: the page bytes after checking type and length.
fn sdi_page(pages: &BTreeMap<u64, Vec<u8>>, no: u32) -> Result<&[u8], String> {
    let page = pages.get(&u64::from(no)).ok_or(format!("page {no} is not an SDI page"))?;
    (be16(page, super::FIL_PAGE_TYPE) == Some(FIL_PAGE_SDI))
        .then_some(page.as_slice())
        .ok_or(format!("page {no} is not an SDI page"))
}

/// The next record's origin in a compact page: a relative offset, modulo the page size
/// (`rec_get_next_offs`).
fn next_rec(page: &[u8], rec: usize) -> Option<usize> {
    let rel = be16(page, rec.checked_sub(2)?)?;
    let next = (rec + usize::from(rel)).checked_rem(page.len())?;
    (rel != 0 && next >= REC_EXTRA_BYTES + 2).then_some(next)
}

/// Walks from the root down the leftmost pointers to the leaf level, then along the leaves
/// (`FIL_PAGE_NEXT`), collecting live records. On a problem, returns what it had.
fn leaf_records(
    root: u32,
    pages: &BTreeMap<u64, Vec<u8>>,
) -> Result<Vec<RawRecord>, (Vec<RawRecord>, String)> {
    let mut out = Vec::new();
    let mut page_no = root;
    let mut page = sdi_page(pages, root).map_err(|e| (Vec::new(), e))?;
    let mut level = be16(page, FIL_PAGE_DATA + PAGE_LEVEL).unwrap_or(0);
    if be16(page, FIL_PAGE_DATA + PAGE_N_RECS) == Some(0) {
        return Ok(out);
    }
    let mut seen = BTreeSet::from([page_no]);
    while level > 0 {
        let first = next_rec(page, PAGE_NEW_INFIMUM)
            .ok_or((Vec::new(), format!("page {page_no}: bad infimum")))?;
        let child = be32(page, first + REC_CHILD_PAGE)
            .ok_or((Vec::new(), format!("page {page_no}: bad node pointer")))?;
        page = sdi_page(pages, child).map_err(|e| (Vec::new(), e))?;
        let child_level = be16(page, FIL_PAGE_DATA + PAGE_LEVEL).unwrap_or(u16::MAX);
        if child_level != level - 1 || !seen.insert(child) {
            return Err((Vec::new(), format!("page {child}: not the level below page {page_no}")));
        }
        (page_no, level) = (child, child_level);
    }
    let mut rec = next_rec(page, PAGE_NEW_INFIMUM);
    // Each step moves to another record or page; a loop in corrupt pointers ends here.
    let mut steps = 0usize;
    loop {
        steps += 1;
        let Some(at) = rec.filter(|_| steps < 1 << 20) else {
            return Err((out, format!("page {page_no}: broken record chain")));
        };
        let Some(&info) = page.get(at - 3) else {
            return Err((out, format!("page {page_no}: record outside the page")));
        };
        match info & 7 {
            REC_STATUS_SUPREMUM => {
                let next = be32(page, FIL_PAGE_NEXT).unwrap_or(FIL_NULL);
                if next == FIL_NULL {
                    return Ok(out);
                }
                if !seen.insert(next) {
                    return Err((out, format!("page {next}: leaf chain loops")));
                }
                page = match sdi_page(pages, next) {
                    Ok(p) => p,
                    Err(why) => return Err((out, why)),
                };
                page_no = next;
                rec = next_rec(page, PAGE_NEW_INFIMUM);
                continue;
            }
            REC_STATUS_ORDINARY => {}
            other => return Err((out, format!("page {page_no}: record status {other} on a leaf"))),
        }
        let deleted = page.get(at - REC_EXTRA_BYTES).is_some_and(|b| b & REC_INFO_DELETED != 0);
        if !deleted {
            match raw_record(page, at) {
                Some(r) => out.push(r),
                None => {
                    return Err((out, format!("page {page_no}: record at {at} overruns the page")))
                }
            }
        }
        rec = next_rec(page, at);
    }
}

/// Reads one leaf record's fields. The data is the only variable-length field and none is
/// nullable, so its length is the byte (or two) just before the 5-byte header.
fn raw_record(page: &[u8], at: usize) -> Option<RawRecord> {
    let b1 = *page.get(at.checked_sub(REC_EXTRA_BYTES + 1)?)?;
    // One length byte up to 127; otherwise two, with the off-page flag in 0x40.
    let (len, external) = if b1 & 0x80 != 0 {
        let b2 = *page.get(at.checked_sub(REC_EXTRA_BYTES + 2)?)?;
        ((usize::from(b1 & 0x3f) << 8) | usize::from(b2), b1 & 0x40 != 0)
    } else {
        (usize::from(b1), false)
    };
    Some(RawRecord {
        ty: be32(page, at + REC_TYPE)?,
        id: be64(page, at + REC_ID)?,
        uncomp_len: be32(page, at + REC_UNCOMP_LEN)?,
        comp_len: be32(page, at + REC_COMP_LEN)?,
        local: page.get(at + REC_DATA..at + REC_DATA + len)?.to_vec(),
        external,
    })
}

/// The compressed bytes of a record: inline, or its local prefix then the SDI BLOB chain.
fn compressed_bytes(rec: &RawRecord, pages: &BTreeMap<u64, Vec<u8>>) -> Result<Vec<u8>, String> {
    if !rec.external {
        return Ok(rec.local.clone());
    }
    let Some(prefix_len) = rec.local.len().checked_sub(EXTERN_REF_BYTES) else {
        return Err("off-page reference shorter than 20 bytes".into());
    };
    let reference = &rec.local[prefix_len..];
    let mut next = be32(reference, EXTERN_PAGE_NO).unwrap_or(FIL_NULL);
    let want = be32(reference, EXTERN_LEN_LOW).unwrap_or(0) as usize;
    let mut data = rec.local[..prefix_len].to_vec();
    let mut seen = BTreeSet::new();
    while next != FIL_NULL {
        let page = pages
            .get(&u64::from(next))
            .filter(|p| be16(p, super::FIL_PAGE_TYPE) == Some(FIL_PAGE_SDI_BLOB))
            .ok_or(format!("page {next} is not an SDI BLOB page"))?;
        if !seen.insert(next) {
            return Err(format!("SDI BLOB chain loops at page {next}"));
        }
        let part = be32(page, FIL_PAGE_DATA + BLOB_PART_LEN).unwrap_or(0) as usize;
        let start = FIL_PAGE_DATA + BLOB_DATA;
        let bytes = page
            .get(start..start.saturating_add(part))
            .ok_or(format!("SDI BLOB page {next}: part of {part} bytes overruns the page"))?;
        data.extend_from_slice(bytes);
        if data.len() > prefix_len + want {
            return Err(format!("SDI BLOB chain longer than its {want} bytes"));
        }
        next = be32(page, FIL_PAGE_DATA + BLOB_NEXT_PAGE).unwrap_or(FIL_NULL);
    }
    Ok(data)
}

/// Decodes a table record: its server version and table; `None` for other record types
/// (the tablespace's own record).
fn decode_record(
    rec: &RawRecord,
    pages: &BTreeMap<u64, Vec<u8>>,
) -> Result<Option<(Option<String>, SdiTable)>, String> {
    if rec.ty != SDI_TYPE_TABLE {
        return Ok(None);
    }
    let compressed = compressed_bytes(rec, pages)?;
    if compressed.len() != rec.comp_len as usize {
        return Err(format!(
            "{} compressed bytes stored, the record says {}",
            compressed.len(),
            rec.comp_len
        ));
    }
    if rec.uncomp_len > MAX_SDI_BYTES {
        return Err(format!("implausible length {} B", rec.uncomp_len));
    }
    let mut json = Vec::with_capacity(rec.uncomp_len as usize);
    flate2::read::ZlibDecoder::new(&compressed[..])
        .take(u64::from(rec.uncomp_len) + 1)
        .read_to_end(&mut json)
        .map_err(|e| format!("cannot inflate: {e}"))?;
    if json.len() != rec.uncomp_len as usize {
        return Err(format!("inflates to {} B, the record says {}", json.len(), rec.uncomp_len));
    }
    let doc: SdiDoc = serde_json::from_slice(&json).map_err(|e| format!("bad JSON: {e}"))?;
    Ok(Some((doc.mysqld_version_id.map(version_text), table_from(doc.dd_object))))
}

/// "80040" → "8.0.40" (`MYSQL_VERSION_ID` is major·10000 + minor·100 + patch).
fn version_text(id: u64) -> String {
    format!("{}.{}.{}", id / 10000, id / 100 % 100, id % 100)
}

/// `id=154;root=4;space_id=2;...` → (154, 4).
fn ids_from(se_private_data: &str) -> (Option<u64>, Option<u32>) {
    let field = |key: &str| {
        se_private_data
            .split(';')
            .find_map(|kv| kv.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
            .and_then(|v| v.parse::<u64>().ok())
    };
    (field("id"), field("root").and_then(|r| u32::try_from(r).ok()))
}

fn table_from(t: DdTable) -> SdiTable {
    let columns = t
        .columns
        .iter()
        .filter(|c| c.hidden != HIDDEN_SE && c.hidden != HIDDEN_SQL)
        .map(|c| SdiColumn {
            name: c.name.clone(),
            sql_type: c.column_type_utf8.clone(),
            nullable: c.is_nullable,
        })
        .collect();
    let mut indexes: Vec<SdiIndex> = t
        .indexes
        .iter()
        .map(|ix| {
            let (index_id, root_page) = ids_from(&ix.se_private_data);
            SdiIndex {
                name: ix.name.clone(),
                hidden: ix.hidden,
                index_id,
                root_page,
                partition: None,
            }
        })
        .collect();
    // A partitioned table's indexes live in its partitions (and subpartitions), each naming
    // the table index it implements by position (`index_opx`).
    let mut parts: Vec<&DdPartition> = t.partitions.iter().collect();
    while let Some(p) = parts.pop() {
        parts.extend(p.subpartitions.iter());
        for pix in &p.indexes {
            let (index_id, root_page) = ids_from(&pix.se_private_data);
            let table_index = t.indexes.get(pix.index_opx);
            indexes.push(SdiIndex {
                name: table_index.map_or("?", |ix| ix.name.as_str()).to_string(),
                hidden: table_index.is_some_and(|ix| ix.hidden),
                index_id,
                root_page,
                partition: Some(p.name.clone()),
            });
        }
    }
    SdiTable { schema: t.schema_ref, name: t.name, columns, indexes }
}

/// The parts of the SDI JSON keylab reads; everything else is ignored, anything missing
/// defaults, so a newer server's extra fields do not stop it.
#[derive(Deserialize, Default)]
#[serde(default)]
struct SdiDoc {
    mysqld_version_id: Option<u64>,
    dd_object: DdTable,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct DdTable {
    name: String,
    schema_ref: String,
    columns: Vec<DdColumn>,
    indexes: Vec<DdIndex>,
    partitions: Vec<DdPartition>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct DdColumn {
    name: String,
    column_type_utf8: String,
    is_nullable: bool,
    hidden: u32,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct DdIndex {
    name: String,
    hidden: bool,
    se_private_data: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct DdPartition {
    name: String,
    indexes: Vec<DdPartitionIndex>,
    subpartitions: Vec<DdPartition>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct DdPartitionIndex {
    index_opx: usize,
    se_private_data: String,
}

#[cfg(test)]
mod tests;
