//! Chess on top of `cozy-chess`: legal moves, FEN, zobrist hashing and Chess960 come from the
//! crate; this module adds the draw rules, ordering scores and the evaluation, and `notation`
//! the UCI move notation (standard castling `e1g1` or king-takes-rook `e1h1` with
//! `UCI_Chess960`).
//!
//! cozy-chess always represents castling as king-takes-rook; the conversion to the standard
//! form happens only in `format_move`, and `parse_move` accepts both forms.

pub mod hce;
pub mod learn;
pub mod nnue;
mod notation;
pub(crate) mod pesto;
mod pst;
mod san;
mod see;
pub mod syzygy;
mod tbcheck;
mod weights;

pub use weights::Eval;

use crate::game::{BooksAndSolvers, GameOption, Outcome, Player, Rules, SearchHints};
use cozy_chess::{BitBoard, Board, Color, File, Move, Piece, Rank, Square};
use nnue::{Accumulator, Net};

pub const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[derive(Clone, Debug)]
pub struct Chess {
    pub board: Board,
    pub chess960: bool,
    /// The evaluation it plays with.
    pub eval: Eval,
    /// A network's accumulators for `board`, kept up to date by `play` (zero without one).
    pub acc: Accumulator,
}

impl Default for Chess {
    fn default() -> Self {
        Chess::with(Board::default(), false, Eval::default_eval())
    }
}

/// Piece values for move ordering only (MVV-LVA: victim first, then the cheaper attacker),
/// indexed by `Piece as usize`, the king as the dearest attacker. They are not the exchange
/// values of `see::VALUE` (queen 950 there): ordering by those instead (chess signature 258194)
/// scored -13.9 +- 33.8 Elo over 200 games at 20,000 nodes against these (issue 49), so the
/// ordering keeps its own table.
const ORDER_VALUE: [i32; 6] = [100, 320, 330, 500, 900, 2000];

impl Chess {
    /// A position with its accumulators computed.
    pub fn with(board: Board, chess960: bool, eval: Eval) -> Chess {
        let acc = match eval {
            Eval::Net(n) => n.refresh(&board),
            _ => Accumulator::zero(),
        };
        Chess {
            board,
            chess960,
            eval,
            acc,
        }
    }

    /// The network's input changes of a legal move: pieces removed and added. Returns the
    /// side whose king the move takes into another frame (a king-bucketed network): its
    /// accumulator is to be refreshed once the move is on the board.
    fn apply_to_accumulator(&mut self, net: &Net, mv: Move) -> Option<Color> {
        type Change = (Color, Piece, Square);
        let b = &self.board;
        let us = b.side_to_move();
        let piece = b.piece_on(mv.from)?;
        let mut removed: [Change; 2] = [(us, piece, mv.from); 2];
        let mut added: [Change; 2] = [(us, piece, mv.to); 2];
        let (mut nr, mut na) = (1, 1);
        if self.is_castle(mv) {
            let back = mv.from.rank();
            let short = mv.to.file() > mv.from.file();
            let (king, rook) = if short {
                (File::G, File::F)
            } else {
                (File::C, File::D)
            };
            removed[1] = (us, Piece::Rook, mv.to);
            nr = 2;
            added[0] = (us, Piece::King, Square::new(king, back));
            added[1] = (us, Piece::Rook, Square::new(rook, back));
            na = 2;
        } else {
            if let Some(p) = mv.promotion {
                added[0].1 = p;
            }
            if let Some(victim) = b.piece_on(mv.to) {
                removed[1] = (!us, victim, mv.to);
                nr = 2;
            } else if self.is_en_passant(mv) {
                removed[1] = (!us, Piece::Pawn, Square::new(mv.to.file(), mv.from.rank()));
                nr = 2;
            }
        }
        net.update(&mut self.acc, &removed[..nr], &added[..na]);
        // The king's square after the move: the first piece added (castling puts it first).
        (piece == Piece::King && net.frame(us, added[0].2) != self.acc.frame[us as usize])
            .then_some(us)
    }

    pub(crate) fn is_castle(&self, mv: Move) -> bool {
        self.board.king(self.board.side_to_move()) == mv.from
            && self.board.color_on(mv.to) == Some(self.board.side_to_move())
    }

