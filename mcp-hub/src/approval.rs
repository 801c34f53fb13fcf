//! Human in the loop: tools in a server's `autoApprove` list run at once; every other call is
//! put to an approval callback, which may deny it. Without a callback every call is allowed
//! (the caller is the human, as on the command line).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

/// A call waiting for approval.
#[derive(Debug, Clone)]
pub struct ApprovalRequest {
    /// The server that would run it.
    pub server: String,
    /// The tool's raw name on that server.
    pub tool: String,
    /// The name the model called it by.
    pub exposed: String,
    /// The arguments it would get.
    pub arguments: Value,
}

/// The approver's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run the call.
    Allow,
    /// Do not run it; the reason goes into the error result the model sees.
    Deny(String),
}

/// The future an approver returns.
pub type ApprovalFuture = Pin<Box<dyn Future<Output = Decision> + Send>>;

/// Decides on calls not in `autoApprove`.
pub type Approver = Arc<dyn Fn(ApprovalRequest) -> ApprovalFuture + Send + Sync>;

/// Wraps an async closure as an [`Approver`].
pub fn approver<F, Fut>(f: F) -> Approver
where
    F: Fn(ApprovalRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Decision> + Send + 'static,
{
    Arc::new(move |request| Box::pin(f(request)) as ApprovalFuture)
}

/// Whether `tool` is on the auto-approve list (exact raw name, or `*` for every tool).
pub fn is_auto_approved(auto_approve: &[String], tool: &str) -> bool {
    auto_approve.iter().any(|t| t == tool || t == "*")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_approve_matches_raw_names() {
        let list = vec!["get_weather".to_owned()];
        assert!(is_auto_approved(&list, "get_weather"));
        assert!(!is_auto_approved(&list, "get_forecast"));
        assert!(is_auto_approved(&["*".to_owned()], "anything"));
    }
}
