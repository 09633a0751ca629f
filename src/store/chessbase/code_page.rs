//! The code page of a base's single-byte texts: names and annotation texts.
//!
//! A ChessBase base does not say which code page its texts are in: ChessBase writes the
//! Windows code page of the machine it runs on (Windows-1252 in western Europe and the
//! Americas, Windows-1251 on Russian Windows, Windows-1250 in central Europe) and reads it
//! back the same way. So the code page is told from the texts themselves, by
//! [chardetng](https://docs.rs/chardetng) (the detector Firefox uses on pages that name no
//! encoding), fed the base's names and a sample of its annotation texts, and kept among
//! the single-byte Windows code pages ChessBase can have written; Windows-1252 when the
//! texts are ASCII, UTF-8 or give no clear answer.

use encoding_rs::Encoding;

/// The code pages a base is read in: the single-byte Windows code pages.
const WINDOWS_CODE_PAGES: [&Encoding; 9] = [
    encoding_rs::WINDOWS_1252,
    encoding_rs::WINDOWS_1250,
    encoding_rs::WINDOWS_1251,
    encoding_rs::WINDOWS_1253,
    encoding_rs::WINDOWS_1254,
    encoding_rs::WINDOWS_1255,
    encoding_rs::WINDOWS_1256,
    encoding_rs::WINDOWS_1257,
    encoding_rs::WINDOWS_1258,
];

/// How many bytes of single-byte text beyond ASCII are enough to tell the code page.
const ENOUGH: usize = 1 << 16;

/// The code page a base's single-byte texts are read in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct CodePage(&'static Encoding);

impl Default for CodePage {
    fn default() -> CodePage {
        CodePage(encoding_rs::WINDOWS_1252)
    }
}

