//! A bounds-checked walk of an LMDB data file's pages, in Rust, before LMDB
//! (which trusts its pages and keeps no checksums) follows them.
//!
//! It checks, for the state committed by one transaction: both meta pages,
//! then every page reachable from the free-page tree and from the main
//! tree and its named trees: page numbers inside the file and each page
//! reached once, page headers (number, type, bounds), every node inside its
//! page, branch depths, overflow runs inside the file, free-list records,
//! entry counts. A file that passes can be read by LMDB without reading
//! outside the file or following a wrong page type. It does not check key
//! order (a misordered page gives wrong answers, not a crash).

use std::fs::File;

use crate::error::{Result, StoreError, StoreErrorKind};

const PAGEHDRSZ: usize = 16;
const NODESIZE: usize = 8;
const P_BRANCH: u16 = 0x01;
const P_LEAF: u16 = 0x02;
const P_OVERFLOW: u16 = 0x04;
const P_META: u16 = 0x08;
const F_BIGDATA: u16 = 0x01;
const F_SUBDATA: u16 = 0x02;
const MDB_DUPSORT: u16 = 0x04;
const MDB_DUPFIXED: u16 = 0x10;
const P_INVALID: u64 = u64::MAX;
const CURSOR_STACK: u16 = 32;
const LMDB_MAGIC: u32 = 0xBEEF_C0DE;
const DATA_VERSION: u32 = 1;
/// Offset of `mm_dbs` in a meta page (header 16 + magic 4 + version 4 +
/// address 8 + mapsize 8).
const META_DBS: usize = PAGEHDRSZ + 24;
const DB_SIZE: usize = 48;

/// One of LMDB's `MDB_db` records.
#[derive(Debug, Clone, Copy)]
struct Db {
    flags: u16,
    depth: u16,
    entries: u64,
    root: u64,
}

fn damaged(msg: impl Into<String>) -> StoreError {
    StoreError::new(
        StoreErrorKind::Corrupt,
        format!("the store is damaged: {}", msg.into()),
    )
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    b.get(at..at + 2).map(|s| u16::from_le_bytes([s[0], s[1]]))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    let s = b.get(at..at + 8)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Some(u64::from_le_bytes(a))
}

fn db_at(b: &[u8], at: usize) -> Option<Db> {
    Some(Db {
        flags: u16_at(b, at + 4)?,
        depth: u16_at(b, at + 6)?,
        entries: u64_at(b, at + 32)?,
        root: u64_at(b, at + 40)?,
    })
}

#[derive(Clone, Copy)]
struct Meta {
    txnid: u64,
    last_pg: u64,
    free: Db,
    main: Db,
}

/// Reads and checks the meta page at `page` (0 or 1) of size `ps`.
fn meta_at(file: &[u8], page: usize, ps: usize) -> Result<Meta> {
    let off = page * ps;
    let p = file
        .get(off..off + ps)
        .ok_or_else(|| damaged("a meta page is missing"))?;
    let bad = || damaged("bad meta page");
    let flags = u16_at(p, 10).ok_or_else(bad)?;
    if u64_at(p, 0) != Some(page as u64)
        || flags & P_META == 0
        || u32_at(p, PAGEHDRSZ) != Some(LMDB_MAGIC)
        || u32_at(p, PAGEHDRSZ + 4) != Some(DATA_VERSION)
        || u32_at(p, META_DBS) != Some(ps as u32)
    {
        return Err(bad());
    }
    let free = db_at(p, META_DBS).ok_or_else(bad)?;
    let main = db_at(p, META_DBS + DB_SIZE).ok_or_else(bad)?;
    let last_pg = u64_at(p, META_DBS + 2 * DB_SIZE).ok_or_else(bad)?;
    let txnid = u64_at(p, META_DBS + 2 * DB_SIZE + 8).ok_or_else(bad)?;
    Ok(Meta {
        txnid,
        last_pg,
        free,
        main,
    })
}

/// The page size recorded in the file's first meta page.
fn page_size(file: &[u8]) -> Result<usize> {
    let ps = u32_at(file, META_DBS).ok_or_else(|| damaged("the file is too short"))? as usize;
    if !ps.is_power_of_two() || !(512..=65536).contains(&ps) {
        return Err(damaged(format!("bad page size {ps}")));
    }
    Ok(ps)
}

fn map_file(file: &File) -> Result<memmap2::Mmap> {
    // SAFETY: a read-only, private view of the file. Every access below is
    // bounds-checked against the mapped length. The file must not be
    // truncated while mapped (as for LMDB's own map of it); the caller pins
    // the pages it walks with a read transaction, so LMDB writers do not
    // rewrite them meanwhile.
    unsafe { memmap2::Mmap::map(file) }.map_err(StoreError::from)
}

