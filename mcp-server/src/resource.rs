//! Resources: static resources read by URI, dynamic lists from a provider, and resource
//! templates whose URIs are matched back to their variables.

use std::collections::BTreeMap;
use std::sync::Arc;

use mcp_proto::jsonrpc::RawJson;
use mcp_proto::schema::{
    self, Annotations, BlobResourceContents, Icon, JsonObject, ReadResourceResult,
    ResourceContents, TextResourceContents,
};

use crate::error::{HandlerError, ServerError};
use crate::handler::{erase, Call, Erased, FromCall, Handler, Rejection};
use crate::tool::BoxFuture;
use crate::uri_template::{UriTemplate, UriTemplateError};

/// A resource's definition, built fluently.
#[derive(Clone, Debug, PartialEq)]
pub struct Resource(pub(crate) schema::Resource);

impl Resource {
    /// A resource with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource(schema::Resource::new(uri, name))
    }
    /// A human-readable title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.0.title = Some(title.into());
        self
    }
    /// A description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.0.description = Some(description.into());
        self
    }
    /// The MIME type of its contents.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.0.mime_type = Some(mime_type.into());
        self
    }
    /// Its size in bytes, when known.
    pub fn size(mut self, size: u64) -> Self {
        self.0.size = Some(size);
        self
    }
    /// Icons a client may show.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.0.icons = Some(icons);
        self
    }
    /// Audience, priority and last-modified hints.
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.0.annotations = Some(annotations);
        self
    }
    /// The resource's `_meta`.
    pub fn meta(mut self, meta: JsonObject) -> Self {
        self.0.meta = Some(meta);
        self
    }
    /// The wire definition.
    pub fn definition(&self) -> &schema::Resource {
        &self.0
    }
}

impl From<schema::Resource> for Resource {
    fn from(r: schema::Resource) -> Self {
        Resource(r)
    }
}

/// A resource template's definition, built fluently; its URI template is checked at registration.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceTemplate(pub(crate) schema::ResourceTemplate);

impl ResourceTemplate {
    /// A template such as `file:///logs/{date}` with a name.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceTemplate(schema::ResourceTemplate::new(uri_template, name))
    }
    /// A human-readable title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.0.title = Some(title.into());
        self
    }
    /// A description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.0.description = Some(description.into());
        self
    }
    /// The MIME type of the resources it yields.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.0.mime_type = Some(mime_type.into());
        self
    }
    /// Icons a client may show.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.0.icons = Some(icons);
        self
    }
    /// The template's `_meta`.
    pub fn meta(mut self, meta: JsonObject) -> Self {
        self.0.meta = Some(meta);
        self
    }
    /// The wire definition.
    pub fn definition(&self) -> &schema::ResourceTemplate {
        &self.0
    }
}

impl From<schema::ResourceTemplate> for ResourceTemplate {
    fn from(t: schema::ResourceTemplate) -> Self {
        ResourceTemplate(t)
    }
}

/// A read request: the URI and, for a template, the variables matched from it.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceRequest {
    /// The URI the client asked for.
    pub uri: String,
    /// The template variables matched from the URI (empty for static resources).
    pub vars: BTreeMap<String, String>,
    /// The MIME type the resource or template declared.
    pub mime_type: Option<String>,
}

impl ResourceRequest {
    /// One template variable, if matched.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }
}

/// Anything a resource read handler may return.
pub trait IntoReadResult {
    /// Converts the handler's return value into the result of `resources/read`.
    fn into_read_result(self, request: &ResourceRequest)
        -> Result<ReadResourceResult, ServerError>;
}

impl IntoReadResult for ReadResourceResult {
    fn into_read_result(self, _: &ResourceRequest) -> Result<ReadResourceResult, ServerError> {
        Ok(self)
    }
}

impl IntoReadResult for Vec<ResourceContents> {
    fn into_read_result(self, _: &ResourceRequest) -> Result<ReadResourceResult, ServerError> {
        Ok(ReadResourceResult::new(self))
    }
}

impl IntoReadResult for ResourceContents {
    fn into_read_result(self, _: &ResourceRequest) -> Result<ReadResourceResult, ServerError> {
        Ok(ReadResourceResult::new(vec![self]))
    }
}

