//! Encoding a game as a record, exactly as SCID does (the layout is in [`super`]; "spec §N"
//! below is docs/formats/scid4.md §N).

use shakmaty::{CastlingMode, CastlingSide, Chess, Color, Move, Position, Role, Square};

use super::*;
use crate::error::ErrorKind;
use crate::error::{Error, Result};
use crate::game::chess::{ChessGame, Headers, Line, Ply, RatingType, StartPosition};
use crate::game::legal;
use crate::game::replay::{play_in_place, position_from_fen, position_from_fen_as};
use crate::store::scid::pieces::PieceLists;

/// SCID rejects a record of this many bytes or more (17-bit length, spec §9).
pub const MAX_RECORD_LEN: usize = 131_072;
/// The longest extra-tag name a record can hold (longer codes are the common tags).
pub const MAX_TAG_NAME_LEN: usize = 240;
/// The longest extra-tag value a record can hold (1-byte length).
pub const MAX_TAG_VALUE_LEN: usize = 255;

/// Tags SCID keeps in the index (or turns into index fields) and never in a record's extra
/// tags; a record holding one would be read back differently (spec §5.1, §7).
pub const INDEX_TAGS: [&str; 11] = {
    let f = crate::game::chess::FIELD_TAGS;
    [
        f[0],
        f[1],
        f[2],
        f[3],
        f[4],
        f[5],
        f[6],
        f[7],
        f[8],
        f[9],
        "ScidFlags",
    ]
};

/// Encode a game's record (extra tags, flags byte + FEN, move stream with markers, comments)
/// exactly as SCID 4.7.4 does (`Game::Encode`), so that SCID reads the game back unchanged.
///
/// Refuses, with an error naming the field and the limit, what SCID could not store or would
/// read back differently: more than 7 NAGs on a move (`TooLarge`), NAG 0, an empty tag name, a
/// tag name over 240 or a value over 255 bytes (`TooLarge`), an extra tag that belongs in the
/// index (see [`INDEX_TAGS`]; a `White<Type>`/`Black<Type>` rating tag only when that player
/// has no rating, since SCID would then take it as the rating), the same extra tag twice, a
/// comment containing a NUL byte, a Chess960 or malformed FEN, more than 16 pieces a side, an
/// illegal move or a null move in check (`InvalidInput`), and a record of 131,072 bytes or more
/// (`TooLarge`).
pub fn encode(game: &ChessGame) -> Result<Vec<u8>> {
    encode_watching(game, &mut (), TagsTwice::Refused)
}

/// Whether a record may hold the same extra tag twice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TagsTwice {
    /// No: SCID 4 keeps one value per tag (`Game::accessTagValue`), so a game read back
    /// from such a record would not be the game written.
    Refused,
    /// Yes, each where it stands: SCID 5 keeps every tag it reads (`Game::addTag`).
    Kept,
}

/// Sees the main line as [`encode_watching`] replays it, so what the index derives from the
/// main line comes from the same replay (see `store::scid::mainline`).
pub trait MainLineWatcher {
    /// The position after each main-line ply, in order.
    fn after_ply(&mut self, _pos: &Chess) {}
    /// The final main-line position (the start position when there is no move).
    fn at_end(&mut self, _pos: &Chess) {}
}

/// Watches nothing.
impl MainLineWatcher for () {}

/// [`encode`], showing `watch` every main-line position as the move stream is written; an
/// extra tag given twice as `twice` says.
pub fn encode_watching(
    game: &ChessGame,
    watch: &mut dyn MainLineWatcher,
    twice: TagsTwice,
) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    encode_tags(&game.headers, &mut out, twice)?;
    let mut flags = 0u8;
    for node in &game.moves.moves {
        if let Ply::Move(m) = &node.ply {
            match m.promotion() {
                Some(Role::Queen) => flags |= FLAG_PROMOTION,
                Some(_) => flags |= FLAG_PROMOTION | FLAG_UNDER_PROMOTION,
                None => {}
            }
        }
    }
    let (pos, lists) = match &game.start {
        StartPosition::Standard => {
            out.push(flags);
            (Chess::default(), PieceLists::standard())
        }
        StartPosition::Fen(fen) => {
            let (text, pos) = scid_fen(fen)?;
            out.push(flags | FLAG_FEN);
            out.extend_from_slice(text.as_bytes());
            out.push(0);
            let lists = PieceLists::from_board(pos.board());
            (pos, lists)
        }
        StartPosition::Chess960(fen) => {
            let (text, pos) = scid_fen_as(fen, true)?;
            out.push(flags | FLAG_FEN);
            out.extend_from_slice(text.as_bytes());
            out.push(0);
            let lists = PieceLists::from_board(pos.board());
            (pos, lists)
        }
    };
    let comments = encode_move_stream(&game.moves, pos, lists, &mut out, watch)?;
    out.extend_from_slice(&comments);
    if out.len() >= MAX_RECORD_LEN {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!(
                "the game needs a record of {} bytes; SCID's limit is {} bytes",
                out.len(),
                MAX_RECORD_LEN - 1
            ),
        ));
    }
    Ok(out)
}

