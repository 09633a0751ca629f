//! Fuzz target `pgn`: the body is [`gamefs::fuzzing::pgn`], shared with tests/fuzz_corpus.rs;
//! [`gamefs::fuzzing::pgn_init`] runs once first.
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: gamefs::fuzzing::pgn_init(),
    |data: &[u8]| gamefs::fuzzing::pgn(data)
);
