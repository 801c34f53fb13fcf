//! The sizes of the request futures whose rare branches are boxed to keep them small (a future
//! is as big as its largest path, and the peer boxes every request's future, so an inline rare
//! branch would be allocated and copied with every request). Each bound is the size measured in
//! the test build with the boxing, plus a margin smaller than what the branch adds inline: a
//! bound that fails means a boxing was lost (or a path grew), and the figure is to be looked at.
//!
//! The boxed branches: the traced path of `Connection::handle_request`; the tasks and completion
//! paths of `Connection::route` and `modern::serve`, and `subscriptions/listen`; a `tools/call` run as
//! a task in `ToolService::call`; the task note of `Context::progress` (commit b513c76 has what
//! inlining some of them cost). Unboxing the task call alone takes `Connection::handle_request`
//! from 1,592 to 2,376 bytes.

use std::mem::size_of;

use mcp_proto::peer::Handler;

use crate::connection::Connection;
use crate::modern;
use crate::services::ToolService;
use crate::Context;

/// How much a future may grow before the test asks why: less than any boxed branch adds.
const MARGIN: usize = 64;

/// The size of the future `make` returns, which is never called.
fn size_of_future<F>(_make: impl FnOnce() -> F) -> usize {
    size_of::<F>()
}

/// Prints the figures, for `cargo test -p mcp-server future_sizes -- --nocapture`.
fn report(name: &str, size: usize, bound: usize) {
    println!("{name}: {size} bytes (bound {bound})");
    assert!(
        size <= bound,
        "the {name} future is {size} bytes, over its bound of {bound}: was a rare branch unboxed?"
    );
}

#[test]
#[allow(unreachable_code, clippy::diverging_sub_expression)]
fn request_futures_stay_small() {
    report(
        "Connection::handle_request",
        size_of_future(|| {
            Connection::handle_request(unreachable!(), unreachable!(), unreachable!())
        }),
        1544 + MARGIN,
    );
    report(
        "Connection::serve",
        size_of_future(|| Connection::serve(unreachable!(), unreachable!(), unreachable!())),
        1408 + MARGIN,
    );
    report(
        "Connection::route",
        size_of_future(|| Connection::route(unreachable!(), unreachable!(), unreachable!())),
        888 + MARGIN,
    );
    report(
        "modern::serve",
        size_of_future(|| {
            modern::serve(
                unreachable!(),
                unreachable!(),
                unreachable!(),
                unreachable!(),
                unreachable!(),
            )
        }),
        1040 + MARGIN,
    );
    report(
        "ToolService::call",
        size_of_future(|| {
            ToolService::call(
                unreachable!(),
                unreachable!(),
                unreachable!(),
                unreachable!(),
                unreachable!(),
                unreachable!(),
            )
        }),
        544 + MARGIN,
    );
    report(
        "Context::progress",
        size_of_future(|| {
            Context::progress(
                unreachable!(),
                unreachable!(),
                unreachable!(),
                unreachable!(),
            )
        }),
        136 + MARGIN,
    );
}
