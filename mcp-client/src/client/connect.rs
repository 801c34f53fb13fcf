//! Opening a connection: the peer over a transport or a stdio child, and the handshake the
//! negotiation rule picks (a `server/discover` probe, `initialize`, or a pinned version).

use std::sync::Arc;
use std::time::Duration;

use mcp_proto::jsonrpc;
use mcp_proto::peer::{Peer, PeerError, PeerHandle, PeerOptions, RequestOptions, Transport};
use mcp_proto::schema::{
    Discover, DiscoverResult, EmptyParams, Implementation, Initialize, InitializeParams,
    InitializeResult, Initialized, RequestType,
};
use mcp_proto::version::{self, ProtocolVersion};

use crate::era::{classify_probe, Negotiation, ProbeVerdict};
use crate::error::ClientError;
use crate::handler::ClientHandler;
use crate::modern::{self, ModernMeta};
use crate::options::{clamp_timeout, ClientOptions};
use crate::stderr_ring::StderrRing;
use crate::stdio::{self, StdioServerConfig};
use crate::supervisor::ChildProcess;

use super::{Connection, Handshake};

pub(super) fn peer_options(name: &str) -> PeerOptions {
    PeerOptions {
        name: name.to_owned(),
        reply_to_invalid: false,
        shutdown_grace: Duration::from_secs(1),
        ..Default::default()
    }
}

/// Chooses the era and version as `options.negotiation` says: a `server/discover` probe for
/// auto (falling back to `initialize` unless the answer is a recognised modern error) and for a
/// 2026-07-28 pin, `initialize` for legacy and older pins. The version found is remembered in
/// the options' era cache.
pub(super) async fn negotiate(
    peer: &PeerHandle,
    name: &str,
    options: &ClientOptions,
    handler: &ClientHandler,
) -> Result<Handshake, ClientError> {
    let remembered = options
        .era_cache
        .as_ref()
        .and_then(|(cache, key)| cache.get(key));
    let handshake = match options.negotiation {
        Negotiation::Legacy => {
            handshake(
                peer,
                name,
                options,
                handler,
                options.protocol_version,
                false,
            )
            .await?
        }
        Negotiation::Pin(version) if version.is_stateless_era() => {
            pinned(peer, name, options, handler, version).await?
        }
        Negotiation::Pin(version) => handshake(peer, name, options, handler, version, true).await?,
        Negotiation::Auto => auto(peer, name, options, handler, remembered).await?,
    };
    if let Some((cache, key)) = &options.era_cache {
        cache.set(key, handshake.protocol_version);
    }
    Ok(handshake)
}

/// A 2026-07-28 pin: `server/discover` under that version, tried once more when a -32022 lists
/// the pinned version among those the server supports (the spec's "retry with a supported
/// version"); any other failure is final, and a -32022 names the versions offered.
pub(super) async fn pinned(
    peer: &PeerHandle,
    name: &str,
    options: &ClientOptions,
    handler: &ClientHandler,
    version: ProtocolVersion,
) -> Result<Handshake, ClientError> {
    let timeout = clamp_timeout(options.initialize_timeout);
    let mut retried = false;
    loop {
        let error = match discover(peer, name, options, handler, version, timeout).await {
            Ok(handshake) => return Ok(handshake),
            Err(error) => error,
        };
        return Err(match classify_probe(&error, version) {
            ProbeVerdict::RetryWith(v) if v == version && !retried => {
                tracing::debug!(server = %name, "server/discover refused {version} but lists it; retrying once");
                retried = true;
                continue;
            }
            ProbeVerdict::RetryWith(v) => ClientError::ModernRefused {
                server: name.to_owned(),
                reason: format!("pinned to {version}, but the server asks for {v}"),
            },
            ProbeVerdict::ModernRefused(reason) => ClientError::ModernRefused {
                server: name.to_owned(),
                reason,
            },
            ProbeVerdict::Legacy => ClientError::from_peer(name, error),
        });
    }
}

