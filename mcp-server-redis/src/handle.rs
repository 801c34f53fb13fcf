//! [`RedisHandle`]: one cheap-to-clone way to Redis for every shared store. Commands go over
//! redis-rs' auto-reconnecting `ConnectionManager` (connected on first use, so a server starts
//! while Redis is down), each bounded by the command timeout; the last failure is remembered
//! for `/readyz`. [`Subscription`]s keep their own pub/sub connection and re-subscribe after
//! Redis comes back.

use std::pin::Pin;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};
use ::redis::{Client, Cmd, FromRedisValue, Pipeline, RedisError};
use futures_core::Stream;
use mcp_proto::sync::lock;
use tokio::sync::{mpsc, OnceCell};
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::{RedisConfig, SharedStateError};

/// Waits between pub/sub reconnection attempts: doubling from the first to the last.
const RESUBSCRIBE_BACKOFF: (Duration, Duration) =
    (Duration::from_millis(50), Duration::from_secs(2));

/// A handle to Redis shared by every store of a server: clones share one connection.
#[derive(Clone)]
pub struct RedisHandle {
    inner: Arc<Inner>,
}

struct Inner {
    client: Client,
    config: RedisConfig,
    /// `host:port`, for messages (never the password).
    addr: String,
    connection: OnceCell<ConnectionManager>,
    /// The last command's failure, cleared by the next success.
    last_error: Mutex<Option<SharedStateError>>,
    /// Subscriptions not subscribed right now.
    subscriptions_down: AtomicIsize,
}

impl std::fmt::Debug for RedisHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisHandle")
            .field("addr", &self.inner.addr)
            .field("key_prefix", &self.inner.config.key_prefix)
            .finish_non_exhaustive()
    }
}

impl RedisHandle {
    /// A handle to the Redis `config` names. Connects on first use: a Redis that is down now
    /// makes commands fail (and `/readyz` say so) until it is up, nothing more.
    pub fn new(config: RedisConfig) -> Result<Self, SharedStateError> {
        let client =
            Client::open(config.url.as_str()).map_err(|e| SharedStateError::InvalidUrl {
                url: redact(&config.url),
                reason: e.to_string(),
            })?;
        let addr = client.get_connection_info().addr().to_string();
        Ok(RedisHandle {
            inner: Arc::new(Inner {
                client,
                config,
                addr,
                connection: OnceCell::new(),
                last_error: Mutex::new(None),
                subscriptions_down: AtomicIsize::new(0),
            }),
        })
    }

    /// The configuration it was made from.
    pub fn config(&self) -> &RedisConfig {
        &self.inner.config
    }

    /// Where Redis is (`host:port`), for messages.
    pub fn addr(&self) -> &str {
        &self.inner.addr
    }

    /// The full name of key (or channel) `name`: the configured prefix, then `name`.
    pub fn key(&self, name: &str) -> String {
        let prefix = &self.inner.config.key_prefix;
        let mut key = String::with_capacity(prefix.len() + name.len());
        key.push_str(prefix);
        key.push_str(name);
        key
    }

