//! A conformance suite that runs against any MCP server and reports case by case.
//!
//! The runner drives servers at the wire level, not through a client library: it sends exact
//! (sometimes malformed) bytes and observes exactly what comes back, or that nothing does.
//!
//! - [`driver`]: transports and sessions: stdio, Streamable HTTP and HTTP+SSE behind
//!   [`driver::Transport`] and [`driver::Connector`].
//! - [`case`](mod@case): what a case is (id, versions, spec section, MUST/SHOULD) and its outcome.
//! - [`cases`]: the cases, one module per area of the specification.
//! - [`runner`]: runs the selected cases with a bound on each.
//! - [`report`]: table, JSON and JUnit output; [`report_html`]: the HTML page.
//! - [`baseline`]: what fails a run for CI (`--strict`, `--baseline`); [`explain`]: `--explain`.
//!
//! # Running it
//!
//! ```text
//! mcp-conformance stdio -- node server.js            # any stdio server
//! mcp-conformance --only tools,jsonrpc stdio -- ...   # by id prefix; --skip likewise
//! mcp-conformance --format junit stdio -- ... > conformance.xml
//! mcp-conformance http http://127.0.0.1:8080/mcp      # Streamable HTTP, plus the http.* cases
//! mcp-conformance --header 'Authorization: Bearer T' http URL
//! mcp-conformance sse http://127.0.0.1:8080/sse       # HTTP+SSE, plus the sse.* cases
//! mcp-conformance --list                              # the cases, levels and versions
//! mcp-conformance                                     # this workspace's weather-server
//! ```
//!
//! # Two eras
//!
//! Before the cases run, the runner probes the target's era: a `server/discover` carrying
//! 2026-07-28 in `_meta` on a fresh connection. A result listing 2026-07-28 makes the `modern.*`
//! cases part of the run (each on a connection of its own, never an `initialize`); anything
//! else skips them. The handshake cases run when `initialize` succeeds, so a dual-era server
//! gets both sets and a server that speaks only 2026-07-28 gets the modern ones.
//!
//! The exit status is 0 when no MUST case failed (with `--strict`, no case), less the failures
//! a `--baseline` accepts, 1 when one did, 2 when the command line is wrong or the server cannot
//! be started or reached. `docs/conformance.md` in the repository has the whole manual. Transport cases (`http.*`, `sse.*`) are part of a run
//! only on their transport.
//! Each case runs on a shared session initialized at the latest version unless it needs its own
//! (version probes, requests before `initialize`, batches). Every request is recorded with the
//! case that sent it: a reply arriving after its case ended (late, or a second one) is noted on
//! that case and never shown to the running one, and a request answered twice fails its case.
//! After a failing case the shared session is kept only if it still answers a ping. Bounds come
//! from the measured round trip ([`context::Timing`]).
//!
//! # Fixtures
//!
//! Some cases need behaviour a generic server may lack. They look for it by convention and skip
//! with a reason when it is missing:
//!
//! - **slow tool** (cancellation, repeated ids, concurrency): a tool whose `inputSchema` has a
//!   numeric `duration` property (seconds) or `durationMs`/`duration_ms` (milliseconds), and
//!   optionally a numeric `steps`. Its other required arguments come from `--call NAME=JSON` or
//!   from their schemas (`default`, `const`, `enum`, `examples`); a tool whose required arguments
//!   cannot be filled in is not picked on its own. `@modelcontextprotocol/server-everything`'s
//!   `trigger-long-running-operation` and weather-server's `watch_weather` (its `city` has an
//!   example) fit. Choose one with `--slow-tool NAME`.
//! - **progress tool**: the slow tool, called with a `progressToken`; it should send
//!   `notifications/progress`. Choose another with `--progress-tool NAME`.
//! - **sample calls** (call results, `structuredContent`): tools annotated
//!   `readOnlyHint: true` whose required arguments can be taken from their schema (`default`,
//!   `const`, `enum`, `examples`; booleans, numbers, arrays and objects get neutral values).
//!   Other tools are never called with valid arguments unless named with
//!   `--call NAME='{"arg": …}'`.

#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod baseline;
pub mod case;
pub mod cases;
pub mod context;
pub mod driver;
pub mod error;
pub mod explain;
pub mod report;
pub mod report_html;
pub mod runner;

pub use case::{Case, Level, Outcome};
pub use error::Error;
