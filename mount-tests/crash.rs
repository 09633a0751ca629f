//! kill -9 during saves (docs/DESIGN.md rule 7, durability order).
//!
//! A private database (SCID's import of `contrib/sample/demo.pgn`) is mounted again and again.
//! Each round a worker process saves through the mount without pause: rewrites a game with a
//! new Site (a new name) in place (truncate, write, fsync) or by renaming a scratch file over
//! it, copies a new 2-game PGN into `games/`, or `rm`s a game. It reports each operation
//! before it starts and again only once its fsync/close/rename returned success (then the
//! save is *acknowledged*). After a random delay (5–200 ms) the gamefs process is killed
//! with SIGKILL and the mount detached. Then:
//!
//! (a) Debian SCID opens the database and exports every game (`scid-export.sh` succeeds),
//!     and the exported game count equals the header count and the number of entries. One
//!     exception is allowed and counted (`interrupted_appends`): a kill between an import's
//!     header count and its entries (the write order SCID's own checks force: more entries
//!     than counted makes SCID refuse the database) leaves the in-flight games counted but
//!     missing; SCID opens it and exports the rest, and gamefs's next writable open repairs
//!     the count, after which SCID must export every game;
//! (b) every acknowledged change is there (Site, imported games by Event, D flags), nothing
//!     else changed, and the one operation in flight is either wholly there or wholly absent;
//! (c) gamefs mounts the database again and lists every game (next round, and once at the end).
//!
//! A SIGKILL loses nothing the process already wrote (the page cache survives), so this
//! checks the order of the writes and what each crash point leaves, not power-loss
//! durability. The database is kept from round to round, so damage would accumulate.
//! `GAMEFS_CRASH_KILLS` sets the number of rounds (default 25; 1000 for a long run),
//! `GAMEFS_CRASH_SEED` the random seed (printed on every run).
//!
//! The variant with another writer (docs/SEMANTICS.md §10a): between kills SCID's own program
//! (a `tkscid` script of Debian's SCID 4) adds a game and replaces one, while gamefs is down
//! (even rounds) or while it is mounted, before the worker saves (odd rounds). The checks
//! take SCID's changes in as acknowledged, and each round SCID also counts the games itself
//! and `gamefs check -q` passes: after SCID's change, at the end, and after every kill but
//! for one thing a kill can leave, counted (`interrupted_name_files`): a name file that
//! already counts the names of the save in flight. `GAMEFS_CRASH_KILLS` sets its rounds too
//! (default 6).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::harness::{
    Mount, eventually, force_unmount, gamefs, listing, repo, run_with_timeout, scid_import, scratch,
};
use crate::tkscid::{SITE, Scid, Step, pgn};
use gamefs::testing::Rng;

/// The worker: saves through the mount at `argv[1]` until something fails, printing
/// `BEGIN <op> <args>` before and `ACK <op> <args>` after each acknowledged operation.
const WORKER: &str = r#"
import os, random, re, sys
mnt, seed, tag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rng = random.Random(seed)
games = os.path.join(mnt, 'games')

def say(*a):
    sys.stdout.write(' '.join(str(x) for x in a) + '\n')
    sys.stdout.flush()

def write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]

def two_games(marker):
    g = ''
    for rnd, (res, moves) in enumerate([('1-0', '1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0'),
                                        ('0-1', '1. f3 e5 2. g4 Qh4# 0-1')]):
        g += ('[Event "crash %s"]\n[Site "Crashville"]\n[Date "2026.01.01"]\n[Round "%d"]\n'
              '[White "Crash, Anna"]\n[Black "Crash, Bob"]\n[Result "%s"]\n\n%s\n\n'
              % (marker, rnd + 1, res, moves))
    return g.encode()

