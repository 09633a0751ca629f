//! Saving games like SCID, byte for byte, against Debian's SCID 4.7.4.
//!
//! - `replacing_games_matches_scids_own_save`: two identical copies A and B of a database that
//!   SCID built from `contrib/sample/demo.pgn` (with the D flag, user flags and custom flags set
//!   on some games by SCID itself). Game by game, A is edited by SCID (`sc_game new`,
//!   `sc_game import TEXT`, `sc_game save K` in tkscid, as the GUI's import window and "Replace
//!   game" do) and B by gamefs (`ScidDatabase::replace` of `pgn_parse::one_game(TEXT)`). After
//!   every replacement the .si4, .sn4 and .sg4 of A and B must be byte-identical: the appended
//!   record, the 128 KiB block filler, the repointed entry (D cleared, user flags kept, S/X/Y
//!   recomputed), the name file with its new names and frequencies, the header.
//! - `import_matches_sc_import_*`: `gamefs import --create` of PGN files writes the same three
//!   files as `sc_import` into an empty database made by `sc_base create`.
//!
//! Comments keep their runs of spaces, as SCID keeps them (newlines and tabs become spaces,
//! the ends are trimmed); the random games of `gen_test_pgn.py` contain such comments.
#![cfg(feature = "oracle-tests")]

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use gamefs::store::ChessStore;
use gamefs::store::scid::ScidDatabase;
use gamefs::text::pgn_parse;

use common::{hex_diff, repo, run, scid_import, work_dir};

