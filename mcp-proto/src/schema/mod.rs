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