    async fn connection(&self) -> Result<ConnectionManager, SharedStateError> {
        let inner = &self.inner;
        let manager = inner
            .connection
            .get_or_try_init(|| async {
                let timeout = inner.config.command_timeout;
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(timeout))
                    .set_response_timeout(Some(timeout))
                    // Fail the command fast while Redis is down; the next one tries again.
                    .set_number_of_retries(1)
                    .set_min_delay(Duration::from_millis(20))
                    .set_max_delay(Duration::from_millis(500));
                ConnectionManager::new_lazy_with_config(inner.client.clone(), config)
                    .map_err(|e| self.classify(e))
            })
            .await?;
        Ok(manager.clone())
    }

    /// Runs `cmd` and decodes its reply, within the command timeout.
    pub async fn query<T: FromRedisValue>(&self, cmd: &Cmd) -> Result<T, SharedStateError> {
        let mut connection = self.connection().await?;
        let reply = tokio::time::timeout(
            self.inner.config.command_timeout,
            cmd.query_async(&mut connection),
        )
        .await;
        self.record(reply)
    }

    /// Runs `pipeline` (one round trip; atomic if made with `.atomic()`) within the command
    /// timeout.
    pub async fn query_pipeline<T: FromRedisValue>(
        &self,
        pipeline: &Pipeline,
    ) -> Result<T, SharedStateError> {
        let mut connection = self.connection().await?;
        let reply = tokio::time::timeout(
            self.inner.config.command_timeout,
            pipeline.query_async(&mut connection),
        )
        .await;
        self.record(reply)
    }

    /// Publishes `payload` on channel `channel` (a full name, see [`key`](Self::key)); returns
    /// how many subscribers got it.
    pub async fn publish(&self, channel: &str, payload: &[u8]) -> Result<u64, SharedStateError> {
        self.query(::redis::cmd("PUBLISH").arg(channel).arg(payload))
            .await
    }

    /// Whether Redis answers now and every subscription is subscribed: `Ok`, or what is wrong.
    pub async fn ready(&self) -> Result<(), SharedStateError> {
        let pong: String = self.query(&::redis::cmd("PING")).await?;
        if pong != "PONG" {
            return Err(SharedStateError::Command {
                addr: self.inner.addr.clone(),
                reason: format!("PING answered {pong:?}"),
            });
        }
        let down = self.inner.subscriptions_down.load(Ordering::Relaxed);
        if down > 0 {
            return Err(SharedStateError::Subscribing {
                addr: self.inner.addr.clone(),
                count: usize::try_from(down).unwrap_or_default(),
            });
        }
        Ok(())
    }

    /// The failure of the last command, if it failed (cleared by the next success).
    pub fn last_error(&self) -> Option<SharedStateError> {
        lock(&self.inner.last_error).clone()
    }

    fn record<T>(
        &self,
        reply: Result<Result<T, RedisError>, tokio::time::error::Elapsed>,
    ) -> Result<T, SharedStateError> {
        let outcome = match reply {
            Ok(Ok(value)) => {
                let mut last = lock(&self.inner.last_error);
                if last.is_some() {
                    tracing::info!("Redis at {} answers again", self.inner.addr);
                    *last = None;
                }
                return Ok(value);
            }
            Ok(Err(e)) => self.classify(e),
            Err(_) => SharedStateError::Timeout {
                addr: self.inner.addr.clone(),
                timeout: self.inner.config.command_timeout,
            },
        };
        let mut last = lock(&self.inner.last_error);
        if last.is_none() {
            tracing::warn!("{outcome}");
        }
        *last = Some(outcome.clone());
        Err(outcome)
    }

    fn classify(&self, e: RedisError) -> SharedStateError {
        let addr = self.inner.addr.clone();
        if e.is_timeout() {
            SharedStateError::Timeout {
                addr,
                timeout: self.inner.config.command_timeout,
            }
        } else if e.is_io_error()
            || e.is_connection_refusal()
            || e.is_connection_dropped()
            || e.is_unrecoverable_error()
        {
            SharedStateError::Unavailable {
                addr,
                reason: e.to_string(),
            }
        } else {
            SharedStateError::Command {
                addr,
                reason: e.to_string(),
            }
        }
    }

    /// Subscribes to `channels` (full names) on a connection of its own that re-subscribes
    /// whenever it is lost (messages published meanwhile are missed). Messages wait in a
    /// bounded queue; when the reader falls behind, newer ones are dropped with a warning.
    /// Dropping the [`Subscription`] unsubscribes.
    pub fn subscribe(&self, channels: Vec<String>) -> Subscription {
        let (sender, receiver) = mpsc::channel(self.inner.config.subscription_queue.max(1));
        Subscription {
            receiver,
            _stop: self.listen(channels, Arc::new(sender)),
        }
    }

    /// Like [`subscribe`](Self::subscribe), but hands each message to `listener` on the
    /// subscription's own task (no queue, nothing dropped) and tells it whenever the
    /// subscription is made or lost; dropping the guard unsubscribes.
    pub(crate) fn listen(&self, channels: Vec<String>, listener: Arc<dyn Listener>) -> DropGuard {
        let stop = CancellationToken::new();
        self.inner
            .subscriptions_down
            .fetch_add(1, Ordering::Relaxed);
        let handle = self.clone();
        let token = stop.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = token.cancelled() => {}
                _ = handle.run_subscription(&channels, &*listener) => {}
            }
            listener.subscribed(false);
        });
        stop.drop_guard()
    }

    /// Subscribes and forwards until the listener goes away; the subscription counts as down
    /// whenever it is not subscribed (the listener hears so first).
    async fn run_subscription(&self, channels: &[String], listener: &dyn Listener) {
        let mut down = DownCounter::new(&self.inner.subscriptions_down);
        let (first, last) = RESUBSCRIBE_BACKOFF;
        let mut wait = first;
        loop {
            match self.open_subscription(channels).await {
                Ok(mut stream) => {
                    listener.subscribed(true);
                    down.set(false);
                    wait = first;
                    tracing::debug!("subscribed to {channels:?} at {}", self.inner.addr);
                    loop {
                        let next = std::future::poll_fn(|cx| Pin::new(&mut stream).poll_next(cx));
                        let Some(message) = next.await else { break };
                        let message = PubSubMessage {
                            channel: message.get_channel_name().to_owned(),
                            payload: message.get_payload_bytes().to_vec(),
                        };
                        if !listener.message(message) {
                            return;
                        }
                    }
                    listener.subscribed(false);
                    down.set(true);
                    tracing::warn!(
                        "lost the Redis subscription to {channels:?} at {}; re-subscribing",
                        self.inner.addr
                    );
                }
                Err(e) => {
                    tracing::debug!("cannot subscribe to {channels:?}: {e}");
                    *lock(&self.inner.last_error) = Some(e);
                }
            }
            if listener.gone() {
                return;
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(last);
        }
    }

    async fn open_subscription(
        &self,
        channels: &[String],
    ) -> Result<::redis::aio::PubSubStream, SharedStateError> {
        let timeout = self.inner.config.command_timeout;
        let subscribed = tokio::time::timeout(timeout, async {
            let mut pubsub = self.inner.client.get_async_pubsub().await?;
            for channel in channels {
                pubsub.subscribe(channel).await?;
            }
            Ok::<_, RedisError>(pubsub.into_on_message())
        })
        .await;
        match subscribed {
            Ok(Ok(stream)) => Ok(stream),
            Ok(Err(e)) => Err(self.classify(e)),
            Err(_) => Err(SharedStateError::Timeout {
                addr: self.inner.addr.clone(),
                timeout,
            }),
        }
    }
}

