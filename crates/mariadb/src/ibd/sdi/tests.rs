//! SDI pages built by hand: a two-level tree, a deleted record, a record spilled to a chain
//! of SDI BLOB pages, and corrupt variants of each, which must give notes and never panic.

use super::*;
use std::io::Write;

const PS: usize = 16384;

fn put16(p: &mut [u8], at: usize, v: u16) {
    p[at..at + 2].copy_from_slice(&v.to_be_bytes());
}
fn put32(p: &mut [u8], at: usize, v: u32) {
    p[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

/// The zlib-compressed SDI JSON of a table `db.t` with two columns and two indexes.
fn table_json(name: &str) -> (Vec<u8>, u32) {
    let doc = serde_json::json!({
        "mysqld_version_id": 80403,
        "dd_object_type": "Table",
        "dd_object": {
            "name": name, "schema_ref": "db",
            "columns": [
                {"name": "id", "column_type_utf8": "binary(16)", "is_nullable": false, "hidden": 1},
                {"name": "note", "column_type_utf8": "text", "is_nullable": true, "hidden": 1},
                {"name": "DB_TRX_ID", "column_type_utf8": "", "is_nullable": false, "hidden": 2}
            ],
            "indexes": [
                {"name": "PRIMARY", "se_private_data": "id=70;root=4;space_id=9;"},
                {"name": "k_note", "hidden": true, "se_private_data": "id=71;root=5;space_id=9;"}
            ],
            // Filler, so that the compressed record is long enough to need a BLOB chain.
            "comment": (0..3000).map(|i| format!("{:x}", i * 7919 % 65521)).collect::<String>()
        }
    });
    let json = serde_json::to_vec(&doc).unwrap();
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&json).unwrap();
    (z.finish().unwrap(), json.len() as u32)
}

/// A record's bytes for [`page`]: the fields after the origin, the length bytes before it.
struct Rec {
    status: u8,
    deleted: bool,
    /// Bytes before the 5-byte header (variable-length field lengths, reversed).
    lens: Vec<u8>,
    body: Vec<u8>,
}

/// An SDI leaf record holding `data` inline (`ext` = None) or a prefix and a reference.
fn leaf_rec(ty: u32, id: u64, comp: &[u8], uncomp: u32, ext: Option<(u32, usize)>) -> Rec {
    let mut body = Vec::new();
    body.extend_from_slice(&ty.to_be_bytes());
    body.extend_from_slice(&id.to_be_bytes());
    body.extend_from_slice(&[0; 13]); // DB_TRX_ID, DB_ROLL_PTR
    body.extend_from_slice(&uncomp.to_be_bytes());
    body.extend_from_slice(&(comp.len() as u32).to_be_bytes());
    let local_len = match ext {
        None => {
            body.extend_from_slice(comp);
            comp.len()
        }
        Some((first_page, prefix)) => {
            body.extend_from_slice(&comp[..prefix]);
            body.extend_from_slice(&9u32.to_be_bytes()); // space id
            body.extend_from_slice(&first_page.to_be_bytes());
            body.extend_from_slice(&0u32.to_be_bytes());
            body.extend_from_slice(&((comp.len() - prefix) as u64).to_be_bytes());
            prefix + 20
        }
    };
    let lens = if local_len < 128 && ext.is_none() {
        vec![local_len as u8]
    } else {
        let flag = if ext.is_some() { 0xc0 } else { 0x80 };
        vec![(local_len & 0xff) as u8, flag | (local_len >> 8) as u8]
    };
    Rec { status: REC_STATUS_ORDINARY, deleted: false, lens, body }
}

/// An SDI B-tree page at `level` holding `recs` in order, then `next` (`FIL_NULL` for none).
fn page(level: u16, recs: &[Rec], next: u32) -> Vec<u8> {
    let mut p = vec![0u8; PS];
    put16(&mut p, super::super::FIL_PAGE_TYPE, FIL_PAGE_SDI);
    put32(&mut p, FIL_PAGE_NEXT, next);
    put16(&mut p, FIL_PAGE_DATA + PAGE_N_RECS, recs.len() as u16);
    put16(&mut p, FIL_PAGE_DATA + PAGE_LEVEL, level);
    p[PAGE_NEW_INFIMUM - 3] = 2;
    let supremum = PAGE_NEW_INFIMUM + 13;
    p[supremum - 3] = REC_STATUS_SUPREMUM;
    let mut prev = PAGE_NEW_INFIMUM;
    let mut at = 128;
    for r in recs {
        let origin = at + r.lens.len() + REC_EXTRA_BYTES;
        p[at..at + r.lens.len()].copy_from_slice(&r.lens);
        p[origin - 5] = if r.deleted { REC_INFO_DELETED } else { 0 };
        p[origin - 3] = r.status;
        p[origin..origin + r.body.len()].copy_from_slice(&r.body);
        put16(&mut p, prev - 2, (origin - prev) as u16);
        prev = origin;
        at = origin + r.body.len();
    }
    put16(&mut p, prev - 2, (supremum as i64 - prev as i64) as u16);
    p
}

fn node_ptr(ty: u32, id: u64, child: u32) -> Rec {
    let mut body = ty.to_be_bytes().to_vec();
    body.extend_from_slice(&id.to_be_bytes());
    body.extend_from_slice(&child.to_be_bytes());
    Rec { status: 1, deleted: false, lens: vec![], body }
}

fn blob_page(part: &[u8], next: u32) -> Vec<u8> {
    let mut p = vec![0u8; PS];
    put16(&mut p, super::super::FIL_PAGE_TYPE, FIL_PAGE_SDI_BLOB);
    put32(&mut p, FIL_PAGE_DATA + BLOB_PART_LEN, part.len() as u32);
    put32(&mut p, FIL_PAGE_DATA + BLOB_NEXT_PAGE, next);
    p[FIL_PAGE_DATA + BLOB_DATA..FIL_PAGE_DATA + BLOB_DATA + part.len()].copy_from_slice(part);
    p
}

/// Root page 3 (level 1) over leaves 4 and 5: leaf 4 holds the tablespace record and a
/// deleted table record; leaf 5 holds table `t1` inline and table `t2` spilled to BLOB
/// pages 6 → 7 after a 768-byte prefix.
fn two_level_sdi() -> BTreeMap<u64, Vec<u8>> {
    let (z1, n1) = table_json("t1");
    let (z2, n2) = table_json("t2");
    assert!(z2.len() > 1000, "the filler must make the record long: {}", z2.len());
    let (ts, ts_len) = (b"not json, not a table".to_vec(), 21);
    let mut gone = leaf_rec(1, 5, &z1, n1, None);
    gone.deleted = true;
    let half = 768 + (z2.len() - 768) / 2;
    let mut pages = BTreeMap::new();
    pages.insert(3, page(1, &[node_ptr(1, 0, 4), node_ptr(1, 6, 5)], FIL_NULL));
    pages.insert(4, page(0, &[leaf_rec(2, 1, &ts, ts_len, None), gone], 5));
    pages.insert(
        5,
        page(
            0,
            &[leaf_rec(1, 6, &z1, n1, None), leaf_rec(1, 7, &z2, n2, Some((6, 768)))],
            FIL_NULL,
        ),
    );
    pages.insert(6, blob_page(&z2[768..half], 7));
    pages.insert(7, blob_page(&z2[half..], FIL_NULL));
    pages
}

#[test]
fn reads_a_two_level_tree_with_a_spilled_record() {
    let (sdi, notes) = read_sdi(3, &two_level_sdi());
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(sdi.mysql_version.as_deref(), Some("8.4.3"));
    let names: Vec<&str> = sdi.tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["t1", "t2"], "the deleted record is skipped");
    let t = &sdi.tables[1];
    assert_eq!(t.schema, "db");
    assert_eq!(
        t.columns,
        [
            SdiColumn { name: "id".into(), sql_type: "binary(16)".into(), nullable: false },
            SdiColumn { name: "note".into(), sql_type: "text".into(), nullable: true },
        ]
    );
    assert_eq!((t.indexes[1].name.as_str(), t.indexes[1].hidden), ("k_note", true));
    assert!(!t.indexes[0].hidden);
    assert_eq!((t.indexes[1].index_id, t.indexes[1].root_page), (Some(71), Some(5)));
    assert_eq!(sdi.index(70).map(|i| i.name.as_str()), Some("PRIMARY"));
}