say('READY')
op = 0
r = 1.0
try:
    while True:
        op += 1
        marker = '%so%d' % (tag, op)
        r = 1.0
        names = sorted(n for n in os.listdir(games) if n.endswith('.pgn'))
        r = rng.random()
        if r < 0.5:
            name = rng.choice(names)
            n = int(name.split(' ', 1)[0])
            path = os.path.join(games, name)
            with open(path, 'rb') as f:
                text = f.read().decode()
            if not text:
                say('ERR 0 empty read of game', n, 'size', os.stat(path).st_size,
                    'reread', len(open(path, 'rb').read()))
                sys.exit(0)
            new = re.sub(r'^\[Site "[^"]*"\]$', '[Site "crash %s"]' % marker, text,
                         count=1, flags=re.M).encode()
            say('BEGIN rewrite', n, marker)
            if r < 0.25:
                fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
                write_all(fd, new)
                os.fsync(fd)
                os.close(fd)
            else:
                tmp = os.path.join(games, '.crash-%s.tmp' % marker)
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                write_all(fd, new)
                os.fsync(fd)
                os.close(fd)
                os.rename(tmp, path)
            say('ACK rewrite', n, marker)
        elif r < 0.75 or len(names) < 10:
            path = os.path.join(games, 'crash-%s.pgn' % marker)
            say('BEGIN import', marker)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            write_all(fd, two_games(marker))
            os.fsync(fd)
            os.close(fd)
            say('ACK import', marker)
        else:
            name = rng.choice(names)
            n = int(name.split(' ', 1)[0])
            say('BEGIN rm', n)
            os.remove(os.path.join(games, name))
            say('ACK rm', n)
except OSError as e:
    say('ERR', e.errno, str(e).replace('\n', ' '), '(in place)' if r < 0.25 else '')
"#;

/// One game as the checks see it.
#[derive(Clone, Debug, PartialEq)]
struct Game {
    event: String,
    site: String,
    deleted: bool,
}

/// An operation of the worker.
#[derive(Clone, Debug, PartialEq)]
enum Op {
    Rewrite(usize, String),
    Import(String),
    Rm(usize),
}

impl Op {
    fn parse(words: &[&str]) -> Op {
        match words {
            ["rewrite", n, marker] => Op::Rewrite(n.parse().unwrap(), (*marker).to_owned()),
            ["import", marker] => Op::Import((*marker).to_owned()),
            ["rm", n] => Op::Rm(n.parse().unwrap()),
            _ => panic!("bad worker line {words:?}"),
        }
    }

    /// `games` with this operation done.
    fn apply(&self, games: &mut Vec<Game>) {
        match self {
            Op::Rewrite(n, marker) => games[n - 1].site = format!("crash {marker}"),
            Op::Import(marker) => {
                for _ in 0..2 {
                    games.push(Game {
                        event: format!("crash {marker}"),
                        site: "Crashville".into(),
                        deleted: false,
                    });
                }
            }
            Op::Rm(n) => games[n - 1].deleted = true,
        }
    }
}

/// What the rounds saw.
#[derive(Debug, Default)]
struct Tally {
    kills: usize,
    acknowledged: usize,
    in_flight_done: usize,
    in_flight_lost: usize,
    killed_before_first_op: usize,
    /// Kills between an append's header count and its entries (see `is_interrupted_append`).
    interrupted_appends: usize,
    /// Rounds that found a `.sn4.gamefs-tmp` left by a killed name-file write (harmless:
    /// the next save overwrites it).
    leftover_temp_files: usize,
    /// With SCID (whose checks run `gamefs check`): kills between a save's name file and its
    /// index entry, which leave the name file counting the lost save's names (see
    /// `only_interrupted_name_file`).
    interrupted_name_files: usize,
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name}={v} is not a number"))
        })
        .unwrap_or(default)
}

fn file(base: &Path, ext: &str) -> PathBuf {
    base.with_extension(ext)
}

/// What Debian SCID makes of the database.
struct ScidView {
    /// The games SCID exported, with the D flags of the index.
    games: Vec<Game>,
    /// The header's game count.
    count: usize,
    /// The number of whole entries in the index.
    entries: usize,
    /// Why `scid-export.sh` failed, if it did.
    error: Option<String>,
}

