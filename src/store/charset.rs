//! Turning stored name and comment bytes into text.
//!
//! The chess formats carry no charset field: SCID 4.7 writes UTF-8, older databases hold Latin-1.
//! Valid UTF-8 is kept as it is; any byte that is not part of a valid UTF-8 sequence is read
//! as Latin-1, so every stored byte string gives text and nothing is dropped.

use std::borrow::Cow;

/// Decode stored bytes as UTF-8, reading bytes that are not valid UTF-8 as Latin-1.
pub fn text_from_bytes(bytes: &[u8]) -> String {
    str_from_bytes(bytes).into_owned()
}

/// [`text_from_bytes`] that borrows the bytes when they are valid UTF-8 (nearly always): no
/// copy for text that is only passed on (a comment rendered as it is decoded).
pub fn str_from_bytes(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        out.extend(chunk.invalid().iter().map(|&b| char::from(b)));
    }
    Cow::Owned(out)
}

/// Windows-1252's characters for the bytes 0x80–0x9F (the five it leaves undefined read as
/// ISO-8859-1 does); the other bytes are ISO-8859-1's.
#[rustfmt::skip]
const WINDOWS_1252_HIGH: [char; 32] = [
    '\u{20AC}', '\u{0081}', '\u{201A}', '\u{0192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{02C6}', '\u{2030}', '\u{0160}', '\u{2039}', '\u{0152}', '\u{008D}', '\u{017D}', '\u{008F}',
    '\u{0090}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{02DC}', '\u{2122}', '\u{0161}', '\u{203A}', '\u{0153}', '\u{009D}', '\u{017E}', '\u{0178}',
];

/// Decode Windows-1252 bytes (ChessBase's text, written by a Windows program): ISO-8859-1
/// with printable characters in 0x80–0x9F (the dashes, quotes and `€`).
pub fn windows_1252(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| match b {
            0x80..=0x9F => WINDOWS_1252_HIGH[usize::from(b - 0x80)],
            _ => char::from(b),
        })
        .collect()
}

/// Decode ChessBase's text (names, comments): UTF-8 when the bytes hold some and are valid
/// UTF-8 (ChessBase writes UTF-8 into its fields too, as another reader of the format,
/// cbvault, found in a base ChessBase converted; a UTF-8 text cut at a field's width in the
/// middle of a character keeps what precedes it), else [`windows_1252`]: single-byte text
/// almost never forms valid multi-byte UTF-8.
pub fn utf8_or_windows_1252(bytes: &[u8]) -> String {
    if bytes.is_ascii() {
        return windows_1252(bytes);
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(e) if e.error_len().is_none() && !bytes[..e.valid_up_to()].is_ascii() => {
            String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned()
        }
        Err(_) => windows_1252(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_1252_has_its_dashes_and_latin1_the_rest() {
        assert_eq!(
            windows_1252(b"R\xe9ti \x96 \x93x\x94 \x8aeva \x81"),
            "Réti – “x” Ševa \u{81}"
        );
    }

    #[test]
    fn chessbase_text_is_utf8_when_it_is_valid_utf8_else_windows_1252() {
        assert_eq!(
            utf8_or_windows_1252("Réti – Ševa".as_bytes()),
            "Réti – Ševa"
        );
        assert_eq!(utf8_or_windows_1252(b"R\xe9ti \x96 x"), "Réti – x");
        // Cut at a field's width inside a character.
        assert_eq!(utf8_or_windows_1252(&"Réti Ş".as_bytes()[..7]), "Réti ");
        assert_eq!(utf8_or_windows_1252(b"Carlsen"), "Carlsen");
        // A lone high byte at the end is Windows-1252, not a cut character.
        assert_eq!(utf8_or_windows_1252(b"abc\xe9"), "abcé");
    }

    #[test]
    fn utf8_is_kept() {
        assert_eq!(text_from_bytes("Réti".as_bytes()), "Réti");
    }

    #[test]
    fn latin1_bytes_become_their_characters() {
        assert_eq!(text_from_bytes(b"R\xe9ti, Richard"), "Réti, Richard");
        assert_eq!(text_from_bytes(b"\xc4rger"), "Ärger");
    }

    #[test]
    fn valid_utf8_is_borrowed() {
        assert!(matches!(
            str_from_bytes("Réti".as_bytes()),
            Cow::Borrowed("Réti")
        ));
        assert!(matches!(str_from_bytes(b"R\xe9ti"), Cow::Owned(_)));
    }

    #[test]
    fn mixed_strings_keep_valid_sequences() {
        assert_eq!(text_from_bytes(b"\xc3\xa9 and \xe9"), "é and é");
    }
}
