//! gamefs: mount chess and Go game databases as folders of text files.
//!
//! The layers, from disk to kernel (see `docs/DESIGN.md` in the shared design notes):
//! [`store`] decodes the binary formats into the [`game`] model, [`text`] renders the model as
//! PGN, [`vfs`] arranges games as a tree of files, and `fuse` (in the binary) adapts the tree
//! to the kernel. [`fuzzing`] holds the bodies of the fuzz targets in `fuzz/`.

pub mod collection;
pub mod error;
pub mod fuse;
pub mod fuzzing;
pub mod game;
pub mod store;
pub mod testing;
pub mod text;
pub mod vfs;

pub use error::{Error, ErrorKind, Result};