/// The auto mode: probe with `server/discover` (retrying once with a mutual modern version on
/// -32022), else `initialize`. A server remembered as 2025-era is not probed.
pub(super) async fn auto(
    peer: &PeerHandle,
    name: &str,
    options: &ClientOptions,
    handler: &ClientHandler,
    remembered: Option<ProtocolVersion>,
) -> Result<Handshake, ClientError> {
    let offered = options.protocol_version;
    if remembered.is_some_and(|v| !v.is_stateless_era()) {
        return handshake(peer, name, options, handler, offered, false).await;
    }
    let mut asked = remembered.unwrap_or(ProtocolVersion::V2026_07_28);
    // The probe is part of connecting: it never waits longer than the handshake would.
    let timeout = clamp_timeout(options.discover_timeout.min(options.initialize_timeout));
    for _ in 0..2 {
        let error = match discover(peer, name, options, handler, asked, timeout).await {
            Ok(handshake) => return Ok(handshake),
            Err(error) => error,
        };
        if let PeerError::Closed(_) = error {
            return Err(ClientError::from_peer(name, error));
        }
        match classify_probe(&error, asked) {
            ProbeVerdict::RetryWith(version) => asked = version,
            ProbeVerdict::ModernRefused(reason) => {
                return Err(ClientError::ModernRefused {
                    server: name.to_owned(),
                    reason,
                })
            }
            ProbeVerdict::Legacy => {
                tracing::debug!(server = %name, "server/discover failed ({error}); using initialize");
                break;
            }
        }
    }
    handshake(peer, name, options, handler, offered, false).await
}

/// The capabilities (every callback's, and the tasks extension) and the info a client's
/// 2026-07-28 requests declare in their `_meta`.
pub(super) fn declared_identity(
    handler: &ClientHandler,
    options: &ClientOptions,
) -> Result<modern::Identity, String> {
    modern::Identity::new(
        &crate::tasks::with_tasks_extension(handler.capabilities()),
        &options.client_info,
    )
}

/// A modern `server/discover` under `version`, bounded by `timeout`; on success the peer is set
/// to that version and the answer is kept as the handshake.
pub(super) async fn discover(
    peer: &PeerHandle,
    name: &str,
    options: &ClientOptions,
    handler: &ClientHandler,
    version: ProtocolVersion,
    timeout: Duration,
) -> Result<Handshake, PeerError> {
    let encode = |detail: String| PeerError::Encode {
        method: Discover::METHOD.into(),
        detail,
    };
    let meta = ModernMeta {
        version,
        identity: Arc::new(declared_identity(handler, options).map_err(encode)?),
        log_level: None,
    };
    let params = meta.apply(None).map_err(encode)?;
    let params = jsonrpc::to_raw(&params).map_err(|e| encode(e.to_string()))?;
    let request = RequestOptions {
        timeout: Some(timeout),
        ..Default::default()
    };
    let raw = peer
        .request_raw(Discover::METHOD, Some(params), request)
        .await?;
    let decode = |detail: String| PeerError::Decode {
        method: Discover::METHOD.into(),
        detail,
    };
    let raw = match modern::classify(raw).map_err(decode)? {
        modern::Answer::Complete(raw) => raw,
        modern::Answer::InputRequired(_) | modern::Answer::Task(_) => {
            return Err(decode(
                "server/discover may only answer with a complete result".into(),
            ))
        }
    };
    let result: DiscoverResult =
        jsonrpc::from_object(raw.get()).map_err(|e| decode(e.to_string()))?;
    let server_info = result
        .meta
        .as_ref()
        .and_then(|m| m.get(mcp_proto::schema::modern::meta_keys::SERVER_INFO))
        .and_then(|v| serde_json::from_value::<Implementation>(v.clone()).ok())
        .unwrap_or_else(|| Implementation::new(name, ""));
    let mut init =
        InitializeResult::new(version.as_str(), result.capabilities.clone(), server_info);
    init.instructions = result.instructions.clone();
    peer.set_protocol_version(version);
    tracing::debug!(server = %name, version = %version, "discovered a 2026-07-28 server");
    Ok(Handshake {
        protocol_version: version,
        result: init,
        discover: Some(result),
    })
}

