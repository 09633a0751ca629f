//! Tests that mount gamefs for real, through the kernel, and use it with ordinary tools.
//! Run with `cargo test --features mount-tests` (contrib/dev/test does), as root or with fusermount3.

mod all_files;
mod archives;
mod bulk;
mod chessbase;
mod cli;
mod concurrency;
mod corrupt;
mod crash;
#[path = "../tests/damage/mod.rs"]
mod damage;
mod diskfull;
mod doc_examples;
mod doc_shell;
mod ecosystem;
mod editors;
mod fixtures;
mod garage;
mod go9;
mod handles;
mod harness;
mod hostile;
mod index_options;
mod nfs;
mod other_writers;
mod pgnfile;
mod positions;
mod posix;
mod remote;
mod samba;
mod save;
mod scid5;
mod simplecdb;
mod sys;
mod times;
mod tkscid;
mod tree;
mod union;
