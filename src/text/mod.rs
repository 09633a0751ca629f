//! Text formats.
