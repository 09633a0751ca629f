//! gamefs: mount chess and Go game databases as folders of text files: SCID 4 and 5, Simple
//! Chess Database and PGN-file games as PGN, 9x9 Go positions (Darren Cook's format) as SGF.
//!
//! The layers, from disk to kernel (`docs/DESIGN.md` in the repository describes them and the
//! rules every module follows; `docs/formats/` the byte layouts):
//!
//! - [`store`] reads and writes the database formats (`scid` for SCID 4 and 5, `simplecdb`,
//!   `go9x9`; `pgn` reads a PGN file as a database), each knowing what its format can hold;
//! - [`game`] is the model they decode into: a chess game tree, a 9x9 Go board;
//! - [`text`] renders the model as PGN and SGF and parses both back;
//! - [`collection`] joins a store with its text format into numbered text files and their
//!   views, the one interface the tree sees;
//! - [`vfs`] is the file tree: names, inodes, attributes, drafts, saves, errno;
//! - [`fuse`] adapts the tree to the kernel through fuser and mounts it.
//!
//! Beside them: [`error`] holds the one error type and its errno mapping, [`fuzzing`] the bodies
//! of the fuzz targets in `fuzz/`, and [`testing`] the random games and numbers every test shares. The `gamefs`
//! binary (`src/main.rs`, `src/cli/`) is the command line on top of this library.

pub mod collection;
pub(crate) mod decimal;
pub mod error;
pub mod fuse;
pub mod fuzzing;
pub mod game;
pub mod store;
pub mod testing;
pub mod text;
pub mod vfs;

pub use error::{Error, ErrorKind, Result};
