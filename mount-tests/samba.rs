//! A mount shared by Samba: `smbd` serves it on the loopback address, on a port of its own,
//! from a temporary configuration (its own private, lock, state, cache and pid folders and
//! log; no system service is touched), and `smbclient` lists, reads, saves, creates and
//! deletes games through it. SCID reads the database afterwards.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::fixtures::{copy_db, edge_db};
use crate::harness::{
    Mount, Server, free_port, listing, repo, run_with_timeout, scratch, tools_present,
};

/// The share's name in the configuration the tests write.
const SHARE: &str = "games";

/// An `smbd` serving one folder as the share [`SHARE`], stopped (with every process it
/// started) on drop.
pub(crate) struct Smbd {
    _server: Server,
    port: u16,
    config: PathBuf,
    _dir: tempfile::TempDir,
}

/// Whether Samba's programs are installed (see [`tools_present`]).
pub(crate) fn samba_present() -> bool {
    tools_present(&["/usr/sbin/smbd", "/usr/bin/smbclient"], "samba smbclient")
}

impl Smbd {
    /// Start `smbd` on 127.0.0.1 sharing `folder` read-write for guests (as the user running
    /// the tests), with the settings of contrib/samba/smb.conf's share, and wait until it
    /// answers.
    pub(crate) fn start(folder: &Path) -> Smbd {
        let dir = scratch("smbd");
        let d = dir.path();
        for sub in ["private", "lock", "state", "cache", "pid", "ncalrpc", "log"] {
            std::fs::create_dir(d.join(sub)).unwrap();
        }
        let port = free_port();
        let user = String::from_utf8(Command::new("id").arg("-un").output().unwrap().stdout)
            .unwrap()
            .trim()
            .to_owned();
        let share = std::fs::read_to_string(repo().join("contrib/samba/smb.conf")).unwrap();
        let share = share
            .split_once("\n[chess]\n")
            .expect("contrib/samba/smb.conf has a [chess] share")
            .1
            .replace("/srv/gamefs/club", folder.to_str().unwrap());
        let config = d.join("smb.conf");
        let p = |sub: &str| d.join(sub).display().to_string();
        std::fs::write(
            &config,
            format!(
                "[global]\n\
                 server role = standalone server\n\
                 smb ports = {port}\n\
                 interfaces = 127.0.0.1\n\
                 bind interfaces only = yes\n\
                 private dir = {}\n\
                 lock directory = {}\n\
                 state directory = {}\n\
                 cache directory = {}\n\
                 pid directory = {}\n\
                 ncalrpc dir = {}\n\
                 log file = {}/smbd.log\n\
                 passdb backend = tdbsam:{}/passdb.tdb\n\
                 load printers = no\n\
                 printing = bsd\n\
                 printcap name = /dev/null\n\
                 disable spoolss = yes\n\
                 map to guest = Bad User\n\
                 guest account = {user}\n\
                 [{SHARE}]\n\
                 guest ok = yes\n{share}",
                p("private"),
                p("lock"),
                p("state"),
                p("cache"),
                p("pid"),
                p("ncalrpc"),
                p("log"),
                p("private"),
            ),
        )
        .unwrap();
        let server = Server::start(
            Command::new("/usr/sbin/smbd")
                .args(["--foreground", "--no-process-group", "--debug-stdout", "-s"])
                .arg(&config),
            port,
            &d.join("log/stdout"),
        );
        Smbd {
            _server: server,
            port,
            config,
            _dir: dir,
        }
    }

    /// Run `smbclient` as a guest with the commands `script` (`;`-separated) in local folder
    /// `local`, with a 60 s limit.
    pub(crate) fn client(&self, local: &Path, script: &str) -> Output {
        run_with_timeout(
            Command::new("/usr/bin/smbclient")
                .arg("-N")
                .arg("-s")
                .arg(&self.config)
                .arg("-p")
                .arg(self.port.to_string())
                .arg(format!("//127.0.0.1/{SHARE}"))
                .arg("-c")
                .arg(script)
                .current_dir(local),
            Duration::from_secs(60),
        )
    }

