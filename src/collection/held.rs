//! Parts of a mapped index read into the mount's memory and kept there: the header index
//! whole, the position index's game statistics. Mapped pages are not dropped with the page
//! cache, so a question asked after `drop_caches` reads no disk, while the kernel may still
//! take them back when memory runs short (they are the file's).

use std::ops::Range;

use memmap2::Mmap;

/// Read bytes `range` of `map` into memory now. Linux 5.14 and later fault every page in
/// (`MADV_POPULATE_READ`); before, the read is only asked for (`MADV_WILLNEED`). Called by
/// the threads that find an index in the background, never by a question, which would wait
/// for the whole read.
pub(crate) fn hold(map: &Mmap, range: Range<usize>) {
    if map
        .advise_range(memmap2::Advice::PopulateRead, range.start, range.len())
        .is_err()
    {
        let _ = map.advise_range(memmap2::Advice::WillNeed, range.start, range.len());
    }
}
