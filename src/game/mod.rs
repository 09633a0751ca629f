//! The game model: what a chess game *is*, independent of any file format or text notation.
//!
//! Stores decode their records into these types and encode them back; the text layer renders
//! and parses them. Nothing here knows bytes on disk or FUSE.

pub(crate) mod chess;
pub(crate) mod date;
pub mod go;
pub(crate) mod legal;
pub mod replay;
pub mod visit;

pub use chess::{
    ChessGame, GameResult, Headers, Line, MoveNode, Ply, Rating, RatingType, StartPosition,
    normalize_comment,
};
pub use date::PartialDate;
