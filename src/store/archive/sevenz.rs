//! The members of a 7-Zip archive, decoded in order, a solid block at a time (a member of a
//! solid block cannot be reached without decoding the members before it).

use std::io::BufReader;
use std::sync::Arc;

use sevenz_rust2::{ArchiveReader, Password};

use super::{Members, encrypted};
use crate::error::{Error, ErrorKind, Result};
use crate::store::blob::{Blob, Reader};

/// Hand each member of the 7-Zip archive `blob` to `into`.
pub(super) fn read(blob: &Arc<Blob>, into: &mut dyn Members) -> Result<()> {
    let input = BufReader::with_capacity(256 << 10, Reader::new(blob.clone(), 0));
    let mut archive = ArchiveReader::new(input, Password::empty()).map_err(archive_error)?;
    let packed = blob.len()?;
    let mut stopped = None;
    let mut left: Vec<String> = archive
        .archive()
        .files
        .iter()
        .filter(|f| !f.is_directory() && into.wants(f.name()))
        .map(|f| f.name().to_owned())
        .collect();
    let walked = archive.for_each_entries(|entry, data| {
        let name = entry.name().to_owned();
        left.retain(|n| *n != name);
        if entry.is_directory() || !into.wants(&name) {
            std::io::copy(data, &mut std::io::sink())?;
            return Ok(true);
        }
        match into.file(&name, packed, data) {
            Ok(()) => Ok(true),
            Err(e) => {
                stopped = Some(e);
                Ok(false)
            }
        }
    });
    if let Some(e) = stopped {
        return Err(e);
    }
    if let Err(e) = walked {
        // The members not reached: each named, with why (an encrypted block fails when it
        // is first decoded).
        let e = archive_error(e);
        if left.is_empty() {
            into.refused("the rest of the archive", e);
            return Ok(());
        }
        for name in left {
            into.refused(&name, Error::new(e.kind(), e.message()));
        }
    }
    Ok(())
}

/// The error of a 7-Zip archive (or its member) that does not read.
fn archive_error(e: sevenz_rust2::Error) -> Error {
    use sevenz_rust2::Error as E;
    match e {
        E::PasswordRequired | E::MaybeBadPassword(_) => encrypted(),
        E::UnsupportedCompressionMethod(m) if m.to_ascii_lowercase().contains("aes") => encrypted(),
        E::UnsupportedCompressionMethod(_) | E::Unsupported(_) | E::ExternalUnsupported => {
            Error::new(ErrorKind::Unsupported, format!("{e}: not supported"))
        }
        e => Error::new(
            ErrorKind::CorruptDatabase,
            format!("cut short or damaged ({e}): not unpacked"),
        ),
    }
}