impl CodePage {
    /// The code page of `texts` (each a name or an annotation's text): only the texts with
    /// bytes beyond ASCII that are not UTF-8 tell it.
    pub(super) fn detect<'a>(texts: impl IntoIterator<Item = &'a [u8]>) -> CodePage {
        let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
        let mut fed = 0;
        for text in texts {
            if text.is_ascii() || std::str::from_utf8(text).is_ok() {
                continue;
            }
            // Each text on a line of its own, so that two texts do not read as one word.
            detector.feed(text, false);
            detector.feed(b"\n", false);
            fed += text.len();
            if fed >= ENOUGH {
                break;
            }
        }
        if fed == 0 {
            return CodePage::default();
        }
        detector.feed(b"", true);
        let guess = detector.guess(None, chardetng::Utf8Detection::Deny);
        CodePage(
            WINDOWS_CODE_PAGES
                .into_iter()
                .find(|&page| page == guess)
                .unwrap_or(encoding_rs::WINDOWS_1252),
        )
    }

    /// The code page's name (`windows-1251`).
    pub(super) fn name(self) -> &'static str {
        self.0.name()
    }

    /// The text of `bytes`: UTF-8 when they hold some and are valid UTF-8 (ChessBase writes
    /// UTF-8 into its fields too, as another reader of the format, cbvault, found in a base
    /// ChessBase converted; a UTF-8 text cut at a field's width in the middle of a character
    /// keeps what precedes it), else the code page's: single-byte text almost never forms
    /// valid multi-byte UTF-8.
    pub(super) fn text(self, bytes: &[u8]) -> String {
        if bytes.is_ascii() {
            // (ASCII reads the same in every code page here)
            return String::from_utf8_lossy(bytes).into_owned();
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => text.to_owned(),
            Err(e) if e.error_len().is_none() && !bytes[..e.valid_up_to()].is_ascii() => {
                String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned()
            }
            Err(_) => self.single_byte(bytes),
        }
    }

    /// The text of `bytes` in the code page alone.
    pub(super) fn single_byte(self, bytes: &[u8]) -> String {
        self.0
            .decode_without_bom_handling_and_without_replacement(bytes)
            .map(std::borrow::Cow::into_owned)
            // A byte the code page leaves undefined (0xAA in Windows-1253) as the character
            // of its number (ISO-8859-1's), so that nothing is dropped.
            .unwrap_or_else(|| {
                bytes
                    .iter()
                    .map(
                        |&b| match self.0.decode_without_bom_handling(&[b]).0.chars().next() {
                            Some(c) if c != char::REPLACEMENT_CHARACTER => c,
                            _ => char::from(b),
                        },
                    )
                    .collect()
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_1252_has_its_dashes_and_latin1_the_rest() {
        let page = CodePage::default();
        assert_eq!(
            page.text(b"R\xe9ti \x96 \x93x\x94 \x8aeva \x81"),
            "Réti – “x” Ševa \u{81}"
        );
    }

    #[test]
    fn text_is_utf8_when_it_is_valid_utf8_else_the_code_page() {
        let page = CodePage::default();
        assert_eq!(page.text("Réti – Ševa".as_bytes()), "Réti – Ševa");
        assert_eq!(page.text(b"R\xe9ti \x96 x"), "Réti – x");
        // Cut at a field's width inside a character.
        assert_eq!(page.text(&"Réti Ş".as_bytes()[..7]), "Réti ");
        assert_eq!(page.text(b"Carlsen"), "Carlsen");
        // A lone high byte at the end is the code page's, not a cut character.
        assert_eq!(page.text(b"abc\xe9"), "abcé");
    }

    /// Each language's sample (tests/data/chessbase/code-pages: SCID's translations, as a
    /// base written on that language's Windows holds them) in `page`, one text a line.
    fn sample(text: &str, page: &'static Encoding) -> Vec<Vec<u8>> {
        text.lines()
            .map(|line| page.encode(line).0.into_owned())
            .collect()
    }

    #[test]
    fn the_code_page_is_told_from_real_text_in_each_language() {
        for (text, page) in [
            (
                include_str!("../../../tests/data/chessbase/code-pages/russian.txt"),
                encoding_rs::WINDOWS_1251,
            ),
            (
                include_str!("../../../tests/data/chessbase/code-pages/polish.txt"),
                encoding_rs::WINDOWS_1250,
            ),
            (
                include_str!("../../../tests/data/chessbase/code-pages/czech.txt"),
                encoding_rs::WINDOWS_1250,
            ),
            (
                include_str!("../../../tests/data/chessbase/code-pages/hungary.txt"),
                encoding_rs::WINDOWS_1250,
            ),
            (
                include_str!("../../../tests/data/chessbase/code-pages/deutsch.txt"),
                encoding_rs::WINDOWS_1252,
            ),
            (
                include_str!("../../../tests/data/chessbase/code-pages/swedish.txt"),
                encoding_rs::WINDOWS_1252,
            ),
            (
                include_str!("../../../tests/data/chessbase/code-pages/francais.txt"),
                encoding_rs::WINDOWS_1252,
            ),
            (
                include_str!("../../../tests/data/chessbase/code-pages/spanish.txt"),
                encoding_rs::WINDOWS_1252,
            ),
            (
                include_str!("../../../tests/data/chessbase/code-pages/italian.txt"),
                encoding_rs::WINDOWS_1252,
            ),
            (
                include_str!("../../../tests/data/chessbase/code-pages/portbr.txt"),
                encoding_rs::WINDOWS_1252,
            ),
            (
                include_str!("../../../tests/data/chessbase/code-pages/nederlan.txt"),
                encoding_rs::WINDOWS_1252,
            ),
            (
                include_str!("../../../tests/data/chessbase/code-pages/norsk.txt"),
                encoding_rs::WINDOWS_1252,
            ),
            (
                include_str!("../../../tests/data/chessbase/code-pages/suomi.txt"),
                encoding_rs::WINDOWS_1252,
            ),
            (
                include_str!("../../../tests/data/chessbase/code-pages/catalan.txt"),
                encoding_rs::WINDOWS_1252,
            ),
            (
                include_str!("../../../tests/data/chessbase/code-pages/greek.txt"),
                encoding_rs::WINDOWS_1253,
            ),
        ] {
            let texts = sample(text, page);
            let found = CodePage::detect(texts.iter().map(Vec::as_slice));
            assert_eq!(
                found.name(),
                page.name(),
                "{}",
                text.lines().next().unwrap()
            );
            // and each text reads back as written
            for (line, bytes) in text.lines().zip(&texts) {
                assert_eq!(found.text(bytes), line);
            }
        }
    }

    #[test]
    fn a_byte_the_code_page_leaves_undefined_is_kept() {
        let greek = CodePage(encoding_rs::WINDOWS_1253);
        assert_eq!(greek.single_byte(b"\xc1\xaa"), "Α\u{aa}");
    }

    #[test]
    fn ascii_utf8_and_a_few_accents_stay_windows_1252() {
        let page = |texts: &[&[u8]]| CodePage::detect(texts.iter().copied());
        assert_eq!(page(&[]), CodePage::default());
        assert_eq!(page(&[b"Carlsen", b"Nepomniachtchi"]), CodePage::default());
        assert_eq!(
            page(&["Ševa", "Ивanov"].map(str::as_bytes)),
            CodePage::default()
        );
        // (the one name with an accent of Morphy's base of Linares 1992)
        assert_eq!(
            page(&[b"H\xfcbner", b"Salov", b"Kamsky"]),
            CodePage::default()
        );
    }
}
