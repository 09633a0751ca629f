//! The members of a zip archive: read through its central directory; an archive cut short
//! (no central directory) read member by member from its start, as far as it is whole.

use std::io::BufReader;
use std::sync::Arc;

use ::zip::result::ZipError;
use ::zip::{CompressionMethod, ZipArchive};

use super::in_place::{Method, Placed};
use super::{Members, encrypted};
use crate::error::{Error, ErrorKind, Result};
use crate::store::blob::{Blob, Reader};

/// Hand each member of the zip archive `blob` to `into`.
pub(super) fn read(blob: &Arc<Blob>, into: &mut dyn Members) -> Result<()> {
    let input = BufReader::with_capacity(64 << 10, Reader::new(blob.clone(), 0));
    let mut zip = match ZipArchive::new(input) {
        Ok(zip) => zip,
        Err(e) => return read_in_order(blob, into, e),
    };
    for i in 0..zip.len() {
        let (name, is_dir, is_encrypted, placed) = match zip.by_index_raw(i) {
            Ok(f) => (
                f.name().map(|n| n.into_owned()).unwrap_or_default(),
                f.is_dir(),
                f.encrypted(),
                placed(&f),
            ),
            Err(e) => {
                into.refused(&format!("member {}", i + 1), member_error(e));
                continue;
            }
        };
        if is_dir || !into.wants(&name) {
            continue;
        }
        if is_encrypted {
            into.refused(&name, encrypted());
            continue;
        }
        if placed.is_some_and(|at| into.place(&name, at)) {
            continue;
        }
        match zip.by_index(i) {
            Ok(mut f) => {
                let packed = f.compressed_size();
                into.file(&name, packed, &mut f)?;
            }
            Err(e) => into.refused(&name, member_error(e)),
        }
    }
    Ok(())
}

/// Where member `f` (opened raw, its local header read) lies, when it can be read in place:
/// stored or deflated.
fn placed<R: std::io::Read>(f: &::zip::read::ZipFile<'_, R>) -> Option<Placed> {
    let method = match f.compression() {
        CompressionMethod::Stored => Method::Stored,
        CompressionMethod::Deflated => Method::Deflated {
            crc32: f.crc32(),
            size: f.size(),
        },
        _ => return None,
    };
    Some(Placed {
        data_start: f.data_start()?,
        packed: f.compressed_size(),
        method,
    })
}

/// Read a zip archive without a central directory (cut short) from its start, member after
/// member, as `unzip` cannot: what is whole is handed on, and the rest refused with `why`.
fn read_in_order(blob: &Arc<Blob>, into: &mut dyn Members, why: ZipError) -> Result<()> {
    let mut input = BufReader::with_capacity(64 << 10, Reader::new(blob.clone(), 0));
    let mut read_any = false;
    loop {
        match ::zip::read::read_zipfile_from_stream(&mut input) {
            Ok(Some(mut f)) => {
                read_any = true;
                let name = f.name().map(|n| n.into_owned()).unwrap_or_default();
                if f.is_dir() || !into.wants(&name) {
                    std::io::copy(&mut f, &mut std::io::sink())
                        .map_err(|e| Error::io(format!("{name}: damaged or cut short"), e))?;
                } else if f.encrypted() {
                    into.refused(&name, encrypted());
                    return Ok(());
                } else {
                    let packed = f.compressed_size();
                    into.file(&name, packed, &mut f)?;
                }
            }
            Ok(None) => return Ok(()),
            Err(e) if read_any => {
                into.refused(
                    "the rest of the archive",
                    Error::new(
                        ErrorKind::CorruptDatabase,
                        format!("cut short or damaged ({why}; then {e}): not unpacked"),
                    ),
                );
                return Ok(());
            }
            Err(_) => {
                return Err(Error::new(
                    ErrorKind::UnknownFormat,
                    format!("not a zip archive that reads ({why})"),
                ));
            }
        }
    }
}

/// The error of a member that does not open.
fn member_error(e: ZipError) -> Error {
    match e {
        ZipError::UnsupportedArchive(m) if m == ZipError::PASSWORD_REQUIRED => encrypted(),
        ZipError::UnsupportedArchive(_) | ZipError::CompressionMethodNotSupported(_) => {
            Error::new(ErrorKind::Unsupported, format!("{e}: not supported"))
        }
        e => Error::new(ErrorKind::CorruptDatabase, format!("damaged ({e})")),
    }
}