    fn is_en_passant(&self, mv: Move) -> bool {
        self.board.piece_on(mv.from) == Some(Piece::Pawn)
            && mv.from.file() != mv.to.file()
            && self.board.piece_on(mv.to).is_none()
    }

    fn is_capture(&self, mv: Move) -> bool {
        self.board.color_on(mv.to) == Some(!self.board.side_to_move()) || self.is_en_passant(mv)
    }

    /// Neither side can ever mate: bare kings, a single minor piece, or only bishops that all
    /// stand on squares of one colour.
    pub fn insufficient_material(&self) -> bool {
        let b = &self.board;
        let heavy = b.pieces(Piece::Pawn) | b.pieces(Piece::Rook) | b.pieces(Piece::Queen);
        if !heavy.is_empty() {
            return false;
        }
        let knights = b.pieces(Piece::Knight);
        let bishops = b.pieces(Piece::Bishop);
        if knights.len() + bishops.len() <= 1 {
            return true;
        }
        if knights.is_empty() {
            let dark = BitBoard(0xAA55_AA55_AA55_AA55);
            return (bishops & dark).is_empty() || (bishops & !dark).is_empty();
        }
        false
    }

    /// The king of the side that just moved is attacked: an illegal position (found by
    /// fuzzing: cozy-chess accepts it, and the search could then capture a king).
    fn side_not_to_move_in_check(board: &Board) -> bool {
        use cozy_chess::{
            get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves,
        };
        let us = board.side_to_move();
        let their_king = board.king(!us);
        let ours = board.colors(us);
        let occ = board.occupied();
        let hits = |p: Piece, set: BitBoard| !(set & ours & board.pieces(p)).is_empty();
        hits(Piece::Pawn, get_pawn_attacks(their_king, !us))
            || hits(Piece::Knight, get_knight_moves(their_king))
            || hits(Piece::King, get_king_moves(their_king))
            || hits(Piece::Bishop, get_bishop_moves(their_king, occ))
            || hits(Piece::Rook, get_rook_moves(their_king, occ))
            || hits(
                Piece::Queen,
                get_bishop_moves(their_king, occ) | get_rook_moves(their_king, occ),
            )
    }

    fn has_legal_move(&self) -> bool {
        self.board.generate_moves(|_| true)
    }

    /// Converts a standard-notation castling move (`e1g1`) into cozy-chess's king-takes-rook.
    fn castle_from_standard(&self, mv: Move) -> Option<Move> {
        let us = self.board.side_to_move();
        if mv.from != self.board.king(us) || mv.promotion.is_some() {
            return None;
        }
        let back = Rank::First.relative_to(us);
        if mv.to.rank() != back || mv.from.rank() != back {
            return None;
        }
        let rights = self.board.castle_rights(us);
        let rook_file = match mv.to.file() {
            File::G => rights.short,
            File::C => rights.long,
            _ => None,
        }?;
        let castle = Move {
            from: mv.from,
            to: Square::new(rook_file, back),
            promotion: None,
        };
        self.board.is_legal(castle).then_some(castle)
    }
}

impl Rules for Chess {
    type Move = Move;

    const NAME: &'static str = "chess";

    fn to_move(&self) -> Player {
        match self.board.side_to_move() {
            Color::White => Player::P1,
            Color::Black => Player::P2,
        }
    }