#[test]
fn corrupt_trees_give_notes() {
    let (z, n) = table_json("t");
    // A short BLOB chain: the record says more compressed bytes than it has.
    let mut pages = two_level_sdi();
    pages.remove(&7);
    let (sdi, notes) = read_sdi(3, &pages);
    assert_eq!(sdi.tables.len(), 1);
    assert!(notes[0].contains("page 7 is not an SDI BLOB page"), "{notes:?}");
    // A record whose lengths disagree with its data.
    let pages = BTreeMap::from([(3, page(0, &[leaf_rec(1, 1, &z, n + 1, None)], FIL_NULL))]);
    let (_, notes) = read_sdi(3, &pages);
    assert!(notes[0].contains("inflates to"), "{notes:?}");
    // A root that is not an SDI page, and a leaf chain that loops.
    assert!(read_sdi(9, &pages).1[0].contains("page 9 is not an SDI page"));
    let pages = BTreeMap::from([(3, page(0, &[leaf_rec(1, 1, &z, n, None)], 3))]);
    let (sdi, notes) = read_sdi(3, &pages);
    assert_eq!(sdi.tables.len(), 1);
    assert!(notes[0].contains("loops"), "{notes:?}");
}

#[test]
fn sdi_pointer_on_page_0() {
    let mut p0 = vec![0u8; PS];
    let at = super::super::XDES_ARR_OFFSET + 256 * 40 + ENCRYPTION_INFO_MAX_SIZE;
    assert_eq!(at, 10505, "MySQL 8.0's offset for 16 KiB pages");
    assert_eq!(sdi_root(&p0, 0x4021, 256, 40), SdiRoot::Absent, "flag without a pointer");
    put32(&mut p0, at, 1);
    put32(&mut p0, at + 4, 3);
    assert_eq!(sdi_root(&p0, 0x4021, 256, 40), SdiRoot::Page(3));
    assert_eq!(sdi_root(&p0, 0x21, 256, 40), SdiRoot::Absent);
    assert_eq!(sdi_root(&p0, 0x4015, 256, 40), SdiRoot::Absent, "MariaDB full_crc32");
    put32(&mut p0, at, 2);
    assert!(matches!(sdi_root(&p0, 0x4021, 256, 40), SdiRoot::Bad(_)));
}

