//! Handlers are plain async functions. Each parameter is an extractor: the request's input
//! (a tool's arguments, a prompt's arguments, a resource or completion request), [`State`],
//! [`Context`] or [`Meta`], in any order, none required. [`Handler`] is implemented for every
//! such function by a macro below, so users write none of it.
//!
//! ```
//! # use mcp_server::{Context, Meta, State};
//! # #[derive(Clone)] struct Db;
//! # #[derive(serde::Deserialize, schemars::JsonSchema)] struct Query { q: String }
//! async fn search(State(db): State<Db>, args: Query, ctx: Context) -> String { args.q }
//! async fn ping() -> &'static str { "pong" }
//! async fn traced(Meta(meta): Meta, args: Query) -> String { format!("{meta:?}") }
//! ```

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use mcp_proto::jsonrpc;
use mcp_proto::schema::JsonObject;
use serde::de::DeserializeOwned;

use crate::context::Context;
use crate::prompt::PromptArguments;
use crate::tool::BoxFuture;

/// Shared state of type `S`, handed to every handler that asks for it: what
/// [`ServerBuilder::state`](crate::ServerBuilder::state) gave the server, whenever the handler
/// was registered (before or after that call, or at run time). Cloned per call: keep it cheap
/// to clone (an `Arc`, a pool handle). A handler that asks for a type the server was not given
/// is refused at registration.
#[derive(Clone, Copy, Debug, Default)]
pub struct State<S>(pub S);

/// The request's `_meta` object (empty when the request had none): progress tokens, trace
/// context and vendor keys.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Meta(pub JsonObject);

/// Where a call's `_meta` comes from: still raw in the request, or already parsed.
#[derive(Clone, Copy, Debug)]
pub(crate) enum MetaSource<'a> {
    /// No `_meta` in the request.
    Absent,
    /// The raw JSON text of `_meta`, parsed only if a handler asks for it.
    Raw(&'a str),
    /// The raw JSON text of params that have a `_meta` (an object), read from them only if a
    /// handler asks for it.
    InParams(&'a str),
    /// `_meta` as the params parser already read it.
    Parsed(&'a JsonObject),
}

/// What one handler call is made from: the request's input, its `_meta` and its context.
pub struct Call<'a, I: ?Sized> {
    pub(crate) input: &'a I,
    pub(crate) meta: MetaSource<'a>,
    pub(crate) ctx: &'a Context,
}

impl<'a, I: ?Sized> Call<'a, I> {
    pub(crate) fn new(input: &'a I, meta: MetaSource<'a>, ctx: &'a Context) -> Self {
        Call { input, meta, ctx }
    }

    /// The request's input (a tool's raw arguments, a prompt's argument map, ...).
    pub fn input(&self) -> &I {
        self.input
    }

    /// The request's context.
    pub fn context(&self) -> &Context {
        self.ctx
    }
}

/// Why an extractor could not produce its value: a message for the client, e.g. serde's
/// complaint about the arguments.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Rejection(pub String);

#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a handler parameter here",
    note = "a tool handler's parameters are its arguments (a type that is `Deserialize` and, with the default `schemars` feature, `JsonSchema`), `State<S>` for state given to `ServerBuilder::state`, `Context` and `Meta`"
)]
/// A value a handler can take as a parameter, made from the call (`I` is the kind of input:
/// a tool's raw arguments, a prompt's argument map, a resource or completion request).
pub trait FromCall<I: ?Sized>: Sized {
    /// Makes the value, or says why the request does not allow it.
    fn from_call(call: &Call<'_, I>) -> Result<Self, Rejection>;

    /// The JSON Schema of the tool arguments this extractor reads, if it reads them and its
    /// type describes itself; refused when that type can never be a tool's arguments (its
    /// schema is not an object).
    fn input_schema() -> Result<Option<JsonObject>, Rejection> {
        Ok(None)
    }

    /// The type of shared state this extractor reads, if it reads any ([`State`]).
    fn state_type() -> Option<StateType> {
        None
    }
}

/// A type of shared state a handler reads: what registration checks the server was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateType {
    id: TypeId,
    name: &'static str,
}

impl StateType {
    /// The state type `S`.
    pub fn of<S: 'static>() -> Self {
        StateType {
            id: TypeId::of::<S>(),
            name: std::any::type_name::<S>(),
        }
    }

    /// The type's id, the key of the server's state.
    pub(crate) fn id(&self) -> TypeId {
        self.id
    }

    /// The type's name, for messages.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// The shared state a server was given, by type ([`ServerBuilder::state`](crate::ServerBuilder::state)).
