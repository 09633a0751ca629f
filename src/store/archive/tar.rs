//! The members of a tar archive, plain or compressed around it, read in order (tar has no
//! table of its members): the decoders are those of the PGN store's codecs, and `xz`'s.

use std::io::{BufReader, Read};
use std::sync::Arc;

use super::Members;
use super::kind::TarCodec;
use crate::error::{Error, ErrorKind, Result};
use crate::store::blob::{Blob, Reader};

/// Hand each regular file of the tar archive `blob`, compressed as `codec`, to `into`.
pub(super) fn read(blob: &Arc<Blob>, codec: TarCodec, into: &mut dyn Members) -> Result<()> {
    let input = BufReader::with_capacity(256 << 10, Reader::to_end(blob.clone(), 0));
    let decoded: Box<dyn Read> = match codec {
        TarCodec::Plain => Box::new(input),
        TarCodec::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(input)),
        TarCodec::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(input)),
        TarCodec::Xz => Box::new(liblzma::bufread::XzDecoder::new_multi_decoder(input)),
        TarCodec::Zstd => Box::new(
            zstd::stream::read::Decoder::with_buffer(input)
                .map_err(|e| Error::io("decoding it (zstd)", e))?,
        ),
    };
    // The whole archive is the packed size each member is weighed against.
    let packed = blob.len()?;
    let mut archive = tar::Archive::new(decoded);
    let entries = archive
        .entries()
        .map_err(|e| Error::io("reading it (tar)", e))?;
    for entry in entries {
        let mut entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                into.refused(
                    "the rest of the archive",
                    Error::new(
                        ErrorKind::CorruptDatabase,
                        format!("cut short or damaged ({e}): not unpacked"),
                    ),
                );
                return Ok(());
            }
        };
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        if into.wants(&name) {
            into.file(&name, packed, &mut entry)?;
        }
    }
    Ok(())
}
