//! The host protocol (docs/PROTOCOL.md): JSON lines over stdio, one request per line, one answer per
//! line, in order.
//!
//! | op | fields | answer (besides `"id"`, `"ok":true`) |
//! |---|---|---|
//! | `hello` | — | `"protocol":1`, `"version"`, `"store":"redb"\|"memory"`, `"storePath"` (`null` on memory), `"durability"` |
//! | `judge` | `agent`, `tool`, `path`, `cwd`? | `"note":{family,text,summary,companions}\|null`, `"ledger":[..]`, `"warnings":[..]` only when there are some |
//! | `peek` | as `judge`, `boundary`? | as `judge`, with nothing recorded or remembered ([`Op::Peek`]; with `"boundary":true`, decided as a change boundary decides, [`Op::BoundaryPeek`]) |
//! | `turn` | `agent` | `"ledger":[..]` |
//! | `configure` | `config` (a patch object) | `"ledger":[..]`, `"warnings":[..]` only when there are some |
//! | `flush` | — | `"durable":N` |
//! | `rates` | `workspace` (+ `cwd`?) or `key` | `"key"`, `"rateModel"`, `"rows":[{family,companion,rate,step,accepts,rejects}]` |
//! | `stats` | — | `"stats":{judged,notes,accepted,rejected,abandoned,abstained,suppressed}`, `"store":"redb"\|"memory"`, `"startup":[..]` (the startup ledger) |
//! | `close` | — | `"durable":N`, then the server stops (over the socket: the connection ends) |
//!
//! A failure answers `{"id":..,"ok":false,"error":{"code":"<kebab-code>","detail":".."}}`; the
//! codes are listed on [`RequestError::code`]. `id` is echoed when it is a number or a string,
//! else `null`. A bad line never stops the server and changes nothing already recorded.
//! Blank lines are skipped without an answer.
//!
//! Hosts that embed the engine in their own process skip the lines: [`embed::open`] builds
//! the dispatcher from an options object as `serve` builds it, and
//! [`Dispatcher::handle_value`] takes a request object and answers a value or the error.

mod answer;
mod dispatch;
pub mod embed;
mod error;
mod lines;
mod request;
mod serve;
mod slots;
#[cfg(unix)]
pub mod socket;

pub use answer::{Id, RateView, Reading};
pub use dispatch::{Dispatcher, Handled, PROTOCOL_VERSION};
pub use error::RequestError;
pub use lines::{Line, LineReader, MAX_LINE_BYTES};
pub use request::{Op, RatesTarget, Request, parse_line, parse_value};
pub use serve::{Ending, ServeError, serve, serve_stdio};

#[cfg(test)]
mod panics;
#[cfg(test)]
mod tests;