    /// As [`Smbd::client`]; the commands must succeed. Their output.
    pub(crate) fn client_ok(&self, local: &Path, script: &str) -> String {
        let out = self.client(local, script);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success() && !text.contains("NT_STATUS_"),
            "smbclient `{script}` failed ({}):\n{text}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        text
    }
}

/// The name of a file, as smbclient is given it.
fn name(path: &Path) -> String {
    path.file_name().unwrap().to_str().unwrap().to_owned()
}

/// The names `ls` printed: each entry is indented by two spaces and followed by its attribute
/// letters, its size and its date (24 characters, `Wed Nov 25 14:00:21 2026`).
fn listed_names(ls: &str) -> Vec<String> {
    let mut names: Vec<String> = ls
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .filter_map(|l| {
            let before_date = l.get(..l.len().checked_sub(24)?)?.trim_end();
            let (rest, _size) = before_date.rsplit_once(' ')?;
            let (name, attributes) = rest.trim_end().rsplit_once(' ')?;
            attributes
                .chars()
                .all(|c| "DHNRSA".contains(c))
                .then(|| name.trim_end().to_owned())
        })
        .filter(|n| n != "." && n != "..")
        .collect();
    names.sort();
    names
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = listing(dir).iter().map(|p| name(p)).collect();
    names.sort();
    names
}

/// Whether Windows can hold `name`: Samba shows other names mangled (`TZHRWN~X` for a
/// player `Trail `, with a space at its end).
fn windows_can_hold(name: &str) -> bool {
    !name.ends_with([' ', '.']) && !name.contains(['\\', ':', '*', '?', '"', '<', '>', '|'])
}

/// The share lists folder `dir` of the mount as it is: every name Windows can hold as it is,
/// one mangled name for each of the others.
fn assert_listed_as(ls: &str, dir: &Path) {
    let (kept, mangled): (Vec<String>, Vec<String>) =
        names_in(dir).into_iter().partition(|n| windows_can_hold(n));
    let (listed, listed_mangled): (Vec<String>, Vec<String>) = listed_names(ls)
        .into_iter()
        .partition(|n| kept.binary_search(n).is_ok());
    assert_eq!(listed, kept, "{dir:?}");
    assert_eq!(
        listed_mangled.len(),
        mangled.len(),
        "{listed_mangled:?} for {mangled:?}"
    );
    assert!(
        listed_mangled.iter().all(|n| n.contains('~')),
        "{listed_mangled:?}"
    );
}

/// A mount served by smbd; smbd stops first.
struct Served {
    smbd: Smbd,
    m: Mount,
}

/// A private copy of the test database in a new scratch folder, mounted writable and shared
/// by smbd; None (the test skips) without Samba.
fn shared_copy(name: &str) -> Option<(tempfile::TempDir, PathBuf, Served)> {
    if !samba_present() {
        return None;
    }
    let dir = scratch(name);
    let db = copy_db(edge_db(), dir.path(), "db");
    let m = Mount::new(&db, dir.path(), &[]);
    let smbd = Smbd::start(&m.path);
    Some((dir, db, Served { smbd, m }))
}

/// The text of game file `game` with its Event tag set to `event`.
fn with_event(game: &Path, event: &str) -> String {
    let text = std::fs::read_to_string(game).unwrap();
    let line = text.lines().find(|l| l.starts_with("[Event ")).unwrap();
    text.replacen(line, &format!("[Event \"{event}\"]"), 1)
}