/// Run a Tcl script with tkscid (`argv` = `args`); returns its stdout.
fn tkscid(dir: &Path, script: &str, args: &[&Path]) -> String {
    let file = dir.join("script.tcl");
    std::fs::write(&file, script).unwrap();
    let out = run(Command::new("tkscid").arg(&file).args(args));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `base` with `.ext` appended.
fn file(base: &Path, ext: &str) -> PathBuf {
    let mut s = base.as_os_str().to_owned();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

/// Copy the three files of `src` to `dst`.
fn copy_db(src: &Path, dst: &Path) {
    for ext in ["si4", "sn4", "sg4"] {
        std::fs::copy(file(src, ext), file(dst, ext)).unwrap();
    }
}

/// `Ok` when the three files of the two databases are byte-identical, else the hex diff of the
/// first differing region of each differing file (and, for the index, which game's entry).
fn compare(ours: &Path, scid: &Path) -> Result<(), String> {
    let mut report = String::new();
    for ext in ["si4", "sn4", "sg4"] {
        let a = std::fs::read(file(ours, ext)).unwrap();
        let b = std::fs::read(file(scid, ext)).unwrap();
        if a != b {
            let _ = write!(report, ".{ext} differs: {}", hex_diff(&a, &b));
            if ext == "si4"
                && let Some(i) = (0..a.len().min(b.len())).find(|&i| a[i] != b[i])
                && i >= 182
            {
                let _ = writeln!(
                    report,
                    "  (game {}'s entry, byte {})",
                    (i - 182) / 47 + 1,
                    (i - 182) % 47
                );
            }
        }
    }
    if report.is_empty() {
        Ok(())
    } else {
        Err(report)
    }
}

/// Replace game `k` (1-based) of the database at argv 0 with the one game of the PGN file at
/// argv 2, as SCID's GUI does: a new empty game, the text imported into it, saved over game k.
const SCID_REPLACE: &str = r#"
set b [sc_base open [lindex $argv 0]]
set k [lindex $argv 1]
set f [open [lindex $argv 2] r]
fconfigure $f -encoding utf-8
set text [read $f]
close $f
sc_game new
set msg [sc_game import $text]
if {![string match "*no errors or warnings*" $msg]} {
    puts stderr "sc_game import: $msg"
    exit 1
}
sc_game save $k $b
sc_base close $b
exit 0
"#;

/// The flags SCID itself sets before the edits: game 3 deleted, game 5 white/black/custom 1
/// and 6, game 2 deleted with `!` and user, game 30 with tactics and custom 3, game 11 deleted.
const SCID_FLAGS: &str = r#"
set b [sc_base open [lindex $argv 0]]
foreach {g flag} {3 del 5 W 5 B 5 1 5 6 2 del 2 ! 2 U 30 T 30 3 11 del} {
    sc_base gameflag $b $g set $flag
}
sc_base close $b
exit 0
"#;

/// One edit: game `k` (1-based) becomes `text`.
struct Edit {
    k: u32,
    what: &'static str,
    text: String,
}

fn edits() -> Vec<Edit> {
    let mut v = vec![
        Edit {
            k: 3,
            what: "deleted game: new event name, comment, NAG and a variation",
            text: "[Event \"Immortal Game, annotated\"]\n[Site \"London\"]\n[Date \"1851.06.21\"]\n\
                   [Round \"?\"]\n[White \"Anderssen, Adolf\"]\n[Black \"Kieseritzky, Lionel\"]\n\
                   [Result \"1-0\"]\n[ECO \"C33\"]\n\n{An edited pre-game comment.} 1. e4 e5 2. f4 \
                   exf4 3. Bc4 $5 Qh4+ 4. Kf1 b5 $6 (4... d6 {is quieter.} 5. Nf3 $14) 5. Bxb5 Nf6 \
                   6. Nf3 Qh6 7. d3 Nh5 8. Nh4 Qg5 9. Nf5 c6 10. g4 Nf6 11. Rg1 $1 cxb5 12. h4 Qg6 \
                   13. h5 Qg5 14. Qf3 Ng8 15. Bxf4 Qf6 16. Nc3 Bc5 17. Nd5 Qxb2 18. Bd6 $3 Bxg1 \
                   19. e5 Qxa1+ 20. Ke2 Na6 21. Nxg7+ Kd8 22. Qf6+ Nxf6 23. Be7# {Mate.} 1-0\n"
                .into(),
        },
        Edit {
            k: 5,
            what: "user and custom flags: new players, new moves, ratings, ECO, EventDate, extra tags",
            text: "[Event \"1st American Chess Congress\"]\n[Site \"New York\"]\n[Date \"1857.11.08\"]\n\
                   [Round \"4.6\"]\n[White \"Newplayer, Anna\"]\n[Black \"Other, Bob\"]\n\
                   [Result \"0-1\"]\n[WhiteElo \"2105\"]\n[BlackUSCF \"1980\"]\n[ECO \"C42b\"]\n\
                   [EventDate \"1857.10.06\"]\n[Annotator \"gamefs test\"]\n[Opening \"Petrov\"]\n\
                   [CustomTag \"kept as is\"]\n\n1. e4 e5 2. Nf3 Nf6 3. Nxe5 d6 4. Nf3 Nxe4 5. d4 \
                   d5 6. Bd3 Be7 7. O-O Nc6 8. c4 Nb4 9. Be2 O-O 10. Nc3 Bf5 11. a3 Nxc3 12. bxc3 \
                   Nc6 13. Re1 Re8 14. cxd5 Qxd5 15. Bf4 Rac8 16. Qc1 Na5 17. Qb2 Qd7 18. Bd1 Nc4 \
                   19. Qb3 Bd6 20. Rxe8+ Rxe8 0-1\n"
                .into(),
        },
        Edit {
            k: 1,
            what: "nested variations with starting comments, several NAGs on one move",
            text: "[Event \"Casual game\"]\n[Site \"Rome\"]\n[Date \"1620.??.??\"]\n[Round \"?\"]\n\
                   [White \"Greco, Gioachino\"]\n[Black \"NN\"]\n[Result \"1-0\"]\n[ECO \"B00\"]\n\n\
                   1. e4 b6 2. d4 Bb7 3. Bd3 f5 $2 $18 $140 (3... e6 $1 {solid} (3... Nf6 4. e5 \
                   (4. Qe2 {keeps the pawn} d5 $10) 4... Nd5 $13) 4. Nf3 c5 $15) 4. exf5 Bxg2 \
                   5. Qh5+ g6 6. fxg6 Nf6 $4 ({was necessary:} 6... Bg7 7. gxh7+ Kf8 8. hxg8=Q+ \
                   Kxg8 9. Qg6 $18) 7. gxh7+ Nxh5 8. Bg6# 1-0\n"
                .into(),
        },
        Edit {
            k: 2,
            what: "standard start becomes a FEN start (Black to move, no SetUp tag)",
            text: "[Event \"Casual game\"]\n[Site \"Paris\"]\n[Date \"1750.??.??\"]\n[Round \"?\"]\n\
                   [White \"Legall de Kermeur, François Antoine\"]\n[Black \"Saint Brie\"]\n\
                   [Result \"1-0\"]\n[FEN \"rn1qkbnr/ppp2p1p/3p2p1/4N3/2B1P1b1/2N5/PPPP1PPP/R1BQK2R b KQkq - 0 5\"]\n\n\
                   5... Bxd1 6. Bxf7+ Ke7 7. Nd5# {Legall's mate.} 1-0\n"
                .into(),
        },
        Edit {
            k: 30,
            what: "FEN start becomes the standard start, a null move in a variation",
            text: "[Event \"gamefs sample: the Lucena position\"]\n[Site \"?\"]\n[Date \"2026.??.??\"]\n\
                   [Round \"?\"]\n[White \"Sample, White\"]\n[Black \"Sample, Black\"]\n[Result \"*\"]\n\n\
                   1. d4 d5 2. c4 (2. Nf3 -- 3. c4) 2... e6 3. Nc3 Nf6 *\n"
                .into(),
        },
        Edit {
            k: 11,
            what: "deleted FEN game: another FEN with promotion and under-promotion",
            text: "[Event \"Barbier-Saavedra study, edited\"]\n[Site \"Glasgow\"]\n[Date \"1895.??.??\"]\n\
                   [Round \"?\"]\n[White \"Saavedra, Fernando\"]\n[Black \"Study\"]\n[Result \"1-0\"]\n\
                   [FEN \"8/8/1KP5/3r4/8/8/8/k7 w - - 0 1\"]\n\n1. c7 Rd6+ 2. Kb5 (2. Kc5 $2 Rd1 \
                   3. c8=Q Rc1+) 2... Rd5+ 3. Kb4 Rd4+ 4. Kb3 Rd3+ 5. Kc2 Rd4 6. c8=R $1 (6. c8=Q $2 \
                   Rc4+ 7. Qxc4) 6... Ra4 7. Kb3 $18 1-0\n"
                .into(),
        },
        Edit {
            k: 3,
            what: "the same game again: the name of the first replacement loses its last game",
            text: "[Event \"Casual game\"]\n[Site \"London\"]\n[Date \"1851.06.21\"]\n[Round \"1\"]\n\
                   [White \"Anderssen, Adolf\"]\n[Black \"Kieseritzky, Lionel\"]\n[Result \"1-0\"]\n\n\
                   1. e4 e5 2. f4 exf4 3. Bc4 Qh4+ 4. Kf1 1-0\n"
                .into(),
        },
    ];
    // Three games with ~45 KB of comments each take the game file over 128 KiB: one of them
    // is placed at the next block with filler before it, as SCID does.
    for (i, k) in [7u32, 8, 9].into_iter().enumerate() {
        let mut text = format!(
            "[Event \"Long comments {i}\"]\n[Site \"?\"]\n[Date \"2026.01.0{}\"]\n[Round \"{i}\"]\n\
             [White \"Writer, Long\"]\n[Black \"Reader, Patient\"]\n[Result \"1/2-1/2\"]\n\n",
            i + 1
        );
        let moves = [
            "1. Nf3", "Nf6", "2. Ng1", "Ng8", "3. Nc3", "Nc6", "4. Nb1", "Nb8",
        ];
        for (j, m) in moves.iter().enumerate() {
            let words: Vec<String> = (0..800).map(|w| format!("w{i}{j}x{}", w * 7 + j)).collect();
            let _ = write!(text, "{m} {{{}}} ", words.join(" "));
        }
        text.push_str("1/2-1/2\n");
        v.push(Edit {
            k,
            what: "about 45 KB of comments",
            text,
        });
    }
    v
}

/// What the entry of game `k` (1-based) in the index at `base` says about flags:
/// (flags word, custom flag byte).
fn flags(base: &Path, k: u32) -> (u16, u8) {
    let si4 = std::fs::read(file(base, "si4")).unwrap();
    let at = 182 + 47 * (k as usize - 1);
    (u16::from_be_bytes([si4[at + 7], si4[at + 8]]), si4[at + 6])
}

#[test]
fn replacing_games_matches_scids_own_save() {
    let dir = work_dir("replace");
    let orig = scid_import(
        dir.path(),
        "orig",
        &[repo().join("contrib/sample/demo.pgn")],
    );
    tkscid(dir.path(), SCID_FLAGS, &[&orig]);
    assert_eq!(flags(&orig, 3).0 & 8, 8, "SCID set the D flag of game 3");
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    copy_db(&orig, &a);
    copy_db(&orig, &b);
    let mut failures = String::new();
    let edits = edits();
    let mut crossed_block = false;
    for (step, e) in edits.iter().enumerate() {
        let pgn = dir.path().join(format!("edit{step}.pgn"));
        std::fs::write(&pgn, &e.text).unwrap();
        let k = PathBuf::from(e.k.to_string());
        tkscid(dir.path(), SCID_REPLACE, &[&a, &k, &pgn]);
        let game = pgn_parse::one_game(e.text.as_bytes())
            .unwrap_or_else(|err| panic!("edit {step}: gamefs refuses the text: {err}"));
        let before = std::fs::metadata(file(&b, "sg4")).unwrap().len();
        {
            let db = ScidDatabase::open(&b, true).unwrap();
            assert!(
                db.replace(e.k - 1, &game).unwrap(),
                "edit {step}: replace appended nothing"
            );
        }
        let after = std::fs::metadata(file(&b, "sg4")).unwrap().len();
        crossed_block |= before / 131_072 != after / 131_072;
        if let Err(diff) = compare(&b, &a) {
            let _ = writeln!(failures, "edit {step} (game {}: {}):\n{diff}", e.k, e.what);
            // Go on from SCID's state so that one difference does not hide the next.
            copy_db(&a, &b);
        }
    }
    assert!(
        failures.is_empty(),
        "gamefs's replace differs from SCID's save:\n{failures}"
    );
    assert!(crossed_block, "one record went past a 128 KiB boundary");
    // What the edits were meant to exercise really happened (in both, as they are equal).
    let (g3, _) = flags(&a, 3);
    assert_eq!(g3 & 8, 0, "replacing cleared D");
    let (g5, custom5) = flags(&a, 5);
    assert_eq!(custom5 & 0b10_0001, 0b10_0001, "custom flags 1 and 6 kept");
    assert_ne!(g5 & !0xF, 0, "user flags W and B kept");
    let (g2, _) = flags(&a, 2);
    assert_eq!(g2 & 0b1001, 0b0001, "game 2: D cleared, S (FEN start) set");
    let (g30, custom30) = flags(&a, 30);
    assert_eq!(g30 & 1, 0, "game 30: S cleared");
    assert_eq!(custom30, 0b100, "custom flag 3 kept");
    let (g11, _) = flags(&a, 11);
    assert_eq!(g11 & 0b1111, 0b0111, "game 11: S, X, Y set, D cleared");
    eprintln!("{} replacements byte-identical to SCID's save", edits.len());
}

/// Compare `gamefs import --create` of `pgns` (one run, files in order) with `sc_import` of
/// the same files one after the other into an empty database; returns the game count.
fn import_matches(name: &str, pgns: &[PathBuf]) -> u32 {
    let dir = work_dir(name);
    let scid = scid_import(dir.path(), "scid", pgns);
    let ours = dir.path().join("ours");
    run(Command::new(env!("CARGO_BIN_EXE_gamefs"))
        .args(["import", "--create", "--quiet"])
        .arg(&ours)
        .args(pgns));
    if let Err(diff) = compare(&ours, &scid) {
        panic!(
            "gamefs import of {pgns:?} differs from sc_import:\n{diff}\n{}",
            record_differences(&ours, &scid)
        );
    }
    ScidDatabase::open(&ours, false).unwrap().game_count()
}

/// For a failure message: which games' records differ, with the first differing region.
fn record_differences(ours: &Path, scid: &Path) -> String {
    let a = ScidDatabase::open(ours, false).unwrap();
    let b = ScidDatabase::open(scid, false).unwrap();
    let mut s = String::new();
    let mut n_diff = 0;
    for n in 0..a.game_count().min(b.game_count()) {
        let (ra, rb) = (a.record_bytes(n).unwrap(), b.record_bytes(n).unwrap());
        if ra != rb {
            n_diff += 1;
            if n_diff <= 5 {
                let _ = write!(s, "game {} record: {}", n + 1, hex_diff(&ra, &rb));
            }
        }
    }
    let _ = writeln!(
        s,
        "{n_diff} of {} records differ ({} and {} games)",
        a.game_count().min(b.game_count()),
        a.game_count(),
        b.game_count()
    );
    s
}

#[test]
fn import_matches_sc_import_for_the_demo_games() {
    let n = import_matches("demo", &[repo().join("contrib/sample/demo.pgn")]);
    assert_eq!(n, 30);
}

#[test]
fn import_matches_sc_import_for_random_games() {
    let dir = work_dir("fuzz-pgn");
    let pgn = dir.path().join("fuzz.pgn");
    run(Command::new("python3")
        .arg(repo().join("contrib/tools/gen_test_pgn.py"))
        .args(["fuzz", "300"])
        .arg(&pgn)
        .args(["--seed", "21"]));
    assert_eq!(import_matches("fuzz", &[pgn]), 300);
}

/// Two files one after the other: the second import adds names to the sorted name file and
/// reuses the names the first one made.
#[test]
fn import_matches_sc_import_for_two_files_in_turn() {
    let dir = work_dir("two-pgn");
    let first = dir.path().join("first.pgn");
    let second = dir.path().join("second.pgn");
    // The second file shares players, events and sites with the first and brings new ones.
    std::fs::copy(repo().join("contrib/sample/demo.pgn"), &first).unwrap();
    std::fs::write(
        &second,
        "[Event \"Casual game\"]\n[Site \"London\"]\n[Date \"1852.??.??\"]\n[Round \"2\"]\n\
         [White \"Kieseritzky, Lionel\"]\n[Black \"Anderssen, Adolf\"]\n[Result \"0-1\"]\n\n\
         1. e4 e5 2. f4 exf4 0-1\n\n\
         [Event \"Aachen\"]\n[Site \"Aachen\"]\n[Date \"1868.??.??\"]\n[Round \"3\"]\n\
         [White \"Aardvark, Able\"]\n[Black \"Morphy, Paul\"]\n[Result \"1/2-1/2\"]\n\n\
         1. d4 d5 1/2-1/2\n\n\
         [Event \"Zurich\"]\n[Site \"Zürich\"]\n[Date \"1953.??.??\"]\n[Round \"4\"]\n\
         [White \"Zzyzx, Zed\"]\n[Black \"Botvinnik, Mikhail\"]\n[Result \"*\"]\n\n1. c4 *\n",
    )
    .unwrap();
    assert_eq!(import_matches("two", &[first, second]), 33);
}