#[derive(Clone, Default)]
pub(crate) struct StateMap(HashMap<TypeId, Arc<dyn Any + Send + Sync>>);

impl StateMap {
    /// Adds `value`, replacing a value of the same type.
    pub(crate) fn insert<S: Send + Sync + 'static>(&mut self, value: S) {
        self.0.insert(TypeId::of::<S>(), Arc::new(value));
    }

    /// A clone of the value of type `S`, if there is one.
    pub(crate) fn get<S: Clone + 'static>(&self) -> Option<S> {
        self.0.get(&TypeId::of::<S>())?.downcast_ref::<S>().cloned()
    }

    /// Whether there is a value of this type.
    pub(crate) fn has(&self, ty: StateType) -> bool {
        self.0.contains_key(&ty.id())
    }
}

impl std::fmt::Debug for StateMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StateMap({} values)", self.0.len())
    }
}

impl<S: Clone + Send + Sync + 'static, I: ?Sized> FromCall<I> for State<S> {
    fn from_call(call: &Call<'_, I>) -> Result<Self, Rejection> {
        call.ctx.server().state::<S>().map(State).ok_or_else(|| {
            Rejection(format!(
                "the server has no state of type `{}`: give it one with ServerBuilder::state",
                std::any::type_name::<S>()
            ))
        })
    }

    fn state_type() -> Option<StateType> {
        Some(StateType::of::<S>())
    }
}

impl<I: ?Sized> FromCall<I> for Context {
    fn from_call(call: &Call<'_, I>) -> Result<Self, Rejection> {
        Ok(call.ctx.clone())
    }
}

impl<I: ?Sized> FromCall<I> for Meta {
    fn from_call(call: &Call<'_, I>) -> Result<Self, Rejection> {
        match call.meta {
            MetaSource::Absent => Ok(Meta::default()),
            MetaSource::Parsed(meta) => Ok(Meta(meta.clone())),
            MetaSource::InParams(params) => {
                #[derive(serde::Deserialize)]
                struct Params {
                    #[serde(rename = "_meta", default)]
                    meta: JsonObject,
                }
                jsonrpc::from_object::<Params>(params)
                    .map(|p| Meta(p.meta))
                    .map_err(|e| Rejection(format!("invalid _meta: {e}")))
            }
            MetaSource::Raw(raw) => jsonrpc::from_object(raw)
                .map(Meta)
                .map_err(|e| Rejection(format!("invalid _meta: {e}"))),
        }
    }
}

/// A type a tool's arguments deserialize into. With the `schemars` feature (on by default) it
/// must also describe itself, so the tool's input schema is derived from it.
#[cfg(feature = "schemars")]
pub trait ToolArguments: DeserializeOwned + schemars::JsonSchema {}
#[cfg(feature = "schemars")]
impl<T: DeserializeOwned + schemars::JsonSchema> ToolArguments for T {}

/// A type a tool's arguments deserialize into (the `schemars` feature is off: schemas are
/// written by hand).
#[cfg(not(feature = "schemars"))]
pub trait ToolArguments: DeserializeOwned {}
#[cfg(not(feature = "schemars"))]
impl<T: DeserializeOwned> ToolArguments for T {}

/// A tool's arguments: parsed once, straight from the JSON text of the request's `arguments`
/// (a tool call's input).
impl<T: ToolArguments> FromCall<str> for T {
    fn from_call(call: &Call<'_, str>) -> Result<Self, Rejection> {
        jsonrpc::from_object(call.input).map_err(|e| Rejection(e.to_string()))
    }

    fn input_schema() -> Result<Option<JsonObject>, Rejection> {
        #[cfg(feature = "schemars")]
        {
            crate::derived_schema::arguments_schema::<T>().map_err(|kind| {
                Rejection(format!(
                    "its arguments type `{}` is {kind} in JSON, not an object: a tool's arguments are always a JSON object, so take a struct with named fields (or no arguments parameter)",
                    std::any::type_name::<T>()
                ))
            })
        }
        #[cfg(not(feature = "schemars"))]
        {
            Ok(None)
        }
    }
}