#[test]
fn a_samba_share_lists_reads_saves_creates_and_deletes() {
    let Some((dir, db, served)) = shared_copy("samba") else {
        return;
    };
    let local = dir.path().join("client");
    std::fs::create_dir(&local).unwrap();
    let (edited, new_name, deleted, bad) = {
        let Served { smbd, m } = &served;

        // Listing: the root, games/ and a player's folder, as locally.
        for folder in ["", "games", "players"] {
            let ls = smbd.client_ok(&local, &format!("cd \"{folder}\"; ls"));
            assert_listed_as(&ls, &m.join(folder));
        }
        let group = listing(&m.join("players")).into_iter().next().unwrap();
        let ls = smbd.client_ok(&local, &format!("cd \"players/{}\"; ls", name(&group)));
        assert_listed_as(&ls, &group);

        // Reading: every game, and a view's link, byte-identical to the mount.
        smbd.client_ok(&local, "cd games; prompt off; mget *");
        let games = listing(&m.join("games"));
        for game in &games {
            let got = std::fs::read(local.join(name(game))).unwrap();
            assert!(
                got == std::fs::read(game).unwrap(),
                "{game:?} read over SMB"
            );
        }
        let link = listing(&group).into_iter().next().unwrap();
        smbd.client_ok(
            &local,
            &format!(
                "cd \"players/{}\"; get \"{}\" link.pgn",
                name(&group),
                name(&link)
            ),
        );
        assert!(std::fs::read(local.join("link.pgn")).unwrap() == std::fs::read(&link).unwrap());

        // Saving an edited game.
        let edited = m.game(1);
        let new_text = with_event(&edited, "Edited over Samba");
        std::fs::write(local.join("edited.pgn"), &new_text).unwrap();
        smbd.client_ok(
            &local,
            &format!("cd games; put edited.pgn \"{}\"", name(&edited)),
        );
        assert_eq!(std::fs::read_to_string(&edited).unwrap(), new_text);

        // A save by rename, as Windows programs save: the text to a new name, then renamed
        // over the game.
        let renamed = m.game(4);
        let new_text = with_event(&renamed, "Renamed over Samba");
        std::fs::write(local.join("renamed.pgn"), &new_text).unwrap();
        smbd.client_ok(
            &local,
            &format!(
                "cd games; put renamed.pgn save.tmp; rename save.tmp \"{}\" -f",
                name(&renamed)
            ),
        );
        assert_eq!(std::fs::read_to_string(&renamed).unwrap(), new_text);
        assert!(!m.join("games/save.tmp").exists());

        // A new game copied in.
        std::fs::write(
            local.join("new.pgn"),
            "[Event \"New over Samba\"]\n[Site \"Club\"]\n[Date \"2026.11.25\"]\n\
             [Round \"1\"]\n[White \"Share, Anna\"]\n[Black \"Share, Bo\"]\n\
             [Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n",
        )
        .unwrap();
        smbd.client_ok(&local, "cd games; put new.pgn new.pgn");
        let new_name = names_in(&m.join("games"))
            .into_iter()
            .find(|n| n.contains("Share, Anna"))
            .expect("the new game is in games/");

        // Deleting.
        let deleted = m.game(3);
        smbd.client_ok(&local, &format!("cd games; rm \"{}\"", name(&deleted)));
        assert!(!deleted.exists());
        assert!(m.join(".deleted").join(name(&deleted)).exists());

        // A refused save: the client gets the error, the text is kept in .gamefs/rejected/.
        let bad = m.game(2);
        let before = std::fs::read(&bad).unwrap();
        let bad_text = "[Event \"Refused over Samba\"]\n\n1. e4 e5 2. Ke7 *\n";
        std::fs::write(local.join("bad.pgn"), bad_text).unwrap();
        let out = smbd.client(&local, &format!("cd games; put bad.pgn \"{}\"", name(&bad)));
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            !out.status.success() && said.contains("NT_STATUS_INVALID_PARAMETER"),
            "the client is told: {said}"
        );
        let kept = m.join(".gamefs/rejected").join(name(&bad));
        assert_eq!(std::fs::read_to_string(kept).unwrap(), bad_text);
        assert!(
            std::fs::read(&bad).unwrap() == before,
            "the game is as it was"
        );
        let errors = std::fs::read_to_string(m.join(".gamefs/errors")).unwrap();
        assert!(errors.contains("illegal move 2. Ke7"), "{errors}");
        (edited, new_name, deleted, bad)
    };
    drop(served);

    // SCID reads what the share saved.
    let export = crate::save::scid_export(&db);
    assert!(
        export.contains("[Event \"Edited over Samba\"]"),
        "{edited:?}"
    );
    assert!(export.contains("[White \"Share, Anna\"]"), "{new_name}");
    assert!(!export.contains("Refused over Samba"), "{bad:?}");
    use gamefs::store::ChessStore;
    let store = gamefs::store::scid::ScidDatabase::open(&db, false).unwrap();
    assert!(store.summary(2).deleted, "{deleted:?} is marked deleted");
    assert!(!store.summary(1).deleted && !store.summary(0).deleted);
}

