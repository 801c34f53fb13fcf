//! `subscriptions/listen` (2026-07-28): the server's changes fanned out to every open listen
//! request that asked for them. Each listener has a bounded queue; the listen request's own
//! task sends its notifications, tagged with its id, as ordinary notifications of that request
//! (on stdio they go to stdout, on HTTP onto the request's SSE response).

use std::collections::HashSet;
use std::sync::{Arc, Mutex, Weak};

use mcp_proto::jsonrpc::{self, RawJson};
use mcp_proto::peer::RequestContext;
use mcp_proto::schema::modern::meta_keys;
use mcp_proto::schema::{
    Meta, SubscriptionFilter, SubscriptionsAcknowledged, SubscriptionsAcknowledgedParams,
    SubscriptionsListenParams, SubscriptionsListenResult,
};
use mcp_proto::sync::lock;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::connection::ListKind;
use crate::error::ServerError;
use crate::router::{parse_params, Advertised};

/// At most this many listen requests open at once per server.
const MAX_LISTENERS: usize = 10_000;
/// At most this many resource URIs per listen request.
const MAX_URIS: usize = 10_000;
/// Changes queued for one listener before further ones are dropped (with a warning).
const QUEUE: usize = 256;

/// A change a listener may want to hear of.
#[derive(Debug, Clone)]
pub(crate) enum ListenEvent {
    /// A list changed.
    ListChanged(ListKind),
    /// A resource changed.
    ResourceUpdated(Arc<str>),
}

/// What one listen request accepted.
#[derive(Debug, Default)]
struct Wants {
    tools: bool,
    prompts: bool,
    resources: bool,
    uris: HashSet<String>,
}

impl Wants {
    fn event(&self, event: &ListenEvent) -> bool {
        match event {
            ListenEvent::ListChanged(ListKind::Tools) => self.tools,
            ListenEvent::ListChanged(ListKind::Prompts) => self.prompts,
            ListenEvent::ListChanged(ListKind::Resources) => self.resources,
            ListenEvent::ResourceUpdated(uri) => self.uris.contains(uri.as_ref()),
        }
    }
}

struct Listener {
    wants: Wants,
    queue: mpsc::Sender<ListenEvent>,
}

/// Every open listen request of a server.
#[derive(Default)]
pub(crate) struct Listeners {
    open: Mutex<Vec<Weak<Listener>>>,
}

impl Listeners {
    /// Tells every listener that wants it about `event`.
    pub(crate) fn publish(&self, event: ListenEvent) {
        let mut open = lock(&self.open);
        open.retain(|l| l.strong_count() > 0);
        for listener in open.iter().filter_map(Weak::upgrade) {
            if listener.wants.event(&event) && listener.queue.try_send(event.clone()).is_err() {
                tracing::warn!("a subscriptions/listen client is not keeping up; a change notification was dropped");
            }
        }
    }

    fn add(
        &self,
        wants: Wants,
    ) -> Result<(Arc<Listener>, mpsc::Receiver<ListenEvent>), ServerError> {
        let (queue, events) = mpsc::channel(QUEUE);
        let listener = Arc::new(Listener { wants, queue });
        let mut open = lock(&self.open);
        open.retain(|l| l.strong_count() > 0);
        if open.len() >= MAX_LISTENERS {
            return Err(ServerError::handler(format!(
                "too many open subscriptions/listen requests (at most {MAX_LISTENERS}); close one first"
            )));
        }
        open.push(Arc::downgrade(&listener));
        Ok((listener, events))
    }
}

/// The accepted part of `asked`: only what this server can send.
fn accept(
    asked: &SubscriptionFilter,
    offered: Advertised,
) -> Result<(SubscriptionFilter, Wants), ServerError> {
    let on = |flag: Option<bool>, offered: bool| flag == Some(true) && offered;
    let uris: Vec<String> = if offered.resources {
        asked.resource_subscriptions.clone().unwrap_or_default()
    } else {
        Vec::new()
    };
    if uris.len() > MAX_URIS {
        return Err(ServerError::InvalidParams(format!(
            "too many resourceSubscriptions: at most {MAX_URIS} per listen request"
        )));
    }
    let wants = Wants {
        tools: on(asked.tools_list_changed, offered.tools),
        prompts: on(asked.prompts_list_changed, offered.prompts),
        resources: on(asked.resources_list_changed, offered.resources),
        uris: uris.iter().cloned().collect(),
    };
    let flag = |on: bool| on.then_some(true);
    let accepted = SubscriptionFilter {
        tools_list_changed: flag(wants.tools),
        prompts_list_changed: flag(wants.prompts),
        resources_list_changed: flag(wants.resources),
        resource_subscriptions: (!uris.is_empty()).then_some(uris),
        ..SubscriptionFilter::default()
    };
    Ok((accepted, wants))
}

fn subscription_meta(rc: &RequestContext) -> Meta {
    let mut meta = Meta::new();
    let id = serde_json::to_value(rc.id()).unwrap_or(Value::Null);
    meta.insert(meta_keys::SUBSCRIPTION_ID.into(), id);
    meta
}

/// Serves one listen request until the client cancels it (or the server goes away).
pub(crate) async fn listen(
    listeners: &Listeners,
    params: Option<&RawJson>,
    offered: Advertised,
    rc: &RequestContext,
) -> Result<RawJson, ServerError> {
    let p: SubscriptionsListenParams = parse_params(params)?;
    let (accepted, wants) = accept(&p.notifications, offered)?;
    let (_listener, mut events) = listeners.add(wants)?;
    let meta = subscription_meta(rc);
    let ack = SubscriptionsAcknowledgedParams {
        notifications: accepted,
        meta: Some(meta.clone()),
        ..Default::default()
    };
    rc.notify::<SubscriptionsAcknowledged>(&ack).await?;
    loop {
        let event = tokio::select! {
            _ = rc.cancellation().cancelled() => break,
            event = events.recv() => match event {
                Some(event) => event,
                None => break,
            },
        };
        let (method, params) = match event {
            ListenEvent::ListChanged(kind) => (kind.method(), serde_json::json!({ "_meta": meta })),
            ListenEvent::ResourceUpdated(uri) => (
                "notifications/resources/updated",
                serde_json::json!({ "uri": uri.as_ref(), "_meta": meta }),
            ),
        };
        let params = jsonrpc::to_raw(&params).map_err(ServerError::handler)?;
        rc.notify_raw(method, Some(params)).await?;
    }
    let result = SubscriptionsListenResult {
        meta: Some(meta),
        ..Default::default()
    };
    jsonrpc::to_raw(&result).map_err(ServerError::handler)
}