#[test]
fn small_parsers() {
    assert_eq!(version_text(80040), "8.0.40");
    assert_eq!(version_text(90100), "9.1.0");
    assert_eq!(ids_from("id=154;root=4;space_id=2;"), (Some(154), Some(4)));
    assert_eq!(ids_from("space_id=2;table_id=1;"), (None, None));
    assert_eq!(ids_from("id=x;root=99999999999;"), (None, None));
}

proptest::proptest! {
    #[test]
    fn never_panics_on_corrupt_sdi_pages(
        edits in proptest::collection::vec((3u64..8, 0usize..PS, proptest::num::u8::ANY), 0..48),
        cut in proptest::option::of((3u64..8, 0usize..PS)),
    ) {
        let mut pages = two_level_sdi();
        for (no, at, v) in edits {
            if let Some(p) = pages.get_mut(&no) {
                p[at] = v;
            }
        }
        if let Some((no, len)) = cut {
            if let Some(p) = pages.get_mut(&no) {
                p.truncate(len);
            }
        }
        let _ = read_sdi(3, &pages);
    }
}

/// A partitioned table's file carries the whole table; its partitions' indexes hold the ids
/// and name the table index they implement by position.
#[test]
fn partition_indexes_take_the_table_index_names() {
    let doc: SdiDoc = serde_json::from_value(serde_json::json!({
        "mysqld_version_id": 80040,
        "dd_object": {
            "name": "p", "schema_ref": "db",
            "indexes": [{"name": "PRIMARY", "se_private_data": ""}, {"name": "k", "hidden": false}],
            "partitions": [
                {"name": "p0", "indexes": [
                    {"index_opx": 0, "se_private_data": "id=80;root=4;"},
                    {"index_opx": 1, "se_private_data": "id=81;root=5;"}]},
                {"name": "p1", "subpartitions": [{"name": "p1sp0", "indexes": [
                    {"index_opx": 1, "se_private_data": "id=91;root=5;"},
                    {"index_opx": 7, "se_private_data": "id=92;root=6;"}]}]}
            ]
        }
    }))
    .unwrap();
    let t = table_from(doc.dd_object);
    let sdi = Sdi { mysql_version: None, tables: vec![t] };
    let named = |id| sdi.index(id).map(|ix| (ix.name.as_str(), ix.partition.as_deref()));
    assert_eq!(named(80), Some(("PRIMARY", Some("p0"))));
    assert_eq!(named(81), Some(("k", Some("p0"))));
    assert_eq!(named(91), Some(("k", Some("p1sp0"))));
    assert_eq!(named(92), Some(("?", Some("p1sp0"))), "an index_opx past the table's indexes");
}
