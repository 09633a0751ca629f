//! Virtual tree.
