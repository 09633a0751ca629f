//! Fuzz target `chessbase_game`: the body is [`gamefs::fuzzing::chessbase_game`], shared with tests/fuzz_corpus.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gamefs::fuzzing::chessbase_game(data));