/// The position a game starts from, with the same checks [`encode`] makes on a FEN.
pub fn start_position(start: &StartPosition) -> Result<Chess> {
    match start {
        StartPosition::Standard => Ok(Chess::default()),
        StartPosition::Fen(fen) => Ok(scid_fen(fen)?.1),
        StartPosition::Chess960(fen) => Ok(scid_fen_as(fen, true)?.1),
    }
}

/// An `InvalidInput` error.
fn invalid(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidInput, msg)
}

/// Write the extra-tag section, ended by `00` (spec §5.1).
fn encode_tags(headers: &Headers, out: &mut Vec<u8>, twice: TagsTwice) -> Result<()> {
    for (i, (name, value)) in headers.extra.iter().enumerate() {
        if name.is_empty() {
            return Err(invalid(format!(
                "extra tag {} has an empty name, which a SCID record cannot store",
                i + 1
            )));
        }
        if INDEX_TAGS.contains(&name.as_str()) {
            return Err(invalid(format!(
                "tag {name} cannot be an extra tag: SCID keeps it in the index"
            )));
        }
        for (colour, rating) in [
            ("White", headers.white_rating),
            ("Black", headers.black_rating),
        ] {
            let is_rating_tag = name
                .strip_prefix(colour)
                .is_some_and(|kind| RatingType::ALL.iter().any(|t| t.tag_suffix() == kind));
            if is_rating_tag && rating.is_none() {
                return Err(invalid(format!(
                    "tag {name} cannot be an extra tag while {colour} has no rating: \
                     SCID would read it as {colour}'s rating"
                )));
            }
        }
        if twice == TagsTwice::Refused && headers.extra[..i].iter().any(|(n, _)| n == name) {
            return Err(invalid(format!(
                "tag {name} appears twice; SCID keeps one value per tag"
            )));
        }
        if value.len() > MAX_TAG_VALUE_LEN {
            return Err(Error::new(
                ErrorKind::TooLarge,
                format!(
                    "the value of tag {name} has {} bytes; SCID's limit is {MAX_TAG_VALUE_LEN}",
                    value.len()
                ),
            ));
        }
        match COMMON_TAGS.iter().position(|c| c == name) {
            Some(code) => out.push(FIRST_COMMON_TAG + code as u8),
            None if name.len() > MAX_TAG_NAME_LEN => {
                return Err(Error::new(
                    ErrorKind::TooLarge,
                    format!(
                        "a tag name has {} bytes; SCID's limit is {MAX_TAG_NAME_LEN}",
                        name.len()
                    ),
                ));
            }
            None => {
                out.push(name.len() as u8);
                out.extend_from_slice(name.as_bytes());
            }
        }
        out.push(value.len() as u8);
        out.extend_from_slice(value.as_bytes());
    }
    out.push(0);
    Ok(())
}

/// The start FEN in SCID's own form and the position it gives.
///
/// SCID stores not the FEN it was given but what `Position::PrintFEN` prints after
/// `ReadFromFEN`: the placement, the side to move, the castling rights as a subset of `KQkq`
/// (guessed from the board when the field is missing), the en-passant square exactly as given
/// (rank 3 or 6, even when no capture is possible), the halfmove clock and the fullmove number
/// (` 0 1` when missing). Castling rights that do not name a king on e1/e8 and a rook on its
/// corner are Chess960 rights, which SCID 4 cannot store.
pub fn scid_fen(fen: &str) -> Result<(String, Chess)> {
    scid_fen_as(fen, false)
}