    fn legal_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        self.board.generate_moves(|pm| {
            out.extend(pm);
            false
        });
    }

    fn count_moves(&self) -> u64 {
        let mut n = 0;
        self.board.generate_moves(|pm| {
            n += pm.len() as u64;
            false
        });
        n
    }

    fn play(&mut self, mv: Move) {
        if let Eval::Net(net) = self.eval {
            let moved = self.apply_to_accumulator(net, mv);
            self.board.play_unchecked(mv);
            if let Some(side) = moved {
                net.refresh_side(&mut self.acc, side, &self.board);
            }
        } else {
            self.board.play_unchecked(mv);
        }
    }

    /// Perft on the bare board: no accumulators to copy or update.
    fn perft(&self, depth: u32) -> u64 {
        fn count(board: &Board, depth: u32) -> u64 {
            let mut n = 0;
            board.generate_moves(|pm| {
                if depth == 1 {
                    n += pm.len() as u64;
                } else {
                    for mv in pm {
                        let mut child = board.clone();
                        child.play_unchecked(mv);
                        n += count(&child, depth - 1);
                    }
                }
                false
            });
            n
        }
        if depth == 0 {
            1
        } else {
            count(&self.board, depth)
        }
    }

    fn hash(&self) -> u64 {
        self.board.hash()
    }

    fn terminal(&self) -> Option<Outcome> {
        if self.board.halfmove_clock() >= 100 {
            if !self.board.checkers().is_empty() && !self.has_legal_move() {
                return Some(Outcome::Loss);
            }
            return Some(Outcome::Draw);
        }
        if self.insufficient_material() {
            return Some(Outcome::Draw);
        }
        None
    }

    fn outcome_without_moves(&self) -> Outcome {
        if self.board.checkers().is_empty() {
            Outcome::Draw
        } else {
            Outcome::Loss
        }
    }

    fn end_reason(&self) -> Option<String> {
        let mated = !self.board.checkers().is_empty() && !self.has_legal_move();
        Some(if mated {
            "checkmate".into()
        } else if !self.has_legal_move() {
            "stalemate".into()
        } else if self.board.halfmove_clock() >= 100 {
            "fifty-move rule".into()
        } else if self.insufficient_material() {
            "insufficient material".into()
        } else {
            return None;
        })
    }

    fn reversible_plies(&self) -> usize {
        self.board.halfmove_clock() as usize
    }
}

impl SearchHints for Chess {
    const NULL_MOVE: bool = true;

    const FUTILITY_MARGIN: i32 = 90;
    const ELO_CALIBRATED: bool = true;

    fn tactical_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        let b = &self.board;
        let us = b.side_to_move();
        let them = b.colors(!us);
        let pawns = b.pieces(Piece::Pawn);
        let promo_rank = Rank::Eighth.relative_to(us).bitboard();
        let ep = b
            .en_passant()
            .map(|f| Square::new(f, Rank::Sixth.relative_to(us)).bitboard())
            .unwrap_or(BitBoard::EMPTY);
        b.generate_moves(|mut pm| {
            let mut mask = them;
            if pawns.has(pm.from) {
                mask |= ep | promo_rank;
            }
            pm.to &= mask;
            for mv in pm {
                // Under-promotions without capture are quiet enough to skip in quiescence.
                if matches!(mv.promotion, None | Some(Piece::Queen)) || them.has(mv.to) {
                    out.push(mv);
                }
            }
            false
        });
    }

    fn null_move(&self) -> Option<Self> {
        // Zugzwang guard: only with a piece other than pawns and king.
        let us = self.board.colors(self.board.side_to_move());
        let minor_major =
            self.board.occupied() ^ self.board.pieces(Piece::Pawn) ^ self.board.pieces(Piece::King);
        if (us & minor_major).is_empty() {
            return None;
        }
        // The pieces do not move: the accumulators stay.
        self.board.null_move().map(|board| Chess {
            board,
            ..self.clone()
        })
    }

    fn evaluate(&self) -> i32 {
        match self.eval {
            Eval::Net(net) => {
                pesto::scale_drawish(&self.board, net.evaluate(&self.acc, &self.board))
            }
            Eval::Tuned(h) => pesto::scale_drawish(&self.board, h.evaluate(&self.board)),
            Eval::Pesto => pesto::evaluate(&self.board),
        }
    }

    fn in_check(&self) -> bool {
        !self.board.checkers().is_empty()
    }

    fn is_tactical(&self, mv: Move) -> bool {
        mv.promotion == Some(Piece::Queen) || (self.is_capture(mv) && !self.is_castle(mv))
    }

    fn order_score(&self, mv: Move) -> i32 {
        let attacker = self.board.piece_on(mv.from).map_or(0, |p| p as usize);
        let mut score = 0;
        if self.is_castle(mv) {
            return 0;
        }
        if let Some(victim) = self.board.piece_on(mv.to) {
            score += ORDER_VALUE[victim as usize] * 16 - ORDER_VALUE[attacker] / 10;
        } else if self.is_en_passant(mv) {
            score += ORDER_VALUE[0] * 16 - ORDER_VALUE[0] / 10;
        }
        if let Some(p) = mv.promotion {
            score += ORDER_VALUE[p as usize] * 16;
        }
        score
    }

    fn move_key(mv: Move) -> u16 {
        let promo = mv.promotion.map_or(0, |p| p as u16 + 1);
        (mv.from as u16) | ((mv.to as u16) << 6) | (promo << 12)
    }

    fn history_key(&self, mv: Move) -> usize {
        (mv.from as usize) * 64 + mv.to as usize
    }

    fn cont_key(&self, mv: Move) -> usize {
        let b = &self.board;
        let piece = b.piece_on(mv.from).map_or(0, |p| p as usize);
        let black = usize::from(b.side_to_move() == Color::Black);
        (piece + 6 * black) * 64 + mv.to as usize
    }

    fn victim(&self, mv: Move) -> usize {
        if self.is_castle(mv) {
            return 7;
        }
        match self.board.piece_on(mv.to) {
            Some(p) => p as usize,
            None if self.is_en_passant(mv) => 0,
            None => 6,
        }
    }

    fn see_ge(&self, mv: Move, threshold: i32) -> bool {
        see::see_ge(self, mv, threshold)
    }

    fn structure_key(&self) -> u64 {
        let b = &self.board;
        let pawns = b.pieces(Piece::Pawn);
        crate::bits::mix((pawns & b.colors(Color::White)).0)
            ^ crate::bits::mix((pawns & b.colors(Color::Black)).0 ^ 0x9e37_79b9_7f4a_7c15)
    }

    const BENCH_DEPTH: u32 = 10;

    fn bench_fens() -> &'static [&'static str] {
        BENCH_FENS
    }
}

