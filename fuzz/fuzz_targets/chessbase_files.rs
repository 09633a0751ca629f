//! Fuzz target `chessbase_files`: the body is [`gamefs::fuzzing::chessbase_files`], shared with tests/fuzz_corpus.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gamefs::fuzzing::chessbase_files(data));
