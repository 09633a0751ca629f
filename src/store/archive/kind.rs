//! Which archive a file is, by the ending of its name: the one place that knows the endings.

use std::path::Path;

/// How the bytes of a tar archive are compressed around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TarCodec {
    /// A plain `.tar`.
    Plain,
    /// `.tar.gz`, `.tgz`.
    Gzip,
    /// `.tar.bz2`, `.tbz2`, `.tbz`.
    Bzip2,
    /// `.tar.xz`, `.txz`.
    Xz,
    /// `.tar.zst`, `.tzst`.
    Zstd,
}

/// An archive format gamefs unpacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A zip archive (`.zip`).
    Zip,
    /// A 7-Zip archive (`.7z`).
    SevenZ,
    /// A tar archive, plain or compressed.
    Tar(TarCodec),
    /// One file compressed by `xz` (`club.si4.xz`; a `.pgn.xz` is read in place as a PGN
    /// file): its one member is the name without `.xz`.
    Xz,
    /// ChessBase's archive of a database (`.cbv`; `.cbz` when enciphered with a password).
    Cbv,
}

/// The endings (lowercase) that name each archive kind, longest first where one ends another.
const ENDINGS: [(&str, Kind); 15] = [
    (".tar.gz", Kind::Tar(TarCodec::Gzip)),
    (".tgz", Kind::Tar(TarCodec::Gzip)),
    (".tar.bz2", Kind::Tar(TarCodec::Bzip2)),
    (".tbz2", Kind::Tar(TarCodec::Bzip2)),
    (".tbz", Kind::Tar(TarCodec::Bzip2)),
    (".tar.xz", Kind::Tar(TarCodec::Xz)),
    (".txz", Kind::Tar(TarCodec::Xz)),
    (".tar.zst", Kind::Tar(TarCodec::Zstd)),
    (".tzst", Kind::Tar(TarCodec::Zstd)),
    (".tar", Kind::Tar(TarCodec::Plain)),
    (".zip", Kind::Zip),
    (".7z", Kind::SevenZ),
    (".xz", Kind::Xz),
    (".cbv", Kind::Cbv),
    (".cbz", Kind::Cbv),
];

/// The archive kind the name `name` ends with (compared ignoring case), and the length of
/// that ending; `None` for a name no archive ending ends (a PGN file, `.pgn.xz` too, a SCID
/// file).
pub fn of_name(name: &str) -> Option<(Kind, usize)> {
    let lower = name.to_ascii_lowercase();
    if crate::store::pgn::ENDINGS
        .iter()
        .any(|e| lower.ends_with(e))
    {
        // A PGN file compressed by xz is read in place, by its blocks.
        return None;
    }
    ENDINGS
        .iter()
        .find(|(ending, _)| lower.len() > ending.len() && lower.ends_with(ending))
        .map(|(ending, kind)| (*kind, ending.len()))
}

/// The archive kind of the file at `path`, by its name.
pub fn of_path(path: &Path) -> Option<Kind> {
    of_name(&path.file_name()?.to_string_lossy()).map(|(kind, _)| kind)
}

impl Kind {
    /// Its name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Zip => "zip",
            Kind::SevenZ => "7z",
            Kind::Tar(TarCodec::Plain) => "tar",
            Kind::Tar(TarCodec::Gzip) => "tar.gz",
            Kind::Tar(TarCodec::Bzip2) => "tar.bz2",
            Kind::Tar(TarCodec::Xz) => "tar.xz",
            Kind::Tar(TarCodec::Zstd) => "tar.zst",
            Kind::Xz => "xz",
            Kind::Cbv => "ChessBase (cbv)",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archives_are_known_by_their_endings() {
        assert_eq!(of_name("twic1500g.zip"), Some((Kind::Zip, 4)));
        assert_eq!(of_name("A.TAR.GZ"), Some((Kind::Tar(TarCodec::Gzip), 7)));
        assert_eq!(of_name("x.tar.zst"), Some((Kind::Tar(TarCodec::Zstd), 8)));
        assert_eq!(of_name("x.tar"), Some((Kind::Tar(TarCodec::Plain), 4)));
        assert_eq!(of_name("club.si4.xz"), Some((Kind::Xz, 3)));
        assert_eq!(of_name("cb.7z"), Some((Kind::SevenZ, 3)));
        assert_eq!(of_name("TWIC1134.CBV"), Some((Kind::Cbv, 4)));
        for not in [
            "games.pgn",
            "games.pgn.gz",
            "games.pgn.zst",
            ".zip",
            "club.si4",
        ] {
            assert_eq!(of_name(not), None, "{not}");
        }
    }
}