/// The meta page LMDB reads for transaction `txnid` (0 = the newest),
/// checked: LMDB reads the state of transaction `t` from meta page `t & 1`
/// (the id comes from the lock file, set at open from the newer meta page),
/// so a meta page holding a transaction of the other parity would make
/// LMDB follow the other page's trees; such a file is damaged.
fn committed_meta(map: &[u8], txnid: u64) -> Result<(usize, Meta)> {
    let ps = page_size(map)?;
    let m0 = meta_at(map, 0, ps)?;
    let m1 = meta_at(map, 1, ps)?;
    let t = match txnid {
        0 => m0.txnid.max(m1.txnid),
        t => t,
    };
    let meta = if t & 1 == 0 { m0 } else { m1 };
    if meta.txnid == t {
        return Ok((ps, meta));
    }
    Err(if txnid != 0 && m0.txnid != t && m1.txnid != t {
        StoreError::new(
            StoreErrorKind::Busy,
            format!("transaction {t} is no longer in the meta pages"),
        )
    } else {
        damaged(format!(
            "transaction {t} is in meta page {} but LMDB reads meta page {}",
            1 - (t & 1),
            t & 1
        ))
    })
}

/// The cheap (O(1)) checks of the meta page LMDB reads for transaction
/// `txnid` (see [`committed_meta`]).
pub(crate) fn check_meta(file: &File, txnid: u64) -> Result<()> {
    committed_meta(&map_file(file)?, txnid).map(|_| ())
}

/// Walks the pages of the state committed by transaction `txnid` (one of
/// the two in the meta pages; 0 = the newest). The caller must hold a read
/// transaction on that state (or no writer may run).
pub(crate) fn verify_file(file: &File, txnid: u64) -> Result<()> {
    let map = map_file(file)?;
    let (ps, meta) = committed_meta(&map, txnid)?;
    let file_pages = (map.len() / ps) as u64;
    let pages = file_pages.min(meta.last_pg.saturating_add(1));
    let mut w = Walker {
        map: &map,
        ps,
        pages,
        last_pg: meta.last_pg,
        seen: vec![0u64; (pages as usize).div_ceil(64)],
    };
    w.mark(0)?;
    w.mark(1)?;
    // The free-page tree: records are (txn id, list of page numbers).
    w.tree(meta.free, Kind::Free)?;
    w.tree(meta.main, Kind::Main)?;
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Free,
    Main,
    Named,
}

struct Walker<'a> {
    map: &'a [u8],
    ps: usize,
    /// Pages that may be reached: below both the file's end and `last_pg + 1`.
    pages: u64,
    /// The last page number of the database (free pages may lie past the
    /// file's end).
    last_pg: u64,
    seen: Vec<u64>,
}

impl<'a> Walker<'a> {
    fn mark(&mut self, pgno: u64) -> Result<()> {
        if pgno >= self.pages {
            return Err(damaged(format!(
                "page {pgno} is past the end of the file or of the database ({} pages)",
                self.pages
            )));
        }
        let (i, bit) = ((pgno / 64) as usize, 1u64 << (pgno % 64));
        if self.seen[i] & bit != 0 {
            return Err(damaged(format!("page {pgno} is reached twice")));
        }
        self.seen[i] |= bit;
        Ok(())
    }