/// `initialize` then `notifications/initialized`; refuses a version we do not speak, and with
/// `exact` any version but the one offered.
pub(super) async fn handshake(
    peer: &PeerHandle,
    name: &str,
    options: &ClientOptions,
    handler: &ClientHandler,
    offered: ProtocolVersion,
    exact: bool,
) -> Result<Handshake, ClientError> {
    let params = InitializeParams::new(
        offered.as_str(),
        handler.capabilities(),
        options.client_info.clone(),
    );
    // The spec forbids cancelling `initialize`, so its timeout is kept here rather than in the
    // engine (which would send `notifications/cancelled`): on expiry the connection is closed
    // first, so the dropped call has nothing left to cancel.
    let timeout = clamp_timeout(options.initialize_timeout);
    let call = peer.request_with::<Initialize>(&params, RequestOptions::default());
    tokio::pin!(call);
    let result = match tokio::time::timeout(timeout, &mut call).await {
        Ok(result) => result.map_err(|e| ClientError::from_peer(name, e))?,
        Err(_) => {
            peer.close();
            return Err(ClientError::from_peer(
                name,
                PeerError::Timeout {
                    method: Initialize::METHOD.to_owned(),
                    timeout,
                },
            ));
        }
    };
    let accepted: &[ProtocolVersion] = if exact {
        std::slice::from_ref(&offered)
    } else {
        &ProtocolVersion::HANDSHAKE
    };
    let version = version::accept(&result.protocol_version, accepted).map_err(|e| {
        ClientError::UnsupportedVersion {
            server: name.to_owned(),
            offered: offered.as_str().to_owned(),
            answered: e.requested,
            supported: e.supported,
        }
    })?;
    peer.set_protocol_version(version);
    peer.notify::<Initialized>(&EmptyParams::default())
        .await
        .map_err(|e| ClientError::from_peer(name, e))?;
    tracing::debug!(server = %name, version = %version, "initialized");
    Ok(Handshake {
        protocol_version: version,
        result,
        discover: None,
    })
}

/// Starts a peer on `transport` and initializes; on failure the peer (and child) are closed.
pub(super) async fn open<T: Transport>(
    transport: T,
    child: Option<ChildProcess>,
    name: &str,
    options: &ClientOptions,
    handler: &Arc<ClientHandler>,
) -> Result<(Connection, Handshake), ClientError> {
    let peer = Peer::start(transport, handler.clone(), peer_options(name));
    let connection = Connection { peer, child };
    match negotiate(&connection.peer, name, options, handler).await {
        Ok(handshake) => Ok((connection, handshake)),
        Err(e) => {
            connection.shutdown().await;
            Err(e)
        }
    }
}

pub(super) async fn open_stdio(
    config: &StdioServerConfig,
    ring: &StderrRing,
    name: &str,
    options: &ClientOptions,
    handler: &Arc<ClientHandler>,
) -> Result<(Connection, Handshake), ClientError> {
    let (transport, child) = stdio::spawn(config, name, ring)?;
    let opened = open(transport, Some(child), name, options, handler).await;
    // A 2025-era server that hangs up on the `server/discover` probe is started again and
    // spoken to with `initialize` only.
    let probe_closed = matches!(
        &opened,
        Err(ClientError::Peer {
            error: PeerError::Closed(_),
            ..
        })
    );
    if probe_closed && options.negotiation == Negotiation::Auto {
        tracing::info!(server = %name, "the server closed on server/discover; starting it again for initialize");
        let legacy = options.clone().with_negotiation(Negotiation::Legacy);
        let (transport, child) = stdio::spawn(config, name, ring)?;
        let opened = open(transport, Some(child), name, &legacy, handler).await?;
        if let Some((cache, key)) = &options.era_cache {
            cache.set(key, opened.1.protocol_version);
        }
        return Ok(opened);
    }
    opened
}