impl BooksAndSolvers for Chess {
    fn probe_wdl(&self, depth: i32) -> Option<Outcome> {
        syzygy::probe_search(&self.board, depth)
    }

    fn probe_root(&self) -> Option<(Vec<Move>, Outcome)> {
        syzygy::probe_root(&self.board)
    }

    fn options() -> &'static [GameOption] {
        &[
            GameOption {
                name: "UCI_Chess960",
                declaration: "type check default false",
            },
            GameOption {
                name: "EvalFile",
                declaration: "type string default <embedded>",
            },
            GameOption {
                name: "SyzygyPath",
                declaration: "type string default <empty>",
            },
            GameOption {
                name: "SyzygyProbeDepth",
                declaration: "type spin default 1 min 1 max 100",
            },
            GameOption {
                name: "Syzygy50MoveRule",
                declaration: "type check default true",
            },
            GameOption {
                name: "SyzygyProbeLimit",
                declaration: "type spin default 7 min 0 max 7",
            },
        ]
    }

    fn release(&self) {
        syzygy::unload();
    }

    fn process_wide_option(name: &str) -> bool {
        name.to_ascii_lowercase().starts_with("syzygy")
    }

    fn notices(&self) -> Vec<String> {
        syzygy::take_notices()
    }

    fn answer_promptly(&self) {
        syzygy::answer_within(syzygy::CHECK_BUDGET);
    }

    fn set_option(&mut self, name: &str, value: &str) -> Option<Result<(), String>> {
        if let Some(result) = syzygy::set_option(name, value) {
            return Some(result);
        }
        if name.eq_ignore_ascii_case("EvalFile") {
            let eval = match value.trim() {
                "" | "<embedded>" => Ok(Eval::default_eval()),
                "<none>" | "<pesto>" => Ok(Eval::Pesto),
                "<hce>" | "<tuned>" => hce::embedded()
                    .map(Eval::Tuned)
                    .ok_or_else(|| "EvalFile <hce>: the tuned weights do not load".to_string()),
                path => Eval::load(path),
            };
            return Some(
                eval.map(|eval| *self = Chess::with(self.board.clone(), self.chess960, eval)),
            );
        }
        if !name.eq_ignore_ascii_case("UCI_Chess960") {
            return None;
        }
        Some(match value.to_ascii_lowercase().as_str() {
            "true" => {
                self.chess960 = true;
                Ok(())
            }
            "false" => {
                self.chess960 = false;
                Ok(())
            }
            _ => Err(format!("UCI_Chess960 expects true or false, not '{value}'")),
        })
    }
}

/// Bench positions: the start, the standard perft positions, and a few quiet middlegames
/// and endgames.
const BENCH_FENS: &[&str] = &[
    STARTPOS,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8",
    "2r3k1/pp3ppp/4p3/3pP3/3P1P2/1P3K2/P6P/2R5 w - - 0 30",
    "6k1/5pp1/7p/8/3K4/8/5PPP/8 w - - 0 40",
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 15",
];
