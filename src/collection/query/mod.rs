//! Header queries (`query/EXPR/`, docs/guide/searching.md): the games whose headers meet
//! conditions on their players, ratings, date, result, ECO code, event, site, round,
//! annotator and length, as SCID's header search (`sc_search header`) finds them.
//! [`Query::parse`] reads the text of a query; a collection evaluates it over its index
//! ([`Collection::query`](super::Collection::query)).

pub(crate) mod eval;
pub mod index;
mod parse;

pub use index::HeaderIndex;
pub use parse::{ParseError, Query};
