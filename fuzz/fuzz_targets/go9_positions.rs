//! Fuzz target `go9_positions`: the body is [`gamefs::fuzzing::go9_positions`], shared with tests/fuzz_corpus.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gamefs::fuzzing::go9_positions(data));