impl IntoReadResult for TextResourceContents {
    fn into_read_result(self, _: &ResourceRequest) -> Result<ReadResourceResult, ServerError> {
        Ok(ReadResourceResult::new(vec![self.into()]))
    }
}

impl IntoReadResult for BlobResourceContents {
    fn into_read_result(self, _: &ResourceRequest) -> Result<ReadResourceResult, ServerError> {
        Ok(ReadResourceResult::new(vec![self.into()]))
    }
}

impl IntoReadResult for String {
    fn into_read_result(
        self,
        request: &ResourceRequest,
    ) -> Result<ReadResourceResult, ServerError> {
        let mut contents = TextResourceContents::new(request.uri.clone(), self);
        contents.mime_type = request.mime_type.clone();
        Ok(ReadResourceResult::new(vec![contents.into()]))
    }
}

impl IntoReadResult for &'static str {
    fn into_read_result(
        self,
        request: &ResourceRequest,
    ) -> Result<ReadResourceResult, ServerError> {
        self.to_owned().into_read_result(request)
    }
}

/// `Err` is a [`HandlerError`]: a JSON-RPC error (a returned [`ServerError`] keeps its code,
/// e.g. `ResourceNotFound`; any other error is -32603).
impl<T: IntoReadResult, E: Into<HandlerError>> IntoReadResult for Result<T, E> {
    fn into_read_result(
        self,
        request: &ResourceRequest,
    ) -> Result<ReadResourceResult, ServerError> {
        self.map_err(|e| e.into().into_server_error())?
            .into_read_result(request)
    }
}

/// The request a read handler serves, as a parameter of the handler.
impl FromCall<ResourceRequest> for ResourceRequest {
    fn from_call(call: &Call<'_, ResourceRequest>) -> Result<Self, Rejection> {
        Ok(call.input.clone())
    }
}

/// A type-erased read handler.
pub(crate) type ReadFn = Erased<ResourceRequest, Result<ReadResourceResult, ServerError>>;

/// Erases a read handler; its result takes the declared MIME type.
pub(crate) fn read_fn<H, T>(handler: H) -> ReadFn
where
    H: Handler<T, ResourceRequest>,
    H::Output: IntoReadResult,
    T: 'static,
{
    Arc::new(move |call: &Call<'_, ResourceRequest>| {
        let future = handler.call(call)?;
        let request = call.input.clone();
        Ok(Box::pin(async move { future.await.into_read_result(&request) }) as BoxFuture<_>)
    })
}

/// A type-erased list function of a dynamic provider.
pub(crate) type ListFn = Erased<(), Result<Vec<schema::Resource>, ServerError>>;

/// Erases a provider's list function.
pub(crate) fn list_fn<H, T, E>(handler: H) -> ListFn
where
    H: Handler<T, (), Output = Result<Vec<schema::Resource>, E>>,
    E: Into<HandlerError> + Send + 'static,
    T: 'static,
{
    erase(handler, listed::<E>)
}

/// A provider's list, its error made the JSON-RPC error to answer with.
fn listed<E: Into<HandlerError>>(
    list: Result<Vec<schema::Resource>, E>,
) -> Result<Vec<schema::Resource>, ServerError> {
    list.map_err(|e| e.into().into_server_error())
}

/// A registered static resource.
pub(crate) struct ResourceEntry {
    pub(crate) resource: schema::Resource,
    pub(crate) listing: RawJson,
    pub(crate) read: ReadFn,
    pub(crate) seq: u64,
}

/// A registered template.
pub(crate) struct TemplateEntry {
    pub(crate) template: schema::ResourceTemplate,
    pub(crate) parsed: UriTemplate,
    pub(crate) listing: RawJson,
    pub(crate) read: ReadFn,
    pub(crate) seq: u64,
}

impl TemplateEntry {
    pub(crate) fn parse(
        template: &schema::ResourceTemplate,
    ) -> Result<UriTemplate, UriTemplateError> {
        UriTemplate::parse(&template.uri_template)
    }
}

/// A registered dynamic provider: lists resources on demand and reads them.
pub(crate) struct ProviderEntry {
    pub(crate) list: ListFn,
    pub(crate) read: ReadFn,
}
