//! `zobrist_board_81.dat`: the Zobrist codes the PositionID hashes are made of.
//!
//! ASCII: three header lines `8` (bytes per code), `3` (codes per point: black, white, ko)
//! and `81` (points), then 81 lines `black,white,ko` of 16 hex digits each (docs/formats/go9x9.md
//! §2). CRLF line ends and trailing blank lines are accepted; anything else is refused with
//! the line number.

use std::path::Path;

use crate::error::{Error, ErrorKind, Result};
use crate::game::go::{POINTS, ZobristTable};

/// The file name of the table, as every published data set ships it.
pub const FILE_NAME: &str = "zobrist_board_81.dat";

/// Parse the text of a zobrist table; `name` is used in messages.
pub fn parse(text: &[u8], name: &str) -> Result<ZobristTable> {
    let bad = |line: usize, why: String| {
        Error::new(
            ErrorKind::UnknownFormat,
            format!("{name} line {line}: {why} (not a 9x9 zobrist table)"),
        )
    };
    let text = std::str::from_utf8(text).map_err(|e| {
        Error::new(
            ErrorKind::UnknownFormat,
            format!("{name}: not ASCII text ({e}); a zobrist table is text"),
        )
    })?;
    let mut lines = text
        .lines()
        .map(str::trim)
        .enumerate()
        .map(|(i, l)| (i + 1, l));
    for want in ["8", "3", "81"] {
        let (n, l) = lines
            .next()
            .ok_or_else(|| bad(1, "the file ends inside the 3-line header".into()))?;
        if l != want {
            return Err(bad(n, format!("header line is {l:?}, expected {want:?}")));
        }
    }
    let mut table = ZobristTable {
        black: [0; POINTS],
        white: [0; POINTS],
        ko: [0; POINTS],
    };
    for point in 0..POINTS {
        let (n, l) = lines.next().ok_or_else(|| {
            bad(
                4 + point,
                format!("the file ends after {point} of 81 code lines"),
            )
        })?;
        let codes: Vec<&str> = l.split(',').map(str::trim).collect();
        if codes.len() != 3 {
            return Err(bad(
                n,
                format!("{} codes, expected 3 (black,white,ko)", codes.len()),
            ));
        }
        let mut parsed = [0u64; 3];
        for (slot, code) in parsed.iter_mut().zip(&codes) {
            if code.len() != 16 || !code.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad(n, format!("{code:?} is not 16 hex digits")));
            }
            *slot = u64::from_str_radix(code, 16).map_err(|e| bad(n, e.to_string()))?;
        }
        table.black[point] = parsed[0];
        table.white[point] = parsed[1];
        table.ko[point] = parsed[2];
    }
    if let Some((n, l)) = lines.find(|(_, l)| !l.is_empty()) {
        return Err(bad(n, format!("unexpected {l:?} after the 81 code lines")));
    }
    Ok(table)
}

/// Read and parse the zobrist table at `path`.
pub fn load(path: &Path) -> Result<ZobristTable> {
    let bytes = std::fs::read(path).map_err(|e| {
        Error::io(
            format!(
                "reading the zobrist table {} (every 9x9 data set ships it; it is needed to hash positions)",
                path.display()
            ),
            e,
        )
    })?;
    parse(&bytes, &path.display().to_string())
}

/// The text of a table, in the published layout (for tests and new databases).
pub fn render(table: &ZobristTable) -> String {
    let mut out = String::from("8\n3\n81\n");
    for i in 0..POINTS {
        out.push_str(&format!(
            "{:016x},{:016x},{:016x}\n",
            table.black[i], table.white[i], table.ko[i]
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ZobristTable {
        let mut t = ZobristTable {
            black: [0; POINTS],
            white: [0; POINTS],
            ko: [0; POINTS],
        };
        for i in 0..POINTS {
            t.black[i] = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            t.white[i] = (i as u64 + 101).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
            t.ko[i] = i as u64;
        }
        t
    }

    #[test]
    fn round_trip_and_crlf() {
        let t = sample();
        let text = render(&t);
        assert_eq!(parse(text.as_bytes(), "z").unwrap(), t);
        let crlf = text.replace('\n', "\r\n") + "\r\n";
        assert_eq!(parse(crlf.as_bytes(), "z").unwrap(), t);
    }

    #[test]
    fn malformed_tables_name_the_line() {
        let text = render(&sample());
        let e = parse(text.replacen("81\n", "80\n", 1).as_bytes(), "z").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::UnknownFormat);
        assert!(
            e.to_string().starts_with("z line 3: header line is \"80\""),
            "{e}"
        );
        let mut lines: Vec<&str> = text.lines().collect();
        lines[10] = "0123,4567,89ab";
        let e = parse(lines.join("\n").as_bytes(), "z").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("z line 11: \"0123\" is not 16 hex digits"),
            "{e}"
        );
        let e = parse(
            text.lines()
                .take(50)
                .collect::<Vec<_>>()
                .join("\n")
                .as_bytes(),
            "z",
        )
        .unwrap_err();
        assert!(e.to_string().contains("after 47 of 81"), "{e}");
        let e = parse(format!("{text}junk\n").as_bytes(), "z").unwrap_err();
        assert!(
            e.to_string().contains("line 85: unexpected \"junk\""),
            "{e}"
        );
        assert!(parse(b"\xff", "z").is_err());
    }
}
