//! TEMPORARY stub until the record decoder lands.
use crate::error::{Error, Result};
use crate::game::{Line, StartPosition};
/// Stub.
pub struct Record {
    /// Stub.
    pub extra_tags: Vec<(String, String)>,
    /// Stub.
    pub start: StartPosition,
    /// Stub.
    pub moves: Line,
}
/// Stub.
pub fn decode(_bytes: &[u8]) -> Result<Record> {
    Err(Error::corrupt_record("decoder not yet written"))
}
