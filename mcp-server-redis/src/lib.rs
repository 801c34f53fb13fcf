//! Redis stores for [`mcp_server`]: what the replicas of one deployment share, so any replica
//! behind a load balancer serves any request.
//!
//! `mcp-server` keeps this state behind traits with in-memory defaults; this crate implements
//! them on Redis, and [`RedisBackend`] gathers them into one [`StateBackend`] for
//! [`ServerBuilder::shared_state`](mcp_server::ServerBuilder::shared_state):
//!
//! | state | trait in `mcp-server` | here |
//! | --- | --- | --- |
//! | task records | [`TaskStore`](mcp_server::TaskStore) | [`RedisTaskStore`] |
//! | 2025-era HTTP sessions | [`SessionStore`](mcp_server::session_store::SessionStore) | [`RedisSessionStore`] (with leases) |
//! | their resumable SSE events | [`EventStore`](mcp_server::event_store::EventStore) | [`RedisEventStore`] |
//! | client messages for another replica | [`SessionRelay`](mcp_server::session_store::SessionRelay) | [`RedisSessionRelay`] |
//! | resource changes, task cancels and input (`subscriptions/listen`, tasks) | [`ReplicaBus`](mcp_server::shared::ReplicaBus) | one pub/sub channel |
//! | readiness (`/readyz`) | [`StateBackend::ready`] | `PING`, and the bus subscribed |
//!
//! Every replica given the same [`RedisConfig`] (URL and key prefix) shares the same state.
//! Give them the same [`request_state_key`](mcp_server::ServerBuilder::request_state_key)
//! too, so a 2026-07-28 retry resumes on any of them.
//!
//! ```no_run
//! use mcp_server::{http::HttpConfig, Server, Tool};
//! use mcp_server_redis::{RedisBackend, RedisConfig};
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let redis = RedisConfig::new("redis://127.0.0.1:6379").key_prefix("mcp:clock:");
//!     let server = Server::builder("clock", "1.0.0")
//!         .tool(Tool::new("now", "The server's time"), || async {
//!             format!("{:?}", std::time::SystemTime::now())
//!         })
//!         .request_state_key(std::fs::read("/run/secrets/mcp-state-key")?)
//!         .shared_state(RedisBackend::open(redis)?)
//!         .build();
//!     let running = server.serve_http("127.0.0.1:8080", HttpConfig::default()).await?;
//!     running.stopped().await;
//!     Ok(())
//! }
//! ```
//!
//! Redis is reached through [`RedisHandle`] (redis-rs' auto-reconnecting connection manager,
//! every command bounded by [`RedisConfig::command_timeout`]). A server starts while Redis is
//! down; requests that need shared state then fail with a clear error and `/readyz` answers
//! 503 until Redis is back. Plain calls that need no shared state go on.

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod backend;
mod bus;
mod config;
mod error;
mod event_store;
mod handle;
mod replica;
mod session_relay;
mod session_store;
mod task_store;

pub use backend::RedisBackend;
pub use config::RedisConfig;
pub use error::SharedStateError;
pub use event_store::RedisEventStore;
pub use handle::{PubSubMessage, RedisHandle, Subscription};
pub use session_relay::RedisSessionRelay;
pub use session_store::RedisSessionStore;
pub use task_store::RedisTaskStore;

/// The Redis client crate, re-exported so commands built for [`RedisHandle::query`] use the
/// same version.
pub use ::redis as client;
/// The trait [`RedisBackend`] implements, re-exported for convenience.
pub use mcp_server::shared::StateBackend;
