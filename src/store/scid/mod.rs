//! SCID 4 databases (.si4 index, .sn4 names, .sg4 game records); byte layout in spec/scid4.md.

pub mod pieces;
pub mod record;