/// The save number an `[Event "Save N"]` text carries (0 for the game as it was).
fn save_number(text: &str) -> u32 {
    text.lines()
        .find_map(|l| l.strip_prefix("[Event \"Save "))
        .and_then(|rest| rest.trim_end_matches("\"]").parse().ok())
        .unwrap_or(0)
}

/// How long after a save's close returned another client may still read the text before it
/// (docs/guide/sharing.md).
const FRESH_WITHIN: Duration = Duration::from_secs(1);

/// One read of the edited game: when the read started, and which save it showed.
type Seen = (Instant, u32);

#[test]
fn sixteen_readers_through_the_share_and_the_mount_while_one_client_saves() {
    let Some((dir, db, served)) = shared_copy("samba-readers") else {
        return;
    };
    let Served { smbd, m } = &served;
    let games = m.join("games");
    let edited = m.game(5);
    let edited_name = name(&edited);
    let original: Vec<(PathBuf, Vec<u8>)> = listing(&games)
        .into_iter()
        .map(|g| {
            let text = std::fs::read(&g).unwrap();
            (g, text)
        })
        .collect();
    let saves = 6;
    let done = std::sync::atomic::AtomicBool::new(false);
    let saved_at = std::sync::Mutex::new(Vec::<Instant>::new());
    let seen = std::sync::Mutex::new(Vec::<Seen>::new());
    let check = |file: &str, text: &[u8], started: Instant| {
        let text = String::from_utf8_lossy(text);
        // An in-place save is empty between its truncation and its write, or zeros to a
        // reader that opened before it (SEMANTICS §4).
        let blank = text.bytes().all(|b| b == 0);
        assert!(
            blank || crate::concurrency::whole_pgn(&text),
            "{file} read half-written:\n{text}"
        );
        if file == edited_name && !blank {
            seen.lock().unwrap().push((started, save_number(&text)));
        }
    };
    let started = Instant::now();
    std::thread::scope(|s| {
        // 8 clients of the share, each copying every game over and over.
        for i in 0..8 {
            let (smbd, check, done) = (&smbd, &check, &done);
            let local = dir.path().join(format!("reader-{i}"));
            s.spawn(move || {
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    let _ = std::fs::remove_dir_all(&local);
                    std::fs::create_dir(&local).unwrap();
                    let start = Instant::now();
                    smbd.client_ok(&local, "cd games; prompt off; mget *");
                    for f in listing(&local) {
                        check(&name(&f), &std::fs::read(&f).unwrap(), start);
                    }
                }
            });
        }
        // 8 readers of the mount: grep over every game, then each game read.
        for _ in 0..8 {
            let (games, check, done, count) = (&games, &check, &done, original.len());
            s.spawn(move || {
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    let found = crate::harness::sh(games, "grep -c '^\\[Event ' -- *.pgn");
                    assert_eq!(found.lines().count(), count, "{found}");
                    for f in listing(games) {
                        let start = Instant::now();
                        check(&name(&f), &std::fs::read(&f).unwrap(), start);
                    }
                }
            });
        }
        // One client saving the same game through the share, again and again.
        let local = dir.path().join("saver");
        std::fs::create_dir(&local).unwrap();
        for n in 1..=saves {
            std::thread::sleep(Duration::from_millis(300));
            let new = with_event(&edited, &format!("Save {n}"));
            std::fs::write(local.join("edited.pgn"), &new).unwrap();
            smbd.client_ok(
                &local,
                &format!("cd games; put edited.pgn \"{edited_name}\""),
            );
            saved_at.lock().unwrap().push(Instant::now());
            assert_eq!(
                save_number(&String::from_utf8_lossy(&std::fs::read(&edited).unwrap())),
                n
            );
        }
        std::thread::sleep(FRESH_WITHIN);
        done.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let elapsed = started.elapsed();

    // No read started a second after a save showed an older text.
    let saved_at = saved_at.into_inner().unwrap();
    let seen = seen.into_inner().unwrap();
    let mut stalest = Duration::ZERO;
    for &(at, number) in &seen {
        // The saves completed before this read started that it did not show.
        let missed = saved_at[number as usize..].iter().filter(|&&t| t < at);
        if let Some(&first_missed) = missed.min() {
            stalest = stalest.max(at - first_missed);
        }
    }
    eprintln!(
        "{} reads of the saved game in {elapsed:?}; stalest read {stalest:?} after its save",
        seen.len()
    );
    assert!(
        stalest < FRESH_WITHIN,
        "a read {stalest:?} after a save showed the text before it"
    );
    assert!(
        seen.iter().any(|&(_, n)| n == saves),
        "the last save was read"
    );

    // Nothing lost: every other game is as it was, the edited one is the last save.
    for (game, text) in &original {
        if *game != edited {
            assert!(std::fs::read(game).unwrap() == *text, "{game:?} changed");
        }
    }
    drop(served);
    let export = crate::save::scid_export(&db);
    assert!(export.contains(&format!("[Event \"Save {saves}\"]")));
    assert_eq!(
        export.matches("[Event ").count(),
        original.len(),
        "no game added or lost"
    );
}

