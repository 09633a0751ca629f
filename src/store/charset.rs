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

#[cfg(test)]
mod tests {
    use super::*;

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
