//! The binary database formats. Each submodule knows one format and nothing above it.

pub mod charset;
pub mod scid;
