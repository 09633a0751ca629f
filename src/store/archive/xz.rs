//! One file compressed by `xz` (`games.pgn.xz`), read as an archive of one member: every
//! stream and block decoded in order by liblzma.

use std::io::BufReader;
use std::sync::Arc;

use super::Members;
use crate::error::Result;
use crate::store::blob::{Blob, Reader};

/// Hand the one file `blob` holds, named `name` (its name without `.xz`), to `into`.
pub(super) fn read(blob: &Arc<Blob>, name: &str, into: &mut dyn Members) -> Result<()> {
    if !into.wants(name) {
        return Ok(());
    }
    let input = BufReader::with_capacity(256 << 10, Reader::to_end(blob.clone(), 0));
    let mut decoded = liblzma::bufread::XzDecoder::new_multi_decoder(input);
    into.file(name, blob.len()?, &mut decoded)
}