/// Counts one subscription as down while it is, and stops counting it when dropped.
struct DownCounter<'a> {
    counter: &'a AtomicIsize,
    down: bool,
}

impl<'a> DownCounter<'a> {
    /// Starts out down (the caller already counted it).
    fn new(counter: &'a AtomicIsize) -> Self {
        DownCounter {
            counter,
            down: true,
        }
    }

    fn set(&mut self, down: bool) {
        if std::mem::replace(&mut self.down, down) != down {
            self.counter
                .fetch_add(if down { 1 } else { -1 }, Ordering::Relaxed);
        }
    }
}

impl Drop for DownCounter<'_> {
    fn drop(&mut self) {
        self.set(false);
    }
}

/// What a subscription made with [`RedisHandle::listen`] reports to.
pub(crate) trait Listener: Send + Sync + 'static {
    /// A message arrived; false ends the subscription (nobody listens any more).
    fn message(&self, message: PubSubMessage) -> bool;
    /// The subscription is now subscribed (`true`), or lost or ended (`false`: messages
    /// published from now on are missed until it is subscribed again).
    fn subscribed(&self, up: bool);
    /// Whether nobody listens any more (the subscription then ends).
    fn gone(&self) -> bool;
}

/// A [`Subscription`]'s queue.
impl Listener for mpsc::Sender<PubSubMessage> {
    fn message(&self, message: PubSubMessage) -> bool {
        match self.try_send(message) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                tracing::warn!(
                    "a Redis subscription's reader is not keeping up; a message was dropped"
                );
                true
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }

    fn subscribed(&self, _up: bool) {}

    fn gone(&self) -> bool {
        self.is_closed()
    }
}

/// One message received on a subscribed channel.
#[derive(Clone, Debug)]
pub struct PubSubMessage {
    /// The channel's full name.
    pub channel: String,
    /// The message as published.
    pub payload: Vec<u8>,
}

/// Messages of the channels subscribed with [`RedisHandle::subscribe`]; unsubscribes on drop.
#[derive(Debug)]
pub struct Subscription {
    receiver: mpsc::Receiver<PubSubMessage>,
    _stop: DropGuard,
}

impl Subscription {
    /// The next message; `None` only once the subscription has ended.
    pub async fn recv(&mut self) -> Option<PubSubMessage> {
        self.receiver.recv().await
    }
}

/// `url` without the password.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}://***@{}", &url[..scheme], &url[at + 1..])
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_reach_messages() {
        assert_eq!(redact("redis://u:secret@h:1/0"), "redis://***@h:1/0");
        assert_eq!(redact("redis://h:1"), "redis://h:1");
    }

    #[test]
    fn keys_carry_the_prefix() {
        let handle = RedisHandle::new(RedisConfig::new("redis://127.0.0.1:1").key_prefix("t:"))
            .expect("valid url");
        assert_eq!(handle.key("task:1"), "t:task:1");
        assert_eq!(handle.addr(), "127.0.0.1:1");
        assert!(RedisHandle::new(RedisConfig::new("not a url")).is_err());
    }
}