/// [`scid_fen`] of a Chess960 start (`chess960`), as SCID 5 writes one: the castling rights
/// as the position has them, each `K`/`Q`/`k`/`q` when its rook is the outermost on that
/// side, else the rook's file (`Position::PrintFEN`).
pub fn scid_fen_as(fen: &str, chess960: bool) -> Result<(String, Chess)> {
    let bad = |why: String| invalid(format!("start FEN {fen:?}: {why}"));
    let mut fields = fen.split_ascii_whitespace();
    let board: shakmaty::Board = fields
        .next()
        .unwrap_or_default()
        .parse()
        .map_err(|e| bad(format!("piece placement: {e}")))?;
    for color in [Color::White, Color::Black] {
        let n = board.by_color(color).count();
        if n > crate::store::scid::pieces::MAX_PIECES {
            return Err(bad(format!(
                "{color} has {n} pieces; SCID's limit is {}",
                crate::store::scid::pieces::MAX_PIECES
            )));
        }
    }
    let board = &board;
    let turn = match fields.next() {
        Some("w") => 'w',
        Some("b") => 'b',
        other => return Err(bad(format!("side to move {other:?} is not w or b"))),
    };
    let has = |sq: Square, role: Role, color: Color| board.piece_at(sq) == Some(role.of(color));
    // Castling rights, in SCID's KQkq order.
    let mut rights = [false; 4];
    let corners = [
        (Color::White, Square::E1, Square::H1, Square::A1),
        (Color::Black, Square::E8, Square::H8, Square::A8),
    ];
    let castling_field = fields.next();
    match castling_field {
        // Read from the position below.
        _ if chess960 => {}
        None => {
            for (c, (color, king, h, a)) in corners.into_iter().enumerate() {
                if has(king, Role::King, color) {
                    rights[2 * c] = has(h, Role::Rook, color);
                    rights[2 * c + 1] = has(a, Role::Rook, color);
                }
            }
        }
        Some("-") => {}
        Some(field) => {
            for ch in field.chars() {
                let (c, king_side) = match ch {
                    'K' | 'H' => (0, true),
                    'Q' | 'A' => (0, false),
                    'k' | 'h' => (1, true),
                    'q' | 'a' => (1, false),
                    'B'..='G' | 'b'..='g' => {
                        return Err(bad(format!(
                            "castling right {ch:?} is a Chess960 right, which SCID 4 cannot store"
                        )));
                    }
                    _ => return Err(bad(format!("castling field {field:?} is not valid"))),
                };
                let (color, king, h, a) = corners[c];
                let rook = if king_side { h } else { a };
                if !has(king, Role::King, color) || !has(rook, Role::Rook, color) {
                    return Err(bad(format!(
                        "castling right {ch:?} needs the king on {king} and a rook on {rook}; \
                         anything else is Chess960, which SCID 4 cannot store"
                    )));
                }
                rights[2 * c + usize::from(!king_side)] = true;
            }
        }
    }
    let castling: String = "KQkq"
        .chars()
        .zip(rights)
        .filter_map(|(ch, on)| on.then_some(ch))
        .collect();
    let ep = match fields.next() {
        None | Some("-") => "-".to_owned(),
        Some(f) => {
            let b = f.as_bytes();
            if b.len() != 2 || !(b'a'..=b'h').contains(&b[0]) || !matches!(b[1], b'3' | b'6') {
                return Err(bad(format!(
                    "en-passant square {f:?} is not on rank 3 or 6"
                )));
            }
            f.to_owned()
        }
    };
    // Halfmove clock: C's strtol, negative values as 0, kept as an unsigned 16-bit value.
    let halfmove = fields
        .next()
        .map_or(0, |f| leading_int(f).max(0) as u64 as u16);
    // Fullmove number: SCID keeps a 16-bit ply counter, (n - 1) * 2, plus 1 for Black to move.
    let fullmove = fields.next().map_or(0, leading_int);
    let mut plies: u16 = if fullmove >= 1 {
        ((fullmove - 1) as u64).wrapping_mul(2) as u16
    } else {
        0
    };
    if turn == 'b' {
        plies = plies.wrapping_add(1);
    }
    let fen_with = |castling: &str| {
        format!(
            "{} {turn} {} {ep} {halfmove} {}",
            board.board_fen(),
            if castling.is_empty() { "-" } else { castling },
            u32::from(plies / 2) + 1
        )
    };
    if chess960 {
        let text = fen_with(castling_field.unwrap_or("-"));
        let pos = position_from_fen_as(&text, CastlingMode::Chess960)
            .map_err(|e| bad(e.message().to_owned()))?;
        let text = fen_with(&chess960_castling(&pos));
        return Ok((text, pos));
    }
    let text = fen_with(&castling);
    let pos = position_from_fen(&text).map_err(|e| bad(e.message().to_owned()))?;
    Ok((text, pos))
}

