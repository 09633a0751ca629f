// SPDX-License-Identifier: GPL-3.0-or-later
//! gamefs-bench-gen: write a deterministic PGN corpus of random legal chess games.
//!
//! usage: gamefs-bench-gen GAMES [--seed N] [-o FILE] [--threads N]
//!
//! Every game is a random legal playout (shakmaty) of 20–150 moves with realistic headers:
//! thousands of players (non-ASCII names too; "Carlsen, Magnus" is the most frequent player),
//! events, sites, dates, Elo, ECO, results and a few extra tags. Move choice is biased towards
//! castling, en passant and promotions (three in four of them under-promotions), and the
//! movetext carries comments, NAGs, nested variations and sometimes a FEN start position.
//! Game `i` depends only on (seed, i), so the output is the same for any thread count, and
//! the first N games of a bigger corpus are the N-game corpus.
//! Counts of what was written go to stderr.

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, EnPassantMode, Move, Position, Role};

// ---------------------------------------------------------------- random numbers

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

struct Rng(u64);

impl Rng {
    fn new(seed: u64, stream: u64) -> Rng {
        Rng(splitmix(seed ^ splitmix(stream.wrapping_add(0x1234_5678))))
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in 0..n.
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
    /// Uniform in lo..=hi.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    /// True with probability per_mille / 1000.
    fn chance(&mut self, per_mille: usize) -> bool {
        self.below(1000) < per_mille
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

// ---------------------------------------------------------------- name pools

const SURNAMES: &[&str] = &[
    "Nakamura",
    "Caruana",
    "Ding",
    "Nepomniachtchi",
    "Giri",
    "So",
    "Aronian",
    "Mamedyarov",
    "Grischuk",
    "Vachier-Lagrave",
    "Rapport",
    "Firouzja",
    "Duda",
    "Wojtaszek",
    "Topalov",
    "Anand",
    "Kramnik",
    "Karjakin",
    "Svidler",
    "Ivanchuk",
    "Gelfand",
    "Adams",
    "Short",
    "Müller",
    "Schröder",
    "Großmann",
    "Jäger",
    "Öztürk",
    "Çelik",
    "Šimić",
    "Dvořák",
    "Łukaszewicz",
    "Wróbel",
    "Søndergaard",
    "Ødegaard",
    "Åberg",
    "Þórsson",
    "Guðmundsson",
    "Íñiguez",
    "Muñoz",
    "Peña",
    "García",
    "Gonçalves",
    "João",
    "Lefèvre",
    "Bérénice",
    "Nguyễn",
    "Trần",
    "Иванов",
    "Петров",
    "Смирнов",
    "Кузнецов",
    "Παπαδόπουλος",
    "Οικονόμου",
    "王",
    "李",
    "张",
    "刘",
    "陈",
    "田中",
    "佐藤",
    "김",
    "이",
    "Kovács",
    "Szabó",
    "Horváth",
    "Popescu",
    "Ionescu",
    "Petrović",
    "Jovanović",
    "Kowalski",
    "Novak",
    "Smith",
    "Jones",
    "Williams",
    "Brown",
    "O'Connor",
    "McDonald",
    "Van der Berg",
    "De Groot",
    "Rossi",
    "Bianchi",
    "Fischer",
    "Weiß",
    "Kasparov",
    "Karpov",
    "Tal",
    "Petrosian",
    "Spassky",
    "Smyslov",
    "Botvinnik",
];

const GIVEN: &[&str] = &[
    "Hikaru",
    "Fabiano",
    "Liren",
    "Ian",
    "Anish",
    "Wesley",
    "Levon",
    "Shakhriyar",
    "Alexander",
    "Maxime",
    "Richárd",
    "Alireza",
    "Jan-Krzysztof",
    "Radosław",
    "Veselin",
    "Viswanathan",
    "Vladimir",
    "Sergey",
    "Peter",
    "Vassily",
    "Boris",
    "Michael",
    "Nigel",
    "Jürgen",
    "Zoë",
    "Sören",
    "Ægir",
    "Björn",
    "Åsa",
    "José",
    "María",
    "Françoise",
    "Łucja",
    "Štěpán",
    "Ömer",
    "İlkay",
    "Дмитрий",
    "Анна",
    "Γιώργος",
    "伟",
    "芳",
    "Hyun",
    "Ngọc",
    "Chloé",
    "Noël",
    "Garry",
    "Anatoly",
    "Mikhail",
    "Tigran",
];

const CITIES: &[(&str, &str)] = &[
    ("Wijk aan Zee", "NED"),
    ("Reykjavík", "ISL"),
    ("München", "GER"),
    ("Zürich", "SUI"),
    ("São Paulo", "BRA"),
    ("Linares", "ESP"),
    ("Tromsø", "NOR"),
    ("Stavanger", "NOR"),
    ("Kraków", "POL"),
    ("Praha", "CZE"),
    ("Göteborg", "SWE"),
    ("Москва", "RUS"),
    ("Санкт-Петербург", "RUS"),
    ("Αθήνα", "GRE"),
    ("İstanbul", "TUR"),
    ("Biel", "SUI"),
    ("Dortmund", "GER"),
    ("Baden-Baden", "GER"),
    ("London", "ENG"),
    ("Hastings", "ENG"),
    ("Saint Louis", "USA"),
    ("New York", "USA"),
    ("Las Vegas", "USA"),
    ("Montréal", "CAN"),
    ("Ciudad de México", "MEX"),
    ("Buenos Aires", "ARG"),
    ("Bogotá", "COL"),
    ("Chennai", "IND"),
    ("北京", "CHN"),
    ("上海", "CHN"),
    ("東京", "JPN"),
    ("서울", "KOR"),
    ("Hà Nội", "VIE"),
    ("Tbilisi", "GEO"),
    ("Yerevan", "ARM"),
    ("Bakı", "AZE"),
    ("Budapest", "HUN"),
    ("București", "ROU"),
    ("Beograd", "SRB"),
    ("Zagreb", "CRO"),
    ("Ljubljana", "SLO"),
    ("Wien", "AUT"),
    ("Bruxelles", "BEL"),
    ("Paris", "FRA"),
    ("Cap d'Agde", "FRA"),
    ("Gibraltar", "GIB"),
    ("Malmö", "SWE"),
    ("Helsinki", "FIN"),
    ("Tallinn", "EST"),
    ("Rīga", "LAT"),
    ("Vilnius", "LTU"),
    ("Kyiv", "UKR"),
    ("Minsk", "BLR"),
    ("Doha", "QAT"),
    ("Dubai", "UAE"),
    ("Cairo", "EGY"),
    ("Johannesburg", "RSA"),
    ("Sydney", "AUS"),
    ("Wellington", "NZL"),
    ("Lima", "PER"),
];

const EVENT_KINDS: &[&str] = &[
    "Open",
    "Masters",
    "Invitational",
    "Ch",
    "Rapid",
    "Blitz",
    "Olympiad",
    "Memorial",
    "Cup",
    "Festival",
    "Classic",
    "Team Ch",
];

const COMMENTS: &[&str] = &[
    "Only move.",
    "A novelty.",
    "Time trouble.",
    "White is better.",
    "The critical position.",
    "Ein schöner Zug.",
    "Très fort !",
    "Белые стоят лучше.",
    "Das war ein Fehler.",
    "¡Jugada fuerte!",
    "中盘优势",
    "Forced.",
    "[%clk 1:23:45]",
    "[%eval 0.31]",
    "Black should have played the other rook.",
    "Zugzwang.",
    "Ωραία κίνηση.",
    "The endgame is drawn with best play.",
];

const NAGS: &[u8] = &[
    1, 2, 3, 4, 5, 6, 10, 13, 14, 15, 16, 17, 18, 19, 22, 32, 36, 40, 132, 146,
];

const TIME_CONTROLS: &[&str] = &[
    "40/7200:3600",
    "5400+30",
    "900+10",
    "180+2",
    "60",
    "40/6000+30:1800+30",
];

const ANNOTATORS: &[&str] = &[
    "Kasparov, Garry",
    "Dvoretsky",
    "Müller, Karsten",
    "Nunn, John",
    "Shipov, Сергей",
];

const OPENINGS: &[&str] = &[
    "Sicilian",
    "Ruy Lopez",
    "French",
    "Caro-Kann",
    "Queen's Gambit Declined",
    "King's Indian",
    "Nimzo-Indian",
    "Grünfeld",
    "English",
    "Réti",
    "Italian Game",
    "Slav",
];

// ---------------------------------------------------------------- corpus

struct Corpus {
    seed: u64,
    players: usize,
    events: usize,
}

#[derive(Default, Clone)]
struct Stats {
    games: u64,
    plies: u64,
    castles: u64,
    en_passant: u64,
    promotions: u64,
    under_promotions: u64,
    comments: u64,
    nags: u64,
    variations: u64,
    nested_variations: u64,
    fen_starts: u64,
    carlsen_games: u64,
    checkmates: u64,
}

impl Stats {
    fn add(&mut self, o: &Stats) {
        self.games += o.games;
        self.plies += o.plies;
        self.castles += o.castles;
        self.en_passant += o.en_passant;
        self.promotions += o.promotions;
        self.under_promotions += o.under_promotions;
        self.comments += o.comments;
        self.nags += o.nags;
        self.variations += o.variations;
        self.nested_variations += o.nested_variations;
        self.fen_starts += o.fen_starts;
        self.carlsen_games += o.carlsen_games;
        self.checkmates += o.checkmates;
    }
}

pub const CARLSEN: &str = "Carlsen, Magnus";

impl Corpus {
    fn new(seed: u64, games: usize) -> Corpus {
        Corpus {
            seed,
            players: (games / 10).clamp(2000, 60_000),
            events: (games / 50).clamp(100, 20_000),
        }
    }

    fn player_name(&self, i: usize) -> String {
        if i == 0 {
            return CARLSEN.to_string();
        }
        let s = SURNAMES.len();
        let g = GIVEN.len();
        let sur = SURNAMES[i % s];
        let giv = GIVEN[(i / s) % g];
        let mid = (i / (s * g)) % 27;
        if mid == 0 {
            format!("{sur}, {giv}")
        } else {
            format!("{sur}, {giv} {}.", (b'A' + (mid as u8 - 1)) as char)
        }
    }

    fn player_rating(&self, i: usize) -> u32 {
        if i == 0 {
            2850
        } else {
            1500 + (splitmix(self.seed ^ (i as u64 * 7919)) % 1300) as u32
        }
    }

    /// A player: Carlsen 2% of the time, otherwise skewed towards low indexes.
    fn pick_player(&self, rng: &mut Rng) -> usize {
        if rng.chance(20) {
            return 0;
        }
        let u = rng.unit();
        1 + ((self.players - 1) as f64 * u * u) as usize
    }

    /// (event name, site, year)
    fn event(&self, j: usize) -> (String, String, u32) {
        let c = CITIES.len();
        let k = EVENT_KINDS.len();
        let (city, cc) = CITIES[j % c];
        let kind = EVENT_KINDS[(j / c) % k];
        // (city, kind) repeats every c*k events; the year differs for each repeat (j < 20000).
        let year = 1970 + ((j / (c * k) + (j % (c * k)) * 13) % 55) as u32;
        (
            format!("{city} {kind} {year}"),
            format!("{city} {cc}"),
            year,
        )
    }

    fn game(&self, index: usize, out: &mut String, st: &mut Stats) {
        let mut rng = Rng::new(self.seed, index as u64);
        st.games += 1;

        // ---- headers
        let (event, site, year) = self.event(rng.below(self.events));
        let date = if rng.chance(10) {
            "????.??.??".to_string()
        } else if rng.chance(30) {
            format!("{year}.??.??")
        } else if rng.chance(50) {
            format!("{year}.{:02}.??", rng.range(1, 12))
        } else {
            format!("{year}.{:02}.{:02}", rng.range(1, 12), rng.range(1, 28))
        };
        let round = if rng.chance(50) {
            "?".to_string()
        } else if rng.chance(150) {
            format!("{}.{}", rng.range(1, 11), rng.range(1, 8))
        } else {
            rng.range(1, 13).to_string()
        };
        let w = self.pick_player(&mut rng);
        let mut b = self.pick_player(&mut rng);
        while b == w {
            b = self.pick_player(&mut rng);
        }
        if w == 0 || b == 0 {
            st.carlsen_games += 1;
        }
        let white = self.player_name(w);
        let black = self.player_name(b);

        // ---- moves
        let fen_start = rng.chance(20);
        let mut pos = Chess::default();
        let mut fen = None;
        if fen_start {
            st.fen_starts += 1;
            let pre = rng.range(8, 40);
            for _ in 0..pre {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = choose(&mut rng, &moves, None);
                pos.play_unchecked(m);
            }
            if pos.legal_moves().is_empty() {
                pos = Chess::default();
            } else {
                fen = Some(Fen::from_position(&pos, EnPassantMode::Legal).to_string());
            }
        }
        let target_moves = rng.range(20, 150);
        let plies = target_moves * 2 - rng.below(2);
        let mut toks: Vec<String> = Vec::with_capacity(plies * 2 + 8);
        // One game in six is annotated (comments, NAGs, variations); the others are bare.
        let annotated = rng.chance(170);
        if annotated && rng.chance(100) {
            toks.push("{Annotated game.}".to_string());
            st.comments += 1;
        }
        line(
            &mut rng,
            &mut pos,
            plies,
            if annotated { 0 } else { 99 },
            None,
            &mut toks,
            st,
        );

        let result = if pos.is_checkmate() {
            st.checkmates += 1;
            if pos.turn() == Color::White {
                "0-1"
            } else {
                "1-0"
            }
        } else if pos.is_stalemate() || pos.is_insufficient_material() {
            "1/2-1/2"
        } else {
            let r = rng.below(1000);
            if r < 370 {
                "1-0"
            } else if r < 700 {
                "1/2-1/2"
            } else if r < 990 {
                "0-1"
            } else {
                "*"
            }
        };

        // ---- write
        let tag = |out: &mut String, k: &str, v: &str| {
            out.push('[');
            out.push_str(k);
            out.push_str(" \"");
            out.push_str(v);
            out.push_str("\"]\n");
        };
        tag(out, "Event", &event);
        tag(out, "Site", &site);
        tag(out, "Date", &date);
        tag(out, "Round", &round);
        tag(out, "White", &white);
        tag(out, "Black", &black);
        tag(out, "Result", result);
        if rng.chance(900) {
            let jitter = |rng: &mut Rng, r: u32| (r as i64 + rng.range(0, 60) as i64 - 30) as u32;
            let we = jitter(&mut rng, self.player_rating(w));
            let be = jitter(&mut rng, self.player_rating(b));
            tag(out, "WhiteElo", &we.to_string());
            tag(out, "BlackElo", &be.to_string());
        }
        if rng.chance(900) {
            let eco = format!(
                "{}{:02}",
                (b'A' + rng.below(5) as u8) as char,
                rng.below(100)
            );
            tag(out, "ECO", &eco);
        }
        // Often with a Date of unknown year, which SCID's index cannot keep beside it (it
        // drops the EventDate on import): real files have them, and an import must go on.
        if rng.chance(100) {
            tag(out, "EventDate", &format!("{year}.??.??"));
        }
        if rng.chance(100) {
            let v: &str = *rng.pick(OPENINGS);
            tag(out, "Opening", v);
        }
        if rng.chance(200) {
            let v: &str = *rng.pick(TIME_CONTROLS);
            tag(out, "TimeControl", v);
        }
        if rng.chance(80) {
            tag(out, "WhiteFideId", &(1_500_000 + w).to_string());
            tag(out, "BlackFideId", &(1_500_000 + b).to_string());
        }
        if rng.chance(80) {
            let v: &str = *rng.pick(&["GM", "IM", "FM", "WGM"]);
            tag(out, "WhiteTitle", v);
        }
        if rng.chance(50) {
            let v: &str = *rng.pick(ANNOTATORS);
            tag(out, "Annotator", v);
        }
        if let Some(f) = &fen {
            tag(out, "SetUp", "1");
            tag(out, "FEN", f);
        }
        out.push('\n');
        toks.push(result.to_string());
        let mut col = 0;
        for t in &toks {
            if col > 0 && col + 1 + t.len() > 79 {
                out.push('\n');
                col = 0;
            }
            // "(" sticks to the next token and ")" to the previous one.
            if col > 0 && t != ")" && !out.ends_with('(') {
                out.push(' ');
                col += 1;
            }
            out.push_str(t);
            col += t.len();
        }
        out.push_str("\n\n");
    }
}

/// Choose a move, favouring castling, en passant and promotions; never `avoid`.
fn choose(rng: &mut Rng, moves: &[Move], avoid: Option<Move>) -> Move {
    let ok = |m: &&Move| Some(**m) != avoid;
    let special: Vec<&Move> = moves
        .iter()
        .filter(ok)
        .filter(|m| m.is_promotion())
        .collect();
    if !special.is_empty() && rng.chance(300) {
        return **rng.pick(&special);
    }
    let special: Vec<&Move> = moves
        .iter()
        .filter(ok)
        .filter(|m| m.is_en_passant())
        .collect();
    if !special.is_empty() && rng.chance(900) {
        return **rng.pick(&special);
    }
    let special: Vec<&Move> = moves.iter().filter(ok).filter(|m| m.is_castle()).collect();
    if !special.is_empty() && rng.chance(700) {
        return **rng.pick(&special);
    }
    if rng.chance(250) {
        let pawns: Vec<&Move> = moves
            .iter()
            .filter(ok)
            .filter(|m| m.role() == Role::Pawn)
            .collect();
        if !pawns.is_empty() {
            return **rng.pick(&pawns);
        }
    }
    let all: Vec<&Move> = moves.iter().filter(ok).collect();
    **rng.pick(&all)
}

/// Play up to `plies` moves from `pos`, appending movetext tokens (the first move is never
/// `avoid`: a variation's alternative). Nested variations up to depth 3; `depth` 99 is a bare
/// main line (no comments, NAGs or variations).
fn line(
    rng: &mut Rng,
    pos: &mut Chess,
    plies: usize,
    depth: usize,
    avoid: Option<Move>,
    toks: &mut Vec<String>,
    st: &mut Stats,
) {
    let mut need_number = true;
    for ply in 0..plies {
        let moves = pos.legal_moves();
        let avoid_now = if ply == 0 { avoid } else { None };
        if moves.is_empty() || (moves.len() == 1 && avoid_now.is_some()) {
            break;
        }
        let m = choose(rng, &moves, avoid_now);
        let main = depth == 0 || depth == 99;
        let var_chance = match depth {
            0 => 40,
            1 | 2 => 80,
            _ => 0,
        };
        let before = if rng.chance(var_chance) && ply > 0 {
            Some(pos.clone())
        } else {
            None
        };
        let n = pos.fullmoves().get();
        match pos.turn() {
            Color::White => toks.push(format!("{n}.")),
            Color::Black if need_number => toks.push(format!("{n}...")),
            Color::Black => {}
        }
        need_number = false;
        st.plies += u64::from(main);
        if main {
            if m.is_castle() {
                st.castles += 1;
            }
            if m.is_en_passant() {
                st.en_passant += 1;
            }
            if let Some(r) = m.promotion() {
                st.promotions += 1;
                if r != Role::Queen {
                    st.under_promotions += 1;
                }
            }
        }
        let san = SanPlus::from_move_and_play_unchecked(pos, m);
        toks.push(san.to_string());
        if depth != 99 && rng.chance(60) {
            toks.push(format!("${}", rng.pick(NAGS)));
            st.nags += 1;
        }
        if depth != 99 && rng.chance(if depth == 0 { 40 } else { 60 }) {
            toks.push(format!("{{{}}}", rng.pick(COMMENTS)));
            st.comments += 1;
            need_number = true;
        }
        if let Some(mut alt) = before {
            st.variations += 1;
            if depth > 0 {
                st.nested_variations += 1;
            }
            toks.push("(".to_string());
            let len = rng.range(1, 10);
            line(rng, &mut alt, len, depth + 1, Some(m), toks, st);
            if toks.last().map(String::as_str) == Some("(") {
                toks.pop();
            } else {
                toks.push(")".to_string());
            }
            need_number = true;
        }
    }
}

// ---------------------------------------------------------------- main

fn main() {
    let mut args = std::env::args().skip(1);
    let mut games: Option<usize> = None;
    let mut seed: u64 = 20240601;
    let mut out_path: Option<String> = None;
    let mut threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    while let Some(a) = args.next() {
        match a.as_str() {
            "--seed" => seed = args.next().and_then(|s| s.parse().ok()).expect("--seed N"),
            "-o" | "--output" => out_path = Some(args.next().expect("-o FILE")),
            "--threads" => {
                threads = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .expect("--threads N")
            }
            "-h" | "--help" => {
                eprintln!("usage: gamefs-bench-gen GAMES [--seed N] [-o FILE] [--threads N]");
                return;
            }
            n => games = Some(n.replace('_', "").parse().expect("GAMES must be a number")),
        }
    }
    let games = games.expect("usage: gamefs-bench-gen GAMES [--seed N] [-o FILE]");
    let corpus = Corpus::new(seed, games);
    let out: Box<dyn Write> = match &out_path {
        Some(p) if p != "-" => Box::new(std::fs::File::create(p).expect("cannot create output")),
        _ => Box::new(std::io::stdout()),
    };
    let mut out = BufWriter::with_capacity(1 << 20, out);

    const CHUNK: usize = 500;
    let chunks = games.div_ceil(CHUNK);
    let next = AtomicUsize::new(0);
    let mut total = Stats::default();
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::sync_channel::<(usize, String, Stats)>(threads * 4);
        for _ in 0..threads.max(1) {
            let tx = tx.clone();
            let next = &next;
            let corpus = &corpus;
            s.spawn(move || {
                loop {
                    let c = next.fetch_add(1, Ordering::Relaxed);
                    if c >= chunks {
                        break;
                    }
                    let mut text = String::with_capacity(CHUNK * 1500);
                    let mut st = Stats::default();
                    for i in c * CHUNK..((c + 1) * CHUNK).min(games) {
                        corpus.game(i, &mut text, &mut st);
                    }
                    if tx.send((c, text, st)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        let mut want = 0;
        for (c, text, st) in rx {
            pending.insert(c, (text, st));
            while let Some((text, st)) = pending.remove(&want) {
                out.write_all(text.as_bytes()).expect("write failed");
                total.add(&st);
                want += 1;
            }
        }
    });
    out.flush().expect("write failed");
    let t = total;
    eprintln!(
        "gamefs-bench-gen: {} games (seed {seed}, {} players, {} events): {} plies, {} castles, \
         {} en passant, {} promotions ({} under), {} comments, {} NAGs, {} variations ({} nested), \
         {} FEN starts, {} checkmates, {} games of {CARLSEN}",
        t.games,
        corpus.players,
        corpus.events,
        t.plies,
        t.castles,
        t.en_passant,
        t.promotions,
        t.under_promotions,
        t.comments,
        t.nags,
        t.variations,
        t.nested_variations,
        t.fen_starts,
        t.checkmates,
        t.carlsen_games
    );
}