/// A prompt's arguments: the string map itself, or any type deserializable from it.
impl<T: DeserializeOwned> FromCall<PromptArguments> for T {
    fn from_call(call: &Call<'_, PromptArguments>) -> Result<Self, Rejection> {
        use serde::de::value::{Error, MapDeserializer};
        let entries = call.input.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        T::deserialize(MapDeserializer::<_, Error>::new(entries))
            .map_err(|e| Rejection(e.to_string()))
    }
}

#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a handler",
    note = "a handler is an async fn or closure whose parameters are all extractors (arguments deriving `Deserialize` + `JsonSchema`, `State<S>`, `Context`, `Meta`, in any order) and whose result the server can answer with; annotate closure parameter types"
)]
/// A handler: an async function whose parameters are all extractors ([`FromCall`]) for the
/// input kind `I`. Implemented for functions of up to eight parameters.
pub trait Handler<T, I: ?Sized>: Send + Sync + 'static {
    /// What the function's future yields.
    type Output: Send + 'static;
    /// The function's future.
    type Future: Future<Output = Self::Output> + Send + 'static;

    /// Extracts every parameter and starts the function.
    fn call(&self, call: &Call<'_, I>) -> Result<Self::Future, Rejection>;

    /// The input schema of the first parameter that has one (a tool's arguments), refused when
    /// a parameter's type can never be a tool's arguments.
    fn input_schema() -> Result<Option<JsonObject>, Rejection>;

    /// The types of shared state its parameters read.
    fn state_types() -> Vec<StateType>;
}

macro_rules! impl_handler {
    ($($param:ident),*) => {
        impl<F, Fut, I: ?Sized, $($param,)*> Handler<($($param,)*), I> for F
        where
            F: Fn($($param),*) -> Fut + Send + Sync + 'static,
            Fut: Future + Send + 'static,
            Fut::Output: Send + 'static,
            $($param: FromCall<I>,)*
        {
            type Output = Fut::Output;
            type Future = Fut;

            #[allow(non_snake_case, unused_variables)]
            fn call(&self, call: &Call<'_, I>) -> Result<Fut, Rejection> {
                $(let $param = $param::from_call(call)?;)*
                Ok(self($($param),*))
            }

            fn input_schema() -> Result<Option<JsonObject>, Rejection> {
                let schema = None;
                $(let schema = match schema {
                    Some(schema) => Some(schema),
                    None => $param::input_schema()?,
                };)*
                Ok(schema)
            }

            fn state_types() -> Vec<StateType> {
                #[allow(unused_mut)]
                let mut types = Vec::new();
                $(types.extend($param::state_type());)*
                types
            }
        }
    };
}

impl_handler!();
impl_handler!(A1);
impl_handler!(A1, A2);
impl_handler!(A1, A2, A3);
impl_handler!(A1, A2, A3, A4);
impl_handler!(A1, A2, A3, A4, A5);
impl_handler!(A1, A2, A3, A4, A5, A6);
impl_handler!(A1, A2, A3, A4, A5, A6, A7);
impl_handler!(A1, A2, A3, A4, A5, A6, A7, A8);

/// A handler with its parameter types and state erased: extracts, then runs to `O`.
pub(crate) type Erased<I, O> =
    Arc<dyn Fn(&Call<'_, I>) -> Result<BoxFuture<O>, Rejection> + Send + Sync>;

/// The largest handler future [`erase`] keeps inline in its own box, in bytes.
const INLINE_HANDLER_FUTURE: usize = 256;

/// Erases `handler`, finishing its output with `finish`.
pub(crate) fn erase<H, T, I, O>(handler: H, finish: fn(H::Output) -> O) -> Erased<I, O>
where
    H: Handler<T, I>,
    T: 'static,
    I: ?Sized + 'static,
    O: 'static,
{
    Arc::new(move |call: &Call<'_, I>| {
        let future = handler.call(call)?;
        // Awaited inside the outer block by value, the handler's future is held there twice
        // (captured and awaited). A large one gets a box of its own instead; a small one (a
        // handler that boxes its own future) is not worth a second allocation.
        if std::mem::size_of_val(&future) <= INLINE_HANDLER_FUTURE {
            Ok(finished(future, finish))
        } else {
            Ok(finished(Box::pin(future), finish))
        }
    })
}

/// `future` boxed, its output turned into `O` by `finish`.
fn finished<F, O>(future: F, finish: fn(F::Output) -> O) -> BoxFuture<O>
where
    F: Future + Send + 'static,
    O: 'static,
{
    Box::pin(async move { finish(future.await) })
}