/// The castling field SCID 5 writes for a Chess960 position: for White's king side, queen
/// side, then Black's, the letter `K`/`Q`/`k`/`q` when the castling rook is the outermost rook
/// on that side of the king, else the rook's file letter.
fn chess960_castling(pos: &Chess) -> String {
    let mut out = String::new();
    for color in [Color::White, Color::Black] {
        let Some(king) = pos.board().king_of(color) else {
            continue;
        };
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            let Some(rook) = pos.castles().rook(color, side) else {
                continue;
            };
            let on_side = |sq: &Square| {
                sq.rank() == king.rank() && (sq.file() > king.file()) == side.is_king_side()
            };
            let rooks = pos.board().rooks() & pos.board().by_color(color);
            let outermost = rooks.into_iter().filter(on_side).max_by_key(|sq| {
                let file = i32::from(u8::from(sq.file()));
                if side.is_king_side() { file } else { -file }
            });
            let ch = match (outermost == Some(rook), side) {
                (true, CastlingSide::KingSide) => 'K',
                (true, CastlingSide::QueenSide) => 'Q',
                (false, _) => rook.file().upper_char(),
            };
            out.push(match color {
                Color::White => ch,
                Color::Black => ch.to_ascii_lowercase(),
            });
        }
    }
    out
}

/// The integer at the start of `s`, as C's `strtol`/`atoi` read it (optional sign, digits;
/// 0 when there are none), saturated to `i64`.
fn leading_int(s: &str) -> i64 {
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut v: i64 = 0;
    for d in digits.bytes().take_while(u8::is_ascii_digit) {
        v = v.saturating_mul(10).saturating_add(i64::from(d - b'0'));
    }
    if neg { -v } else { v }
}

/// One line being encoded: the main line or an open variation.
struct EncodeFrame<'a> {
    /// The line.
    line: &'a Line,
    /// The node being encoded.
    next: usize,
    /// Whether that node's move, NAGs and comment marker are written.
    written: bool,
    /// The next of its variations to write.
    variation: usize,
    /// The position before that node.
    pos: Chess,
    /// The piece lists before that node.
    lists: PieceLists,
}

/// Write the move stream of `main` (spec §5.4-§5.5) and return the comment section (§5.6).
/// Uses an explicit stack, so any nesting depth is encoded without deep recursion.
fn encode_move_stream(
    main: &Line,
    pos: Chess,
    lists: PieceLists,
    out: &mut Vec<u8>,
    watch: &mut dyn MainLineWatcher,
) -> Result<Vec<u8>> {
    let mut comments = Vec::new();
    // `at` names the place for an error message; it is only built when there is an error.
    let mut comment =
        |text: &Option<String>, out: &mut Vec<u8>, at: &dyn Fn() -> String| -> Result<()> {
            let Some(text) = text.as_deref().filter(|t| !t.is_empty()) else {
                return Ok(());
            };
            if text.as_bytes().contains(&0) {
                return Err(invalid(format!(
                    "the comment {} contains a NUL byte, which a SCID record cannot store",
                    at()
                )));
            }
            out.push(MARK_COMMENT);
            comments.extend_from_slice(text.as_bytes());
            comments.push(0);
            Ok(())
        };
    comment(&main.comment, out, &|| "before the game".to_owned())?;
    let mut stack = vec![EncodeFrame {
        line: main,
        next: 0,
        written: false,
        variation: 0,
        pos,
        lists,
    }];
    // The ply number (1-based, from the start position) of each frame's first move.
    let mut first_ply = vec![1usize];
    loop {
        let depth = stack.len().saturating_sub(1);
        let Some(top) = stack.last_mut() else {
            break;
        };
        let ply_no = first_ply[depth] + top.next;
        let at = || {
            if depth == 0 {
                format!("at ply {ply_no}")
            } else {
                format!("at ply {ply_no} (variation depth {depth})")
            }
        };
        let Some(node) = top.line.moves.get(top.next) else {
            if depth == 0 {
                watch.at_end(&top.pos);
            }
            stack.pop();
            first_ply.pop();
            out.push(if depth == 0 {
                MARK_END_GAME
            } else {
                MARK_END_VARIATION
            });
            continue;
        };
        if !top.written {
            encode_move(&top.pos, &top.lists, &node.ply, out)
                .map_err(|e| invalid(format!("{}: {e}", at())))?;
            if node.nags.len() > MAX_NAGS_PER_MOVE {
                return Err(Error::new(
                    ErrorKind::TooLarge,
                    format!(
                        "{}: {} NAGs on one move; SCID's limit is {MAX_NAGS_PER_MOVE}",
                        at(),
                        node.nags.len()
                    ),
                ));
            }
            for &nag in &node.nags {
                if nag == 0 {
                    return Err(invalid(format!("{}: NAG 0 is not a NAG", at())));
                }
                out.extend([MARK_NAG, nag]);
            }
            comment(&node.comment, out, &at)?;
            top.written = true;
            top.variation = 0;
        }
        if let Some(var) = node.variations.get(top.variation) {
            top.variation += 1;
            out.push(MARK_START_VARIATION);
            comment(&var.comment, out, &|| {
                format!("{} before a variation", at())
            })?;
            let child = EncodeFrame {
                line: var,
                next: 0,
                written: false,
                variation: 0,
                pos: top.pos.clone(),
                lists: top.lists,
            };
            stack.push(child);
            first_ply.push(ply_no);
            continue;
        }
        top.lists.apply(&top.pos, &node.ply);
        play_in_place(&mut top.pos, &node.ply)
            .map_err(|e| invalid(format!("{}: {}", at(), e.message())))?;
        if depth == 0 {
            watch.after_ply(&top.pos);
        }
        top.next += 1;
        top.written = false;
    }
    Ok(comments)
}