    fn page(&self, pgno: u64) -> &'a [u8] {
        let off = pgno as usize * self.ps;
        &self.map[off..off + self.ps]
    }

    /// Walks one tree; returns its record count (checked against `db`).
    fn tree(&mut self, db: Db, kind: Kind) -> Result<u64> {
        if kind != Kind::Free && db.flags & (MDB_DUPSORT | MDB_DUPFIXED) != 0 {
            return Err(StoreError::new(
                StoreErrorKind::NotAStore,
                "not a roving store (a database with duplicate keys)",
            ));
        }
        if db.root == P_INVALID {
            if db.depth != 0 || db.entries != 0 {
                return Err(damaged("an empty tree with a depth or entries"));
            }
            return Ok(0);
        }
        if db.depth == 0 || db.depth > CURSOR_STACK {
            return Err(damaged(format!("bad tree depth {}", db.depth)));
        }
        let mut entries = 0u64;
        let mut named = 0u64;
        self.node_page(db.root, db.depth, kind, &mut entries, &mut named)?;
        if entries != db.entries {
            return Err(damaged(format!(
                "a tree says it holds {} entries but holds {entries}",
                db.entries
            )));
        }
        Ok(if kind == Kind::Main { named } else { entries })
    }

    fn node_page(
        &mut self,
        pgno: u64,
        depth: u16,
        kind: Kind,
        entries: &mut u64,
        named: &mut u64,
    ) -> Result<()> {
        self.mark(pgno)?;
        let ps = self.ps;
        let p = self.page(pgno);
        let bad = |what: &str| damaged(format!("page {pgno}: {what}"));
        let flags = u16_at(p, 10).unwrap_or(0);
        let lower = u16_at(p, 12).unwrap_or(0) as usize;
        let upper = u16_at(p, 14).unwrap_or(0) as usize;
        if u64_at(p, 0) != Some(pgno) {
            return Err(bad("its header names another page"));
        }
        let want = if depth > 1 { P_BRANCH } else { P_LEAF };
        if flags != want {
            return Err(bad("wrong page type"));
        }
        if lower < PAGEHDRSZ || lower > upper || upper > ps || (lower - PAGEHDRSZ) % 2 != 0 {
            return Err(bad("bad free-space bounds"));
        }
        let n = (lower - PAGEHDRSZ) / 2;
        if n == 0 {
            return Err(bad("no entries"));
        }
        let mut children = Vec::new();
        for i in 0..n {
            let off = u16_at(p, PAGEHDRSZ + 2 * i).unwrap_or(0) as usize;
            if off < upper || off + NODESIZE > ps {
                return Err(bad("a node outside the page"));
            }
            let lo = u16_at(p, off).unwrap_or(0) as u64;
            let hi = u16_at(p, off + 2).unwrap_or(0) as u64;
            let nflags = u16_at(p, off + 4).unwrap_or(0);
            let ksize = u16_at(p, off + 6).unwrap_or(0) as usize;
            let key_end = off + NODESIZE + ksize;
            if key_end > ps {
                return Err(bad("a key outside the page"));
            }
            if depth > 1 {
                children.push(lo | (hi << 16) | ((nflags as u64) << 32));
                continue;
            }
            // A leaf node.
            if ksize == 0 {
                return Err(bad("an empty key"));
            }
            if kind == Kind::Free && ksize != 8 {
                return Err(bad("a free-list key is not a transaction id"));
            }
            let dsize = (lo | (hi << 16)) as usize;
            let data: Vec<u8>;
            let data: &[u8] = match nflags {
                0 => {
                    if key_end + dsize > ps {
                        return Err(bad("a value outside the page"));
                    }
                    &p[key_end..key_end + dsize]
                }
                F_BIGDATA => {
                    let ov = u64_at(p, key_end)
                        .filter(|_| key_end + 8 <= ps)
                        .ok_or_else(|| bad("a value outside the page"))?;
                    data = self.overflow(ov, dsize, kind == Kind::Free)?;
                    &data
                }
                F_SUBDATA if kind == Kind::Main => {
                    if dsize != DB_SIZE || key_end + DB_SIZE > ps {
                        return Err(bad("a bad named-database record"));
                    }
                    &p[key_end..key_end + DB_SIZE]
                }
                _ => return Err(bad("unexpected node flags")),
            };
            *entries += 1;
            match (kind, nflags) {
                (Kind::Free, _) => self.free_list(data, pgno)?,
                (Kind::Main, F_SUBDATA) => {
                    let db = db_at(data, 0).ok_or_else(|| bad("a bad named-database record"))?;
                    *named += self.tree(db, Kind::Named)?;
                }
                _ => {}
            }
        }
        for child in children {
            self.node_page(child, depth - 1, kind, entries, named)?;
        }
        Ok(())
    }

    /// Checks an overflow run; returns its data (copied only for free-list
    /// records, which are read; an empty vector otherwise).
    fn overflow(&mut self, pgno: u64, dsize: usize, want_data: bool) -> Result<Vec<u8>> {
        let ps = self.ps;
        let need = (PAGEHDRSZ - 1 + dsize) / ps + 1;
        self.mark(pgno)?;
        let p = self.page(pgno);
        let bad = |what: &str| damaged(format!("overflow page {pgno}: {what}"));
        if u64_at(p, 0) != Some(pgno) || u16_at(p, 10) != Some(P_OVERFLOW) {
            return Err(bad("bad header"));
        }
        let count = u32_at(p, 12).unwrap_or(0) as usize;
        if count < need {
            return Err(bad("too short for its value"));
        }
        for extra in 1..count as u64 {
            self.mark(pgno + extra)?;
        }
        let start = pgno as usize * ps + PAGEHDRSZ;
        let data = self
            .map
            .get(start..start + dsize)
            .ok_or_else(|| bad("past the end of the file"))?;
        Ok(if want_data { data.to_vec() } else { Vec::new() })
    }

    /// A free-list record: a count, then that many page numbers.
    fn free_list(&self, data: &[u8], pgno: u64) -> Result<()> {
        let bad = || damaged(format!("page {pgno}: a bad free-page list"));
        let count = u64_at(data, 0).ok_or_else(bad)?;
        let want = count
            .checked_add(1)
            .and_then(|c| c.checked_mul(8))
            .ok_or_else(bad)?;
        if want > data.len() as u64 {
            return Err(bad());
        }
        for i in 0..count as usize {
            let free = u64_at(data, 8 + 8 * i).ok_or_else(bad)?;
            if free < 2 || free > self.last_pg {
                return Err(bad());
            }
        }
        Ok(())
    }
}
