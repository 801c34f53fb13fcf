//! `subscriptions/listen` (2026-07-28) behind the notification API of the 2025 era: the client
//! keeps one long-lived listen request open for the list changes the server advertises and the
//! resources [`Client::subscribe`](crate::Client::subscribe) asked for; the notifications it
//! carries reach [`Client::notifications`](crate::Client::notifications) as the same
//! [`ServerEvent`](crate::ServerEvent)s. Changing the subscriptions ends the open request
//! (`notifications/cancelled` on stdio, closing the stream over HTTP) and opens a new one. A
//! listen the server ends is opened again; failures back off and give up after
//! [`MAX_LISTEN_FAILURES`] in a row.

use std::collections::BTreeSet;
use std::time::Duration;

use mcp_proto::schema::{ServerCapabilities, SubscriptionFilter};
use tokio_util::sync::CancellationToken;

/// How many listen failures in a row end the listening.
pub(crate) const MAX_LISTEN_FAILURES: u32 = 8;

/// What the client listens for, and the token that ends the open listen request.
#[derive(Default)]
pub(crate) struct ListenState {
    /// Resources to hear `notifications/resources/updated` about.
    pub(crate) uris: BTreeSet<String>,
    /// Ends the running listen task, if one runs.
    pub(crate) running: Option<CancellationToken>,
}

impl ListenState {
    /// The filter to listen with: the list changes `capabilities` advertise, and the subscribed
    /// resources. `None` when there is nothing to listen for.
    pub(crate) fn filter(&self, capabilities: &ServerCapabilities) -> Option<SubscriptionFilter> {
        let tools = capabilities
            .tools
            .as_ref()
            .is_some_and(|t| t.list_changed == Some(true));
        let prompts = capabilities
            .prompts
            .as_ref()
            .is_some_and(|p| p.list_changed == Some(true));
        let resources = capabilities
            .resources
            .as_ref()
            .is_some_and(|r| r.list_changed == Some(true));
        if !tools && !prompts && !resources && self.uris.is_empty() {
            return None;
        }
        Some(SubscriptionFilter {
            tools_list_changed: tools.then_some(true),
            prompts_list_changed: prompts.then_some(true),
            resources_list_changed: resources.then_some(true),
            resource_subscriptions: (!self.uris.is_empty())
                .then(|| self.uris.iter().cloned().collect()),
            ..Default::default()
        })
    }
}

/// The wait before listen attempt `failures` + 1: 250 ms doubling, at most 30 s.
pub(crate) fn backoff(failures: u32) -> Duration {
    Duration::from_millis(250)
        .saturating_mul(1 << failures.min(7))
        .min(Duration::from_secs(30))
}

#[cfg(test)]
mod tests {
    use mcp_proto::schema::ToolsCapability;

    use super::*;

    #[test]
    fn the_filter_follows_capabilities_and_subscriptions() {
        let mut state = ListenState::default();
        assert!(state.filter(&ServerCapabilities::default()).is_none());
        let caps = ServerCapabilities {
            tools: Some(ToolsCapability {
                list_changed: Some(true),
                ..Default::default()
            }),
            ..Default::default()
        };
        let filter = state.filter(&caps).expect("tools");
        assert_eq!(filter.tools_list_changed, Some(true));
        assert_eq!(filter.prompts_list_changed, None);
        assert_eq!(filter.resource_subscriptions, None);
        state.uris.insert("file:///a".into());
        let filter = state.filter(&ServerCapabilities::default()).expect("uris");
        assert_eq!(
            filter.resource_subscriptions,
            Some(vec!["file:///a".into()])
        );
        assert_eq!(backoff(0), Duration::from_millis(250));
        assert_eq!(backoff(20), Duration::from_secs(30));
    }
}