/// Write one ply as SCID does (spec §5.4): `(pieceIndex << 4) | code`, plus a second byte
/// (`target + 64`) for a diagonal queen move. Returns the code (low nibble). The move must be
/// legal in `pos`; the error is a short reason.
pub(super) fn encode_move(
    pos: &Chess,
    lists: &PieceLists,
    ply: &Ply,
    out: &mut Vec<u8>,
) -> Result<u8, String> {
    let m = match ply {
        Ply::Null => {
            if pos.is_check() {
                return Err("a null move is not possible while in check".to_owned());
            }
            out.push(0);
            return Ok(0);
        }
        Ply::Move(m) => *m,
    };
    if !legal::is_legal(pos, m) {
        return Err(format!("illegal move {m}"));
    }
    let us = pos.turn();
    let Some(from) = m.from() else {
        return Err(format!("move {m} has no origin square"));
    };
    let Some(index) = lists.index_of(us, from) else {
        return Err(format!(
            "piece list out of step: no {us} piece indexed on {from}"
        ));
    };
    let to = m.to();
    let d = to as i32 - from as i32;
    let file = |s: Square| s.file().to_u32() as u8;
    let rank = |s: Square| s.rank().to_u32() as u8;
    let line_code = |to: Square| {
        if rank(to) == rank(from) {
            file(to)
        } else {
            8 + rank(to)
        }
    };
    let position = |table: &[i32], what: &str| {
        table
            .iter()
            .skip(1)
            .position(|&s| s == d)
            .map(|i| i as u8 + 1)
            .ok_or_else(|| format!("{what} move {m} has no SCID code"))
    };
    let mut second = None;
    let code = match m {
        Move::Castle { king, rook } => {
            if rook > king {
                10
            } else {
                9
            }
        }
        _ => match m.role() {
            Role::King => position(&KING_STEPS, "king")?,
            Role::Knight => position(&KNIGHT_JUMPS, "knight")?,
            Role::Rook => line_code(to),
            Role::Queen if rank(to) == rank(from) || file(to) == file(from) => line_code(to),
            Role::Queen => {
                second = Some(to as u8 + 64);
                file(from)
            }
            Role::Bishop => {
                let rank_change = i32::from(rank(to)) - i32::from(rank(from));
                let file_change = i32::from(file(to)) - i32::from(file(from));
                file(to) + if rank_change * file_change < 0 { 8 } else { 0 }
            }
            Role::Pawn => {
                let base = match d.abs() {
                    7 => 0,
                    8 => 1,
                    9 => 2,
                    16 => 15,
                    _ => return Err(format!("pawn move {m} has no SCID code")),
                };
                base + match m.promotion() {
                    None => 0,
                    Some(Role::Queen) => 3,
                    Some(Role::Rook) => 6,
                    Some(Role::Bishop) => 9,
                    Some(Role::Knight) => 12,
                    Some(r) => return Err(format!("promotion to {r:?} has no SCID code")),
                }
            }
        },
    };
    out.push(index << 4 | code);
    out.extend(second);
    Ok(code)
}
