//! A game's annotations in the .cba file: text before and after moves, symbols (NAGs),
//! coloured squares and arrows. Each game's block (at the offset its .cbh record gives) is a
//! 14-byte head (the game's number, four bytes, the number of annotations plus one, the
//! block's length) and then the annotations, each 6 bytes (the move it belongs to, its kind,
//! its length with these 6 bytes) and its data. Integers are big-endian
//! (docs/formats/chessbase.md §5).

use super::code_page::CodePage;
use crate::error::{Error, Result};

/// The length of a block's head.
pub(super) const HEAD_LEN: usize = 14;

/// The longest block read: far beyond any real game's, small enough to hold in memory.
const MAX_BLOCK: usize = 16 << 20;

/// One annotation gamefs shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Note {
    /// Text after the move.
    After(String),
    /// Text before the move.
    Before(String),
    /// Symbols: numeric annotation glyphs (ChessBase stores their numbers).
    Nags(Vec<u8>),
    /// Coloured squares as `[%csl]` writes them: `Ga4,Rb5`.
    Squares(String),
    /// Arrows as `[%cal]` writes them: `Ge2e4`.
    Arrows(String),
    /// A clock: White's (`white`) or Black's time left, in hundredths of a second. On the
    /// start position, the clocks at the game's end (WhiteClock, BlackClock); on a move, the
    /// time left after it (`[%clk]`).
    Clock { white: bool, centis: u32 },
    /// A command the comment starts with, as written (`[%clk 0:05:00]`).
    Code(String),
}

