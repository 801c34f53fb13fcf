//! Typed params and results for every MCP request and notification, one module per area of
//! the specification. Each request type ties its method name, params type and result type
//! together ([`RequestType`]), so a typed call cannot pair the wrong params with the wrong result.
//! Fields we do not know survive a decode/encode round trip.

use serde::de::DeserializeOwned;
use serde::Serialize;

/// A request method: its name, its params type and its result type, tied together.
pub trait RequestType {
    /// The JSON-RPC method name, e.g. `tools/call`.
    const METHOD: &'static str;
    /// The params this method takes.
    type Params: Serialize + DeserializeOwned + Send + 'static;
    /// The result this method returns.
    type Result: Serialize + DeserializeOwned + Send + 'static;
}

/// A notification method: its name and its params type.
pub trait NotificationType {
    /// The JSON-RPC method name, e.g. `notifications/progress`.
    const METHOD: &'static str;
    /// The params this notification carries.
    type Params: Serialize + DeserializeOwned + Send + 'static;
}

/// A JSON object kept verbatim: `_meta` maps, extension fields, JSON Schemas, tool arguments.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// The `_meta` map the spec allows on params, results and most objects.
pub type Meta = JsonObject;

pub mod apps_extension;
pub mod completion;
pub mod content;
pub mod elicitation;
pub mod empty;
pub mod lifecycle;
pub mod logging;
pub mod modern;
mod number;
pub mod pagination;
pub mod pass_through;
pub mod progress;
pub mod prompts;
pub mod resources;
pub mod roots;
pub mod sampling;
pub mod tasks;
pub mod tasks_extension;
pub mod tools;

pub use apps_extension::{
    apps_extension_map, declares_apps_extension, tool_is_app_only, AppsSettings, ToolVisibility,
    UiResourceMeta, UiToolMeta, APPS_EXTENSION, APP_MIME_TYPE, UI_SCHEME,
};
pub use completion::*;
pub use content::*;
pub use elicitation::*;
pub use empty::*;
pub use lifecycle::*;
pub use logging::*;
pub use modern::{
    CacheScope, Discover, DiscoverResult, InputRequest, InputRequests, InputRequiredResult,
    InputResponse, InputResponses, ModernResult, ModernResultFields, NotificationMeta, RequestMeta,
    ResultMeta, ResultType, SubscriptionFilter, SubscriptionsAcknowledged,
    SubscriptionsAcknowledgedParams, SubscriptionsListen, SubscriptionsListenParams,
    SubscriptionsListenResult,
};
pub use pagination::*;
pub use pass_through::PassThroughResult;
pub use progress::*;
pub use prompts::*;
pub use resources::*;
pub use roots::*;
pub use sampling::*;
pub use tasks::*;
pub use tasks_extension::*;
pub use tools::*;
