# gamefs developer recipes. `just` is optional: every recipe is a plain command you can run.

# Mount the bundled sample database at ./gamefs-demo (Ctrl-C quits).
demo:
    contrib/dev/demo

# The whole test suite (unit, real SCID and PGN readers, real mounts); what CI runs.
test:
    contrib/dev/test

# Formatting, lints and the duplicate-code check.
lint:
    cargo fmt --check
    cargo clippy --all-targets --all-features -- -D warnings

# Rebuild the bundled sample database from contrib/sample/demo.pgn with Debian's SCID.
demo-data:
    rm -f contrib/sample/demo.si4 contrib/sample/demo.sn4 contrib/sample/demo.sg4
    contrib/tools/scid-import.sh contrib/sample/demo.pgn contrib/sample/demo