impl ScidView {
    /// Check (a): SCID exported every game and the header, entries and export agree.
    fn check(&self) -> Result<(), String> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.games.len() != self.count || self.count != self.entries {
            return Err(format!(
                "SCID exported {} games; the header counts {}, the index holds {} entries",
                self.games.len(),
                self.count,
                self.entries
            ));
        }
        Ok(())
    }

    /// The state an append leaves when killed between writing the header count and the
    /// entries (writer.rs order): the header counts the in-flight games, SCID opens the
    /// database, exports every game present and reports exactly the missing ones as
    /// unloadable; gamefs repairs the count when it next opens the database writable.
    fn is_interrupted_append(&self, in_flight: Option<&Op>) -> bool {
        let missing = self.count.saturating_sub(self.entries);
        let Some(error) = &self.error else {
            return false;
        };
        let unloadable: Vec<usize> = error
            .lines()
            .filter_map(|l| l.strip_prefix("game "))
            .filter_map(|l| l.split(':').next()?.parse().ok())
            .collect();
        matches!(in_flight, Some(Op::Import(_)))
            && (1..=2).contains(&missing)
            && self.games.len() == self.entries
            && unloadable == (self.entries + 1..=self.count).collect::<Vec<_>>()
    }
}

/// SCID's export of `db` and its index counts and D flags.
fn scid_view(db: &Path, dir: &Path) -> ScidView {
    let out = dir.join("export.pgn");
    let _ = std::fs::remove_file(&out);
    let result = run_with_timeout(
        Command::new(repo().join("contrib/tools/scid-export.sh"))
            .arg(db)
            .arg(&out),
        Duration::from_secs(120),
    );
    let error = (!result.status.success()).then(|| {
        format!(
            "scid-export.sh failed ({}):\n{}",
            result.status,
            String::from_utf8_lossy(&result.stderr)
        )
    });
    let pgn = std::fs::read_to_string(out).unwrap_or_default();
    let si4 = std::fs::read(file(db, "si4")).unwrap();
    let count = u32::from_be_bytes([0, si4[14], si4[15], si4[16]]) as usize;
    let entries = (si4.len() - 182) / 47;
    let tag = |line: &str, name: &str| {
        line.strip_prefix(&format!("[{name} \""))
            .and_then(|r| r.strip_suffix("\"]"))
            .map(str::to_owned)
    };
    let mut games: Vec<Game> = Vec::new();
    for line in pgn.lines() {
        if let Some(event) = tag(line, "Event") {
            games.push(Game {
                event,
                site: String::new(),
                deleted: false,
            });
        } else if let Some(site) = tag(line, "Site")
            && let Some(g) = games.last_mut()
        {
            g.site = site;
        }
    }
    for (i, g) in games.iter_mut().enumerate().take(entries) {
        g.deleted = si4[182 + 47 * i + 8] & 0x08 != 0;
    }
    ScidView {
        games,
        count,
        entries,
        error,
    }
}

/// The FUSE connection number of the mount at `path` (its device minor), from mountinfo.
fn fuse_connection(path: &Path) -> Option<String> {
    let wanted = path.canonicalize().ok()?;
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    mountinfo.lines().find_map(|l| {
        let fields: Vec<&str> = l.split(' ').collect();
        (fields.get(4).map(|p| p.replace("\\040", " ")).as_deref() == wanted.to_str())
            .then(|| fields[2].split(':').nth(1).map(str::to_owned))?
    })
}

/// Abort FUSE connection `id` through fusectl (mounting fusectl first if needed).
///
/// Needed after a SIGKILL: gamefs's cache-invalidation thread can be in the kernel waiting
/// for a directory lock (uninterruptible) that a client's readdir holds while it waits for
/// the answer the killed thread never sends. The process then never finishes dying, its
/// /dev/fuse descriptor stays open, and MNT_DETACH alone leaves both hanging forever.
fn abort_connection(id: &str) {
    let dir = Path::new("/sys/fs/fuse/connections");
    if std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_none()) {
        let _ = Command::new("mount")
            .args(["-t", "fusectl", "fusectl"])
            .arg(dir)
            .status();
    }
    let _ = std::fs::write(dir.join(id).join("abort"), "1");
}