/// A clock's time as PGN writes it (`[%clk]`, WhiteClock): `H:MM:SS`, with hundredths when
/// there are some (`0:00:09.5` is written `0:00:09.50`).
pub(super) fn clock_text(centis: u32) -> String {
    let (seconds, hundredths) = (centis / 100, centis % 100);
    let hms = format!(
        "{}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    );
    if hundredths == 0 {
        hms
    } else {
        format!("{hms}.{hundredths:02}")
    }
}

/// The annotations of one game: each with the move it belongs to (0 the start position, 1
/// the first move decoded, and so on in the order the moves are stored).
pub(super) type Notes = Vec<(u32, Note)>;

/// A block's length from its head (head included).
pub(super) fn block_len(head: &[u8; HEAD_LEN]) -> Result<usize> {
    let len = u32::from_be_bytes([head[10], head[11], head[12], head[13]]) as usize;
    if !(HEAD_LEN..=MAX_BLOCK).contains(&len) {
        return Err(Error::corrupt_record(format!(
            "annotations: a block of {len} bytes"
        )));
    }
    Ok(len)
}

/// A square of an annotation: 1 = a1, 2 = a2, 9 = b1, … 64 = h8.
fn square(b: u8) -> Option<String> {
    let i = b.checked_sub(1).filter(|&i| i < 64)?;
    Some(format!("{}{}", char::from(b'a' + i / 8), i % 8 + 1))
}

/// The colour letter of `[%csl]` and `[%cal]` for ChessBase's colour.
fn colour(b: u8) -> Option<char> {
    match b {
        2 => Some('G'),
        3 => Some('Y'),
        4 => Some('R'),
        _ => None,
    }
}

/// The byte that marks a diagram in ChessBase's texts, shown as `#`.
const DIAGRAM: u8 = 0x9E;

/// An annotation's text: UTF-8 when it is valid UTF-8 beyond ASCII, else the base's code
/// page with a diagram mark as `#` (the mark is no UTF-8); line breaks as spaces.
fn text(bytes: &[u8], page: CodePage) -> String {
    let text = match std::str::from_utf8(bytes) {
        Ok(utf8) if !utf8.is_ascii() => utf8.to_owned(),
        _ => {
            let parts: Vec<String> = bytes
                .split(|&b| b == DIAGRAM)
                .map(|part| page.single_byte(part))
                .collect();
            parts.join("#")
        }
    };
    crate::game::normalize_comment(&text)
}

/// The annotations of `block` as stored, in order: each one's byte in the block (for errors),
/// the move it belongs to as stored (-1: the start), its kind and its data; an annotation
/// that runs past the block ends them with an error.
fn entries(block: &[u8]) -> impl Iterator<Item = Result<(usize, i32, u8, &[u8])>> {
    let mut at = HEAD_LEN;
    std::iter::from_fn(move || {
        if at >= block.len() {
            return None;
        }
        let start = at;
        let entry = block
            .get(at..at + 6)
            .ok_or_else(|| bad(start, "an annotation cut short"))
            .and_then(|head| {
                let node = i32::from_be_bytes([
                    if head[0] & 0x80 != 0 { 0xFF } else { 0 },
                    head[0],
                    head[1],
                    head[2],
                ]);
                let len = usize::from(u16::from_be_bytes([head[4], head[5]]));
                let data = block
                    .get(at + 6..at + len.max(6))
                    .filter(|_| len >= 6)
                    .ok_or_else(|| bad(start, "an annotation longer than its block"))?;
                at += len;
                Ok((start, node, head[3], data))
            });
        if entry.is_err() {
            at = block.len();
        }
        Some(entry)
    })
}

/// The error of the annotation at byte `at` of its block.
fn bad(at: usize, what: &str) -> Error {
    Error::corrupt_record(format!("annotations: byte {at} of the block: {what}"))
}

/// The text an annotation of `kind` holds in `data`, as stored: after a byte and a language
/// byte, for a text after the move (0x02) or before it (0x82).
fn stored_text(kind: u8, data: &[u8]) -> Option<&[u8]> {
    data.get(2..).filter(|_| matches!(kind, 0x02 | 0x82))
}

/// The texts of `block`'s annotations, as stored: what the base's code page is told from.
pub(super) fn texts(block: &[u8]) -> impl Iterator<Item = &[u8]> {
    entries(block)
        .map_while(Result::ok)
        .filter_map(|(_, _, kind, data)| stored_text(kind, data))
}

/// The blocks of a .cba file's first `bytes`, one after the other from the end of its header
/// (its first two bytes, big-endian), up to the first that does not look like a block
/// (a hole left by an edited game) or runs past `bytes`: a sample of the base's texts.
pub(super) fn first_blocks(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut at = bytes.get(..2).map_or(bytes.len(), |h| {
        usize::from(u16::from_be_bytes([h[0], h[1]]))
    });
    std::iter::from_fn(move || {
        let head: &[u8; HEAD_LEN] = bytes.get(at..at + HEAD_LEN)?.try_into().ok()?;
        let len = block_len(head).ok()?;
        let block = bytes.get(at..at + len)?;
        at += len;
        Some(block)
    })
}

/// The annotations of `block` (a whole block, head included) that gamefs shows; the kinds it
/// does not show are skipped (the .cbh's flags count them). An annotation that runs past the
/// block, or a bad square or colour, is an error.
pub(super) fn read(block: &[u8], page: CodePage) -> Result<Notes> {
    let mut notes = Vec::new();
    for entry in entries(block) {
        let (at, node, kind, data) = entry?;
        let node = u32::try_from(node + 1).map_err(|_| bad(at, "a move before the start"))?;
        let note = match (kind, stored_text(kind, data)) {
            (_, Some(stored)) => {
                let t = text(stored, page);
                if kind == 0x02 {
                    Note::After(t)
                } else {
                    Note::Before(t)
                }
            }
            (0x03, _) => Note::Nags(data.iter().copied().filter(|&n| n != 0).collect()),
            (0x04, _) => Note::Squares(
                data.chunks(2)
                    .map(|c| match c {
                        [col, sq] => Some(format!("{}{}", colour(*col)?, square(*sq)?)),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| bad(at, "a bad coloured square"))?
                    .join(","),
            ),
            (0x05, _) => Note::Arrows(
                data.chunks(3)
                    .map(|c| match c {
                        [col, from, to] => Some(format!(
                            "{}{}{}",
                            colour(*col)?,
                            square(*from)?,
                            square(*to)?
                        )),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| bad(at, "a bad arrow"))?
                    .join(","),
            ),
            (0x16 | 0x17, _) if data.len() >= 4 => Note::Clock {
                white: kind == 0x16,
                centis: u32::from_be_bytes([data[0], data[1], data[2], data[3]]),
            },
            _ => continue,
        };
        notes.push((node, note));
    }
    Ok(notes)
}

/// The annotation kinds (as the .cbh's flags name them) gamefs shows.
pub(super) const SHOWN: u32 = 1 << 2 | 1 << 3 | 1 << 4 | 1 << 5 | 1 << 22 | 1 << 23;

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A block of `notes` (move as stored, kind, data).
    pub(in crate::store::chessbase) fn block(notes: &[(i32, u8, &[u8])]) -> Vec<u8> {
        let mut out = vec![0, 0, 1, 1, 0, 0x0E, 0x0E];
        out.extend(&((notes.len() + 1) as u32).to_be_bytes()[1..]);
        out.extend([0; 4]);
        for (node, kind, data) in notes {
            out.extend(&node.to_be_bytes()[1..]);
            out.push(*kind);
            out.extend(((data.len() + 6) as u16).to_be_bytes());
            out.extend(*data);
        }
        let len = out.len() as u32;
        out[10..14].copy_from_slice(&len.to_be_bytes());
        out
    }

    #[test]
    fn reads_texts_symbols_squares_and_arrows() {
        let b = block(&[
            (-1, 0x02, b"\x00\x00Pre-game"),
            (0, 0x03, &[1, 0x12, 0]),
            (0, 0x04, &[2, 28, 4, 36]),
            (1, 0x05, &[3, 34, 36]),
            (2, 0x82, b"\x00\x2aBefore\r\nit \x96 \x9e"),
            (2, 0x02, "\0\0Ševa – ü".as_bytes()),
            (2, 0x16, &[0, 0, 1, 0]),
            (-1, 0x17, &[0, 0, 0x4b, 0xc8]),
            (3, 0x07, &[0, 0, 1, 0]),
        ]);
        assert_eq!(
            block_len(b[..HEAD_LEN].try_into().unwrap()).unwrap(),
            b.len()
        );
        assert_eq!(
            read(&b, CodePage::default()).unwrap(),
            vec![
                (0, Note::After("Pre-game".to_owned())),
                (1, Note::Nags(vec![1, 18])),
                (1, Note::Squares("Gd4,Re4".to_owned())),
                (2, Note::Arrows("Ye2e4".to_owned())),
                (3, Note::Before("Before  it – #".to_owned())),
                (3, Note::After("Ševa – ü".to_owned())),
                (
                    3,
                    Note::Clock {
                        white: true,
                        centis: 256
                    }
                ),
                (
                    0,
                    Note::Clock {
                        white: false,
                        centis: 19400
                    }
                ),
            ]
        );
        assert_eq!(clock_text(19400), "0:03:14");
        assert_eq!(clock_text(215_700), "0:35:57");
        assert_eq!(clock_text(3_600_050), "10:00:00.50");
    }

    #[test]
    fn damaged_blocks_are_errors() {
        let mut b = block(&[(0, 0x02, b"\x00\x00text")]);
        b.truncate(b.len() - 2);
        assert!(read(&b, CodePage::default()).is_err());
        assert!(read(&block(&[(0, 0x04, &[9, 1])]), CodePage::default()).is_err());
        assert!(read(&block(&[(-2, 0x02, b"\x00\x00x")]), CodePage::default()).is_err());
        let mut head = [0u8; HEAD_LEN];
        head[13] = 3;
        assert!(block_len(&head).is_err());
    }

    #[test]
    fn the_first_blocks_of_a_cba_file_give_their_texts() {
        // a 26-byte header that says its length, two blocks, then a hole
        let mut cba = vec![0u8; 26];
        cba[1] = 26;
        cba.extend(block(&[
            (0, 0x02, b"\x00\x00\xcf\xee\xe7\xe8\xf6\xe8\xff"),
            (0, 0x03, &[1]),
        ]));
        cba.extend(block(&[(1, 0x82, b"\x00\x2a\xcb\xf3\xf7\xf8\xe5")]));
        cba.extend([0xFF; 20]);
        let texts: Vec<&[u8]> = first_blocks(&cba).flat_map(texts).collect();
        assert_eq!(
            texts,
            [
                &b"\xcf\xee\xe7\xe8\xf6\xe8\xff"[..],
                b"\xcb\xf3\xf7\xf8\xe5"
            ]
        );
        let page = CodePage::detect(texts);
        assert_eq!(page.name(), "windows-1251");
        let notes = read(first_blocks(&cba).next().unwrap(), page).unwrap();
        assert_eq!(notes[0], (1, Note::After("Позиция".to_owned())));
        // a file cut inside its header gives none
        assert_eq!(first_blocks(&cba[..1]).count(), 0);
    }
}
