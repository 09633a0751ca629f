//! The .si4 header: magic, version, game count and database description
//! (docs/formats/scid4.md §2); for a SCID 5 database, which has no index header, the same facts
//! from its .si5 size and .sn5.

use super::bytes::{be16, be24, be32};
use crate::error::{Error, ErrorKind, Result};

/// The magic bytes that open every .si4 file.
pub(crate) const INDEX_MAGIC: &[u8; 8] = b"Scid.si\0";

/// The index layouts SCID has used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Version 400: 182-byte header, 47-byte entries.
    V400,
    /// Version 300 (SCID 3): 128-byte header, 46-byte entries without byte 6. Read-only.
    V300,
    /// SCID 5 (.si5): no header, 56-byte entries (see [`super::v5`]).
    V5,
}

impl Layout {
    /// Size of the header in bytes.
    pub fn header_len(self) -> usize {
        match self {
            Layout::V400 => 182,
            Layout::V300 => 128,
            Layout::V5 => 0,
        }
    }

    /// Size of one index entry in bytes.
    pub fn entry_len(self) -> usize {
        match self {
            Layout::V400 => 47,
            Layout::V300 => 46,
            Layout::V5 => super::v5::entry::ENTRY_LEN,
        }
    }

    /// The most games the index can hold.
    pub fn max_games(self) -> u32 {
        match self {
            Layout::V5 => super::v5::MAX_GAMES,
            _ => super::MAX_GAMES,
        }
    }

    /// The most bytes the game file can address.
    pub fn max_game_file(self) -> u64 {
        match self {
            Layout::V5 => super::v5::MAX_GAME_FILE,
            _ => u64::from(u32::MAX),
        }
    }

    /// The most names of `kind` the index can refer to.
    pub fn max_names(self, kind: crate::store::NameKind) -> u64 {
        match self {
            Layout::V5 => super::v5::MAX_NAMES[kind as usize],
            _ => u64::from(super::names::MAX_NAMES[kind as usize]),
        }
    }

    /// The format's name, for messages.
    pub fn format_name(self) -> &'static str {
        match self {
            Layout::V5 => "SCID 5",
            _ => "SCID 4",
        }
    }
}

/// The decoded .si4 header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexHeader {
    /// The version number stored in the file (300..=400; 500 for SCID 5, which stores none).
    pub version: u16,
    /// Which entry layout follows.
    pub layout: Layout,
    /// SCID's GUI category of the database (an icon index).
    pub base_type: u32,
    /// Number of games the header claims.
    pub num_games: u32,
    /// The game SCID loads on open (0 = none, 1 = first).
    pub auto_load: u32,
    /// The database description.
    pub description: Vec<u8>,
}

impl IndexHeader {
    /// The header a SCID 5 database would have: its game count from the .si5 file's size
    /// (`index_len` bytes; a last entry cut short counts, as a game that cannot be read), the
    /// rest from the database information in its .sn5 (`names`).
    pub fn scid5(index_len: usize, names: &super::v5::names::Names) -> IndexHeader {
        let entry_len = Layout::V5.entry_len();
        let number = |field| {
            names
                .info(field)
                .and_then(|v| std::str::from_utf8(v).ok()?.trim().parse().ok())
                .unwrap_or(0)
        };
        IndexHeader {
            version: 500,
            layout: Layout::V5,
            base_type: number("type"),
            num_games: index_len.div_ceil(entry_len).min(u32::MAX as usize) as u32,
            auto_load: number("autoload"),
            description: names.info("description").unwrap_or_default().to_vec(),
        }
    }

    /// Parse the header at the start of an .si4 file's bytes.
    pub fn parse(bytes: &[u8]) -> Result<IndexHeader> {
        if bytes.len() < 10 || &bytes[..8] != INDEX_MAGIC {
            return Err(Error::new(
                ErrorKind::UnknownFormat,
                "not a SCID index file (bad magic)",
            ));
        }
        let version = be16(bytes, 8) as u16;
        let layout = match version {
            400 => Layout::V400,
            300..=399 => Layout::V300,
            v => {
                return Err(Error::new(
                    ErrorKind::UnknownFormat,
                    format!("unknown SCID index version {v} (gamefs reads versions 300 to 400)"),
                ));
            }
        };
        if bytes.len() < layout.header_len() {
            return Err(Error::corrupt_database(format!(
                "index header is truncated: {} of {} bytes",
                bytes.len(),
                layout.header_len()
            )));
        }
        let description = &bytes[20..128];
        let end = description
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(description.len());
        Ok(IndexHeader {
            version,
            layout,
            base_type: be32(bytes, 10),
            num_games: be24(bytes, 14),
            auto_load: be24(bytes, 17),
            description: description[..end].to_vec(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(version: u16, games: u32) -> Vec<u8> {
        let mut h = vec![0u8; 182];
        h[..8].copy_from_slice(INDEX_MAGIC);
        h[8..10].copy_from_slice(&version.to_be_bytes());
        h[14..17].copy_from_slice(&games.to_be_bytes()[1..]);
        h[19] = 1;
        h[20..24].copy_from_slice(b"demo");
        h
    }

    #[test]
    fn parses_version_400() {
        let h = IndexHeader::parse(&header(400, 70000)).unwrap();
        assert_eq!(h.layout, Layout::V400);
        assert_eq!(h.num_games, 70000);
        assert_eq!(h.auto_load, 1);
        assert_eq!(h.description, b"demo");
    }

    #[test]
    fn version_300_has_the_short_layout() {
        let h = IndexHeader::parse(&header(300, 1)).unwrap();
        assert_eq!(h.layout.header_len(), 128);
        assert_eq!(h.layout.entry_len(), 46);
    }

    #[test]
    fn rejects_bad_magic_and_versions() {
        let mut h = header(400, 0);
        h[0] = b'X';
        assert_eq!(
            IndexHeader::parse(&h).unwrap_err().kind(),
            ErrorKind::UnknownFormat
        );
        let e = IndexHeader::parse(&header(500, 0)).unwrap_err();
        assert!(e.to_string().contains("version 500"), "{e}");
        assert!(IndexHeader::parse(&header(400, 0)[..100]).is_err());
    }
}
