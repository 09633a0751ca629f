//! Fuzz target `pgn`: the body is [`gamefs::fuzzing::pgn`], shared with tests/fuzz_corpus.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gamefs::fuzzing::pgn(data));