/// Run the worker until it fails; returns its output lines as they arrive.
fn start_worker(mnt: &Path, seed: u64, tag: &str) -> (Child, Arc<Mutex<Vec<String>>>) {
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(WORKER)
        .arg(mnt)
        .arg(seed.to_string())
        .arg(tag)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start python3");
    let lines = Arc::new(Mutex::new(Vec::new()));
    let stdout = child.stdout.take().unwrap();
    let sink = Arc::clone(&lines);
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            sink.lock().unwrap().push(line);
        }
    });
    (child, lines)
}

/// Wait (bounded) for the worker to exit; kills it if it hangs.
fn wait_worker(child: &mut Child, limit: Duration) {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the worker hung for {limit:?} after gamefs was killed");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Keep a copy of a database that failed a check, for a look afterwards.
fn keep_failure(db: &Path, round: usize) -> PathBuf {
    let dir = repo()
        .join("target")
        .join("mount-tests")
        .join(format!("crash-failure-{}-round{round}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for ext in ["si4", "sn4", "sg4"] {
        let _ = std::fs::copy(file(db, ext), dir.join(format!("db.{ext}")));
    }
    dir
}

/// A mount, `before_worker` run on it, the worker started on it, and after a random delay a
/// SIGKILL of gamefs, the connection aborted and the mount detached; returns the worker's
/// lines.
fn kill_round(
    db: &Path,
    dir: &Path,
    round: usize,
    rng: &mut Rng,
    before_worker: &mut dyn FnMut(&Mount),
) -> Vec<String> {
    let mut mount = Mount::new(db, dir, &[]);
    let connection = fuse_connection(&mount.path).expect("the mount is in mountinfo");
    before_worker(&mount);
    let (mut worker, lines) = start_worker(
        &mount.path,
        rng.next_u64() % 1_000_000,
        &format!("k{round}"),
    );
    let ready = Instant::now();
    while !lines.lock().unwrap().iter().any(|l| l == "READY") {
        assert!(
            ready.elapsed() < Duration::from_secs(30),
            "the worker did not start"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    std::thread::sleep(Duration::from_millis(5 + rng.next_u64() % 196));
    let said_before_kill = lines.lock().unwrap().len();
    // SAFETY: killing the gamefs child this test started.
    unsafe { libc::kill(mount.pid() as i32, libc::SIGKILL) };
    abort_connection(&connection);
    force_unmount(&mount.path);
    mount.wait_exit(Duration::from_secs(10));
    drop(mount);
    wait_worker(&mut worker, Duration::from_secs(30));
    let lines = lines.lock().unwrap().clone();
    // While gamefs ran, every operation must have succeeded; after the kill they fail
    // (ENOTCONN, ECONNABORTED, or ENOENT once the mount is detached).
    if let Some(err) = lines[..said_before_kill]
        .iter()
        .find(|l| l.starts_with("ERR "))
    {
        let keep = keep_failure(db, round);
        panic!(
            "round {round}: database kept in {}: an operation failed while gamefs was running: {err}\nworker:\n{}",
            keep.display(),
            lines.join("\n")
        );
    }
    lines
}

/// The acknowledged operations of a round and the one in flight when gamefs died.
fn operations(lines: &[String]) -> (Vec<Op>, Option<Op>) {
    let mut acked = Vec::new();
    let mut in_flight = None;
    for line in lines {
        let words: Vec<&str> = line.split(' ').collect();
        match words[0] {
            "BEGIN" => in_flight = Some(Op::parse(&words[1..])),
            "ACK" => {
                let op = Op::parse(&words[1..]);
                assert_eq!(in_flight.take(), Some(op.clone()), "ACK without BEGIN");
                acked.push(op);
            }
            _ => {}
        }
    }
    (acked, in_flight)
}

/// (c): gamefs mounts the database and lists `games` games (live and deleted).
fn check_gamefs_lists(db: &Path, dir: &Path, games: usize, when: &str) {
    let mount = Mount::new(db, dir, &[]);
    assert_eq!(
        listed_games(&mount),
        games,
        "{when}: gamefs lists every game"
    );
}

/// SCID's change of round `round` on `db`: a game added and game `replace` replaced; `model`
/// takes it in.
fn scid_writes(db: &Path, dir: &Path, round: usize, replace: usize, model: &mut Vec<Game>) {
    let [added, replaced] = ["add", "replace"].map(|what| format!("scid k{round} {what}"));
    let count = Scid::four().change(
        dir,
        "scid-round",
        &[
            Step::Add(pgn(&added, "Scid, Anna", "Scid, Bob")),
            Step::Replace(replace, pgn(&replaced, "Scid, Carl", "Scid, Dora")),
        ],
        db,
    );
    let game = |event: String| Game {
        event,
        site: SITE.into(),
        deleted: false,
    };
    model.push(game(added));
    model[replace - 1] = game(replaced);
    assert_eq!(count, model.len(), "round {round}: SCID's count");
}

/// What `gamefs check -q` says of `db` when it fails.
fn gamefs_check(db: &Path) -> Option<String> {
    let check = run_with_timeout(
        Command::new(gamefs()).arg("check").arg("-q").arg(db),
        Duration::from_secs(60),
    );
    (!check.status.success()).then(|| {
        format!(
            "gamefs check -q failed ({}):\n{}{}",
            check.status,
            String::from_utf8_lossy(&check.stdout),
            String::from_utf8_lossy(&check.stderr)
        )
    })
}

/// True when all `gamefs check` says is what a kill between a save's name file and its index
/// entry leaves (docs/DESIGN.md rule 7 orders them so): the name file already counts the
/// names of the save whose entry was never written. SCID reads it, and the next save that
/// changes names, or SCID's next save, writes it as SCID does.
fn only_interrupted_name_file(said: &str) -> bool {
    let mut problems = said
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty() && !l.starts_with("note:"));
    problems.next().is_some()
        && problems.next().is_none()
        && said.contains("the name file is not sorted and counted as SCID writes it")
}

/// A game of `model` that is not deleted (for SCID to replace), at random.
fn live_game(model: &[Game], rng: &mut Rng) -> usize {
    let live: Vec<usize> = (1..=model.len())
        .filter(|&n| !model[n - 1].deleted)
        .collect();
    live[rng.next_u64() as usize % live.len()]
}

/// The games of `mount` (live and deleted).
fn listed_games(mount: &Mount) -> usize {
    listing(&mount.join("games")).len() + listing(&mount.join(".deleted")).len()
}

#[test]
fn kill_9_during_saves_never_loses_an_acknowledged_save() {
    kill_loop(
        "crash",
        env_number("GAMEFS_CRASH_KILLS", 25) as usize,
        false,
    );
}

#[test]
fn kill_9_during_saves_with_scid_writing_between_kills_loses_nothing_of_either() {
    kill_loop(
        "crash-scid",
        env_number("GAMEFS_CRASH_KILLS", 6) as usize,
        true,
    );
}

/// `kills` rounds of the worker saving and gamefs killed, each checked (see the module's
/// comment); with `scid`, SCID writes between kills and the checks take it in.
fn kill_loop(name: &str, kills: usize, scid: bool) {
    let seed = env_number(
        "GAMEFS_CRASH_SEED",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64,
    );
    eprintln!("{name} test: {kills} kills, GAMEFS_CRASH_SEED={seed}");
    let mut rng = Rng(seed | 1);
    let dir = scratch(name);
    let db = dir.path().join("db");
    scid_import(&[&repo().join("contrib/sample/demo.pgn")], &db);
    let first = scid_view(&db, dir.path());
    first.check().expect("SCID reads the fresh database");
    let mut model = first.games;
    let mut t = Tally::default();
    let started = Instant::now();
    for round in 0..kills {
        let replace = scid.then(|| live_game(&model, &mut rng));
        let mounted = round % 2 == 1;
        if let Some(replace) = replace
            && !mounted
        {
            scid_writes(&db, dir.path(), round, replace, &mut model);
            // SCID's save wrote the name file too: nothing a kill left is reported now.
            if let Some(said) = gamefs_check(&db) {
                panic!("round {round}, after SCID's change: {said}");
            }
        }
        let lines = kill_round(&db, dir.path(), round, &mut rng, &mut |mount| {
            let Some(replace) = replace.filter(|_| mounted) else {
                return;
            };
            scid_writes(&db, dir.path(), round, replace, &mut model);
            // The worker starts once the mount shows SCID's change (it looks at most once a
            // second): it saves from what it reads.
            eventually("the mount shows SCID's games", || {
                listed_games(mount) == model.len()
            });
            let file = mount.game(replace);
            eventually("the mount shows SCID's replacement", || {
                std::fs::read_to_string(&file)
                    .is_ok_and(|t| t.contains(&format!("[Event \"scid k{round} replace\"]")))
            });
        });
        let (acked, in_flight) = operations(&lines);
        t.kills += 1;
        t.acknowledged += acked.len();
        t.killed_before_first_op += usize::from(!lines.iter().any(|l| l.starts_with("BEGIN")));
        t.leftover_temp_files += std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().contains("gamefs-tmp")
            })
            .count();
        let fail = |what: String, t: &Tally| -> ! {
            panic!(
                "round {round}: {what}\n(in flight: {in_flight:?}; acknowledged this round: \
                 {acked:?}; database kept in {}; {t:?}; GAMEFS_CRASH_SEED={seed})",
                keep_failure(&db, round).display()
            )
        };

        // (a) SCID opens the database and exports every game.
        let mut view = scid_view(&db, dir.path());
        if view.is_interrupted_append(in_flight.as_ref()) {
            t.interrupted_appends += 1;
            // (c) gamefs repairs the count on its next writable open; then SCID reads all.
            check_gamefs_lists(&db, dir.path(), view.entries, "after an interrupted append");
            view = scid_view(&db, dir.path());
        }
        if let Err(e) = view.check() {
            fail(e, &t);
        }

        // (b) Acknowledged saves are there; the one in flight wholly or not at all.
        for op in &acked {
            op.apply(&mut model);
        }
        let mut with_flight = model.clone();
        if let Some(op) = &in_flight {
            op.apply(&mut with_flight);
        }
        let in_flight_lost = in_flight.is_some() && view.games == model;
        if view.games == model {
            t.in_flight_lost += usize::from(in_flight_lost);
        } else if view.games == with_flight {
            t.in_flight_done += 1;
            model = with_flight;
        } else {
            let show: Vec<String> = (0..model.len().max(view.games.len()))
                .filter(|&i| model.get(i) != view.games.get(i))
                .take(5)
                .map(|i| {
                    format!(
                        "game {}: expected {:?}, SCID has {:?}",
                        i + 1,
                        model.get(i),
                        view.games.get(i)
                    )
                })
                .collect();
            fail(
                format!(
                    "the database does not hold the acknowledged saves:\n{}",
                    show.join("\n")
                ),
                &t,
            );
        }
        if scid {
            // SCID counts the games itself, and `gamefs check` finds nothing wrong.
            let counted = Scid::four().games(dir.path(), &db).len();
            if counted != model.len() {
                fail(format!("SCID counts {counted} games"), &t);
            }
            match gamefs_check(&db) {
                None => {}
                Some(said) if in_flight_lost && only_interrupted_name_file(&said) => {
                    t.interrupted_name_files += 1;
                }
                Some(said) => fail(said, &t),
            }
        }
    }
    // (c) for the last kill (every other round's mount checked the one before).
    check_gamefs_lists(&db, dir.path(), model.len(), "after the last kill");
    if scid {
        // SCID's last change, and everything holds: SCID's export, `gamefs check`.
        let replace = live_game(&model, &mut rng);
        scid_writes(&db, dir.path(), kills, replace, &mut model);
        let view = scid_view(&db, dir.path());
        view.check().expect("SCID reads the database at the end");
        assert!(
            view.games == model,
            "at the end, SCID's export is not the model"
        );
        if let Some(said) = gamefs_check(&db) {
            panic!("at the end: {said}");
        }
    }
    eprintln!(
        "{name} test: {t:?}; {} games now; {:.1} s",
        model.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        t.acknowledged > 0,
        "no save was acknowledged: the kills came too early"
    );
}