/// A game open in vim on the mount while a client of the share saves another game: vim's
/// save lands without its "changed since reading" question, and so does the client's (each
/// game has its own modification time, docs/SEMANTICS.md §2).
#[test]
fn a_local_editor_saves_while_a_client_of_the_share_saves_another_game() {
    let Some((dir, db, served)) = shared_copy("samba-meanwhile") else {
        return;
    };
    let local = dir.path().join("client");
    std::fs::create_dir(&local).unwrap();
    {
        let Served { smbd, m } = &served;
        let (mine, other) = (name(&m.game(1)), m.game(2));
        std::fs::write(
            local.join("other.pgn"),
            with_event(&other, "Saved over SMB"),
        )
        .unwrap();
        let save_other = || {
            smbd.client_ok(
                &local,
                &format!("cd games; put other.pgn \"{}\"", name(&other)),
            );
            // Past the kernel's attribute timeout (1 s), so vim asks gamefs afresh.
            std::thread::sleep(Duration::from_millis(1500));
        };
        crate::editors::drive_with(
            "gamefs-samba-meanwhile",
            &m.join("games"),
            &format!("vim -u NONE '{mine}'"),
            &save_other,
            &[
                &[
                    ":1s/\\[Event \"[^\"]*\"\\]/[Event \"Saved in vim\"]/",
                    "Enter",
                ],
                &[":wq", "Enter"],
            ],
        );
    }
    drop(served);
    let export = crate::save::scid_export(&db);
    for event in ["Saved over SMB", "Saved in vim"] {
        assert!(
            export.contains(&format!("[Event \"{event}\"]")),
            "SCID does not show {event:?}"
        );
    }
}
