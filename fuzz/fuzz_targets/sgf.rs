//! Fuzz target `sgf`: the body is [`gamefs::fuzzing::sgf`], shared with tests/fuzz_corpus.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gamefs::fuzzing::sgf(data));
