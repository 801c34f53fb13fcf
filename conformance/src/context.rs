//! What a case works with: the target (to open fresh sessions), the shared initialized session,
//! the run's settings and journal, and answers cached across cases (tool lists, version probes).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use mcp_proto::ProtocolVersion;
use serde_json::{json, Value};

use crate::case::Outcome;
use crate::driver::{Connector, Journal, Reply, Session};
use crate::error::Error;

/// The most pages the runner follows in one paginated list.
pub const MAX_PAGES: usize = 100;

/// The least a request waits when the bound comes from the measured round trip.
pub const TIMEOUT_FLOOR: Duration = Duration::from_secs(3);
/// The most a request waits when the bound comes from the measured round trip.
pub const TIMEOUT_CEILING: Duration = Duration::from_secs(30);
/// How many round trips a request may take before it counts as unanswered.
pub const TIMEOUT_ROUND_TRIPS: u32 = 100;
/// The least a request that does work (a tool call, a read, a prompt, a completion, a task, a
/// list) waits when the bound is measured: a ping's round trip does not predict the work.
pub const WORK_FLOOR: Duration = Duration::from_secs(10);
/// The shortest listening window where nothing should arrive.
pub const QUIET_FLOOR: Duration = Duration::from_millis(600);
/// The longest listening window where nothing should arrive.
pub const QUIET_CEILING: Duration = Duration::from_secs(3);
/// How many round trips a listening window lasts.
pub const QUIET_ROUND_TRIPS: u32 = 20;

/// The bounds derived from one measured round trip: a request waits
/// [`TIMEOUT_ROUND_TRIPS`] round trips (within [`TIMEOUT_FLOOR`]..[`TIMEOUT_CEILING`]); a
/// window where nothing should arrive lasts [`QUIET_ROUND_TRIPS`] round trips (within
/// [`QUIET_FLOOR`]..[`QUIET_CEILING`]). A fixed bound is either too short for a slow server
/// (false failures) or makes a run against a silent one take minutes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// The measured round trip (the median of a few pings).
    pub round_trip: Duration,
    /// The bound on one request's wait.
    pub timeout: Duration,
    /// How long to listen where nothing should arrive.
    pub quiet: Duration,
}

impl Timing {
    /// The bounds for a measured `round_trip`.
    pub fn from_round_trip(round_trip: Duration) -> Self {
        Timing {
            round_trip,
            timeout: (round_trip * TIMEOUT_ROUND_TRIPS).clamp(TIMEOUT_FLOOR, TIMEOUT_CEILING),
            quiet: (round_trip * QUIET_ROUND_TRIPS).clamp(QUIET_FLOOR, QUIET_CEILING),
        }
    }
}

/// Settings of one run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The bound on one request's wait; `None` derives it from the measured round trip
    /// ([`Timing`]).
    pub timeout: Option<Duration>,
    /// The bound on one whole case.
    pub case_timeout: Duration,
    /// The bound on a fresh server's first reply (its start-up included).
    pub startup_timeout: Duration,
    /// The tool used as the slow fixture (cancellation, concurrency); auto-detected when `None`.
    pub slow_tool: Option<String>,
    /// The tool used as the progress fixture; the slow tool when `None`.
    pub progress_tool: Option<String>,
    /// Sample arguments for tools, by name (`--call NAME=JSON`), used where a case must call a
    /// tool with valid arguments.
    pub tool_args: BTreeMap<String, Value>,
    /// The tool used as the 2026-07-28 input-request (MRTR) fixture; auto-detected when `None`.
    pub input_tool: Option<String>,
    /// The arguments the input-request fixture is called with (else `--call`, else its schema).
    pub input_args: Option<Value>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            timeout: None,
            case_timeout: Duration::from_secs(60),
            startup_timeout: Duration::from_secs(30),
            slow_tool: None,
            progress_tool: None,
            tool_args: BTreeMap::new(),
            input_tool: None,
            input_args: None,
        }
    }
}

/// A paginated list read to its end.
#[derive(Clone, Debug, Default)]
pub struct Listing {
    /// Every item of every page, in order.
    pub items: Vec<Value>,
    /// How many pages were read.
    pub pages: usize,
    /// What went wrong on the way (error replies, wrong shapes, cursor loops).
    pub problems: Vec<String>,
}

/// A tool that takes a while and can be told how long: the cancellation, progress and
/// concurrency fixture.
#[derive(Clone, Debug)]
pub struct SlowTool {
    /// The tool's name.
    pub name: String,
    /// The argument that sets the duration, if any.
    duration_arg: Option<(String, f64)>,
    /// The argument that sets the number of steps, if any.
    steps_arg: Option<String>,
    /// Its other arguments: the `--call` sample, else a value for each other required
    /// argument taken from the schema (`default`, `const`, `enum`, `examples`).
    other_args: serde_json::Map<String, Value>,
}

impl SlowTool {
    /// Arguments asking for about `seconds` of work in `steps` steps.
    pub fn args(&self, seconds: f64, steps: u32) -> Value {
        let mut args = self.other_args.clone();
        if let Some((name, per_second)) = &self.duration_arg {
            let amount = seconds * per_second;
            let value = if amount.fract() == 0.0 {
                json!(amount as i64)
            } else {
                json!(amount)
            };
            args.insert(name.clone(), value);
        }
        if let Some(name) = &self.steps_arg {
            args.insert(name.clone(), json!(steps));
        }
        Value::Object(args)
    }
}

/// Values for the required arguments of `tool` other than its duration and steps, taken from
/// their schemas; `None` when one has no safe hint.
fn other_required_args(
    tool: &Value,
    duration_arg: Option<&(String, f64)>,
    steps_arg: Option<&str>,
) -> Option<serde_json::Map<String, Value>> {
    let props = tool
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object);
    let required = tool
        .pointer("/inputSchema/required")
        .and_then(Value::as_array);
    let mut args = serde_json::Map::new();
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        if duration_arg.is_some_and(|(d, _)| d == name) || steps_arg == Some(name) {
            continue;
        }
        let schema = props.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
        args.insert(name.to_owned(), crate::cases::sample_value(schema)?);
    }
    Some(args)
}

/// The world of one case.
pub struct Ctx {
    connector: Arc<dyn Connector>,
    /// The run's settings.
    pub config: Arc<Config>,
    /// The run's journal.
    pub journal: Arc<Journal>,
    shared: Option<Session>,
    lists: HashMap<&'static str, Listing>,
    version_answers: Option<BTreeMap<String, Result<String, String>>>,
    /// Tool calls made with valid sample arguments, cached for the cases that inspect them.
    pub sample_calls: Option<Vec<SampleCall>>,
    /// The era probe: the `server/discover` result when the target speaks 2026-07-28.
    modern: Option<Option<Value>>,
    /// The case now running (requests are attributed to it).
    case: &'static str,
    /// The bounds measured from the round trip, once measured.
    timing: Option<Timing>,
    /// A connection a 2026-07-28 case finished with, for the next one (see [`Ctx::release`]).
    modern_pool: Option<Session>,
    /// A stdio server started ahead of the next [`Ctx::fresh`], so its start-up overlaps the
    /// case before (seconds for an interpreted server).
    spare: Option<Session>,
}

/// One tool called with sample arguments, and what came back.
#[derive(Clone, Debug)]
pub struct SampleCall {
    /// The tool as listed.
    pub tool: Value,
    /// The arguments sent.
    pub arguments: Value,
    /// The reply.
    pub reply: Reply,
}

impl Ctx {
    /// A context for `connector`.
    pub fn new(connector: Arc<dyn Connector>, config: Arc<Config>, journal: Arc<Journal>) -> Self {
        Ctx {
            connector,
            config,
            journal,
            shared: None,
            lists: HashMap::new(),
            version_answers: None,
            sample_calls: None,
            modern: None,
            case: crate::driver::session::SETUP,
            timing: None,
            modern_pool: None,
            spare: None,
        }
    }

    /// A connection for a 2026-07-28 case: the one the previous such case released, else a
    /// new one. Under 2026-07-28 "Servers MUST NOT rely on prior requests over the same
    /// connection to establish context" (basic/index#statelessness), so reuse is no shared
    /// state; it spares a stdio server's start-up per case. The connection's unclaimed
    /// replies and notifications are set aside first.
    pub async fn reuse_or_fresh(&mut self) -> Result<Session, Error> {
        if let Some(mut session) = self.modern_pool.take() {
            session.set_case(self.case).await;
            if !session.is_closed() {
                return Ok(session);
            }
            session.close().await;
        }
        self.fresh().await
    }

    /// Hands back a connection [`Ctx::reuse_or_fresh`] gave out, once its case has nothing
    /// in flight on it (no open stream, no pending request).
    pub async fn release(&mut self, session: Session) {
        if let Some(old) = self.modern_pool.replace(session) {
            old.close().await;
        }
    }

    /// Starts case `id`: the shared session's unclaimed replies and notifications are set
    /// aside (see [`Session::set_case`]) and a shared session whose server went away is
    /// replaced, so the case starts from a state it controls.
    pub async fn begin_case(&mut self, id: &'static str) {
        self.case = id;
        if let Some(session) = &mut self.shared {
            session.set_case(id).await;
        }
        if self.shared.as_ref().is_some_and(Session::is_closed) {
            self.reset_shared().await;
        }
    }

    /// Whether the target answers `initialize` (a legacy or dual-era server); probed once, on
    /// the shared session.
    pub async fn speaks_legacy(&mut self) -> bool {
        self.shared().await.is_ok()
    }

    /// The bounds measured from the round trip, if measured yet.
    pub fn timing(&self) -> Option<Timing> {
        self.timing
    }

    /// The bound on one request: `--timeout` when given, else from the measured round trip,
    /// else (not measured yet) the ceiling.
    pub fn request_timeout(&self) -> Duration {
        self.config
            .timeout
            .or(self.timing.map(|t| t.timeout))
            .unwrap_or(TIMEOUT_CEILING)
    }

    fn quiet(&self) -> Duration {
        self.timing.map_or(QUIET_FLOOR, |t| t.quiet)
    }

    /// Sets a new session's bounds and the case its requests belong to.
    async fn prepare(&mut self, session: &mut Session) {
        session.timeout = self.request_timeout();
        session.work_timeout = self.config.timeout.unwrap_or(WORK_FLOOR);
        session.startup_timeout = self.config.startup_timeout;
        session.quiet = self.quiet();
        session.set_case(self.case).await;
    }

    /// Measures the round trip on `session` (the median of five `method` requests) once per
    /// run; a request that gets no reply at all leaves the bounds unmeasured.
    async fn measure(&mut self, session: &mut Session, method: &str, params: Option<Value>) {
        if self.timing.is_some() {
            return;
        }
        let mut samples = Vec::new();
        for _ in 0..5 {
            let started = tokio::time::Instant::now();
            match session
                .request_within(method, params.clone(), TIMEOUT_CEILING)
                .await
            {
                Ok(_) => samples.push(started.elapsed()),
                Err(_) => return,
            }
        }
        samples.sort();
        let timing = Timing::from_round_trip(samples[samples.len() / 2]);
        self.timing = Some(timing);
        session.timeout = self.request_timeout();
        session.work_timeout = self.config.timeout.unwrap_or(WORK_FLOOR);
        session.quiet = timing.quiet;
    }

    /// The era probe, made once: a modern `server/discover` (2026-07-28 in `_meta`, no
    /// handshake) on a fresh connection. `Some(result)` when it answers with a result that lists
    /// 2026-07-28; `None` for anything else (an error such as -32601 or "not initialized", or
    /// silence), which means the target does not speak 2026-07-28.
    pub async fn modern(&mut self) -> Result<Option<Value>, Error> {
        if let Some(known) = &self.modern {
            return Ok(known.clone());
        }
        let mut session = self.fresh().await?;
        let params =
            crate::cases::modern::with_meta(json!({}), crate::cases::modern::meta(json!({})));
        let reply = session
            .first_request("server/discover", Some(params.clone()))
            .await;
        if matches!(reply, Ok(Reply::Result(_))) {
            self.measure(&mut session, "server/discover", Some(params))
                .await;
        }
        session.close().await;
        let found = match reply {
            Ok(Reply::Result(result)) => result
                .get("supportedVersions")
                .and_then(Value::as_array)
                .is_some_and(|v| v.iter().any(|v| v == crate::cases::modern::VERSION))
                .then_some(result),
            Ok(Reply::Error(_)) | Err(Error::Timeout { .. } | Error::Closed { .. }) => None,
            Err(e) => return Err(e),
        };
        self.modern = Some(found.clone());
        Ok(found)
    }

    /// The target in words.
    pub fn describe(&self) -> String {
        self.connector.describe()
    }

    /// The target's transport.
    pub fn kind(&self) -> crate::driver::Kind {
        self.connector.kind()
    }

    /// A new, uninitialized session.
    pub async fn fresh(&mut self) -> Result<Session, Error> {
        let mut session = match self.spare.take() {
            Some(spare) if !spare.is_closed() => spare,
            other => {
                if let Some(dead) = other {
                    dead.close().await;
                }
                self.connector.connect(self.journal.clone()).await?
            }
        };
        if matches!(self.connector.kind(), crate::driver::Kind::Stdio) {
            // The next fresh session's server starts now and is ready when it is wanted. A
            // server waiting on its stdin is not affected by having nothing to read yet.
            self.spare = self.connector.connect(self.journal.clone()).await.ok();
        }
        self.prepare(&mut session).await;
        Ok(session)
    }

    /// A new session initialized at `version` (whatever the server answers).
    pub async fn fresh_at(&mut self, version: &str) -> Result<Session, Error> {
        let mut session = self.fresh().await?;
        session.handshake(version).await?;
        Ok(session)
    }

    /// The shared session, initialized at the latest version; opened on first use.
    pub async fn shared(&mut self) -> Result<&mut Session, Error> {
        if self.shared.as_ref().is_some_and(Session::is_closed) {
            self.reset_shared().await;
        }
        if self.shared.is_none() {
            {
                let session = {
                    let mut s = self.connector.connect(self.journal.clone()).await?;
                    self.prepare(&mut s).await;
                    // The handshake and the round-trip probe belong to no case.
                    s.set_case(crate::driver::session::SETUP).await;
                    s.handshake(ProtocolVersion::LATEST.as_str()).await?;
                    self.measure(&mut s, "ping", None).await;
                    // Ask for every log message, so that `logging.messages` has some to check
                    // (servers may send nothing below a default level until asked).
                    let logs = s
                        .initialized
                        .as_ref()
                        .and_then(|i| i.get("capabilities")?.get("logging"))
                        .is_some_and(|l| !l.is_null());
                    if logs {
                        s.request(
                            "logging/setLevel",
                            Some(serde_json::json!({"level": "debug"})),
                        )
                        .await?;
                    }
                    s.set_case(self.case).await;
                    s
                };
                self.shared = Some(session);
            }
        }
        self.shared
            .as_mut()
            .ok_or_else(|| Error::Protocol("the shared session could not be opened".into()))
    }

    /// Closes the shared session; the next case opens a new one.
    pub async fn reset_shared(&mut self) {
        if let Some(mut session) = self.shared.take() {
            // What arrived and was not claimed is recorded for the case that was running.
            session.set_case(crate::driver::session::SETUP).await;
            session.close().await;
        }
    }

    /// After a failing case: keeps the shared session when it still answers a `ping` within
    /// the request bound, else closes it so the next case opens a new one.
    pub async fn keep_shared_if_alive(&mut self) {
        let Some(session) = &mut self.shared else {
            return;
        };
        session.set_case(crate::driver::session::SETUP).await;
        let timeout = session.timeout;
        let alive = !session.is_closed()
            && matches!(
                session.request_within("ping", None, timeout).await,
                Ok(Reply::Result(_))
            );
        if !alive {
            self.reset_shared().await;
        }
    }

    /// The shared session's `initialize` result.
    pub async fn init_result(&mut self) -> Result<Value, Error> {
        let session = self.shared().await?;
        Ok(session.initialized.clone().unwrap_or(Value::Null))
    }

    /// The negotiated version of the shared session (the latest if the answer was unknown).
    pub async fn version(&mut self) -> Result<ProtocolVersion, Error> {
        let session = self.shared().await?;
        Ok(session
            .negotiated_version()
            .and_then(ProtocolVersion::parse)
            .unwrap_or(ProtocolVersion::LATEST))
    }

    /// The server capability `name` (`tools`, `resources`, …), if declared.
    pub async fn capability(&mut self, name: &str) -> Result<Option<Value>, Error> {
        let init = self.init_result().await?;
        Ok(init
            .get("capabilities")
            .and_then(|c| c.get(name))
            .filter(|v| !v.is_null())
            .cloned())
    }

    /// `Some(skip)` when the server does not declare capability `name`.
    pub async fn require(&mut self, name: &str) -> Result<Option<Outcome>, Error> {
        Ok(match self.capability(name).await? {
            Some(_) => None,
            None => Some(Outcome::skip(format!(
                "the server does not declare the `{name}` capability"
            ))),
        })
    }

    /// A request on the shared session.
    pub async fn request(&mut self, method: &str, params: Option<Value>) -> Result<Reply, Error> {
        self.shared().await?.request(method, params).await
    }

    /// Reads a paginated list (`tools/list` with key `tools`, …) to its end; cached per run.
    pub async fn list_all(&mut self, method: &'static str, key: &str) -> Result<Listing, Error> {
        if let Some(listing) = self.lists.get(method) {
            return Ok(listing.clone());
        }
        let mut listing = Listing::default();
        let mut cursor: Option<String> = None;
        let mut seen_cursors = Vec::new();
        loop {
            let params = cursor.as_ref().map(|c| json!({ "cursor": c }));
            let reply = self.request(method, params).await?;
            listing.pages += 1;
            let result = match reply {
                Reply::Result(r) => r,
                other => {
                    listing.problems.push(format!(
                        "page {} of `{method}`: {}",
                        listing.pages,
                        other.describe()
                    ));
                    break;
                }
            };
            match result.get(key).and_then(Value::as_array) {
                Some(items) => listing.items.extend(items.iter().cloned()),
                None => listing.problems.push(format!(
                    "page {} of `{method}` has no `{key}` array",
                    listing.pages
                )),
            }
            match result.get("nextCursor") {
                None | Some(Value::Null) => break,
                Some(Value::String(next)) => {
                    if seen_cursors.contains(next) {
                        listing.problems.push(format!(
                            "`{method}` returned cursor {next:?} twice (a loop)"
                        ));
                        break;
                    }
                    if listing.pages >= MAX_PAGES {
                        listing
                            .problems
                            .push(format!("`{method}` still had more after {MAX_PAGES} pages"));
                        break;
                    }
                    seen_cursors.push(next.clone());
                    cursor = Some(next.clone());
                }
                Some(other) => {
                    listing
                        .problems
                        .push(format!("`nextCursor` is not a string: {other}"));
                    break;
                }
            }
        }
        self.lists.insert(method, listing.clone());
        Ok(listing)
    }

    /// Every tool of the server (empty when it has no `tools` capability).
    pub async fn tools(&mut self) -> Result<Vec<Value>, Error> {
        if self.capability("tools").await?.is_none() {
            return Ok(Vec::new());
        }
        Ok(self.list_all("tools/list", "tools").await?.items)
    }

    /// The slow-tool fixture: the configured one, or the first tool whose input schema has a
    /// numeric `duration` (seconds) or `durationMs`/`duration_ms` (milliseconds) property and
    /// whose other required arguments are known (`--call`) or can be taken from its schema.
    pub async fn slow_tool(&mut self) -> Result<Option<SlowTool>, Error> {
        let wanted = self.config.slow_tool.clone();
        self.find_fixture(wanted).await
    }

    /// The progress fixture: the configured one, else the slow tool.
    pub async fn progress_tool(&mut self) -> Result<Option<SlowTool>, Error> {
        match self.config.progress_tool.clone() {
            Some(name) => self.find_fixture(Some(name)).await,
            None => self.slow_tool().await,
        }
    }

    async fn find_fixture(&mut self, wanted: Option<String>) -> Result<Option<SlowTool>, Error> {
        let tools = self.tools().await?;
        for tool in tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            if wanted.as_deref().is_some_and(|w| w != name) {
                continue;
            }
            let props = tool
                .pointer("/inputSchema/properties")
                .and_then(Value::as_object);
            let numeric = |key: &str| {
                props
                    .and_then(|p| p.get(key))
                    .and_then(|s| s.get("type"))
                    .and_then(Value::as_str)
                    .is_some_and(|t| t == "number" || t == "integer")
            };
            let duration_arg = if numeric("duration") {
                Some(("duration".to_owned(), 1.0))
            } else if numeric("durationMs") {
                Some(("durationMs".to_owned(), 1000.0))
            } else if numeric("duration_ms") {
                Some(("duration_ms".to_owned(), 1000.0))
            } else {
                None
            };
            if duration_arg.is_none() && wanted.is_none() {
                continue;
            }
            let steps_arg = numeric("steps").then(|| "steps".to_owned());
            let other_args = match self.config.tool_args.get(name) {
                Some(Value::Object(sample)) => Some(sample.clone()),
                _ => other_required_args(&tool, duration_arg.as_ref(), steps_arg.as_deref()),
            };
            let other_args = match other_args {
                Some(args) => args,
                // Named explicitly: call it anyway, with what can be filled in.
                None if wanted.is_some() => serde_json::Map::new(),
                None => continue,
            };
            return Ok(Some(SlowTool {
                name: name.to_owned(),
                duration_arg,
                steps_arg,
                other_args,
            }));
        }
        Ok(None)
    }

    /// What the server answers to `initialize` for each dated version and for an unknown one,
    /// each on a fresh connection; cached per run. `Ok(version)` or `Err(what came instead)`.
    pub async fn version_answers(
        &mut self,
    ) -> Result<BTreeMap<String, Result<String, String>>, Error> {
        if let Some(answers) = &self.version_answers {
            return Ok(answers.clone());
        }
        let requested = ProtocolVersion::HANDSHAKE
            .iter()
            .map(|v| v.as_str().to_owned())
            .chain(std::iter::once(
                crate::cases::lifecycle::UNKNOWN_VERSION.to_owned(),
            ));
        // One fresh session per version, all at once: a stdio server's start-up (seconds for
        // an interpreted one) is then paid about once, not five times.
        let mut probes = tokio::task::JoinSet::new();
        for version in requested {
            let mut session = self.fresh().await?;
            probes.spawn(async move {
                let answer = match session.send_initialize(&version).await {
                    Ok(Reply::Result(r)) => {
                        match r.get("protocolVersion").and_then(Value::as_str) {
                            Some(v) => Ok(v.to_owned()),
                            None => Err(format!("a result without a string protocolVersion: {r}")),
                        }
                    }
                    Ok(other) => Err(other.describe()),
                    Err(e) => Err(e.to_string()),
                };
                session.close().await;
                (version, answer)
            });
        }
        let mut answers = BTreeMap::new();
        while let Some(done) = probes.join_next().await {
            if let Ok((version, answer)) = done {
                answers.insert(version, answer);
            }
        }
        self.version_answers = Some(answers.clone());
        Ok(answers)
    }

    /// Closes everything the context holds.
    pub async fn finish(mut self) {
        self.reset_shared().await;
        for session in [self.modern_pool.take(), self.spare.take()]
            .into_iter()
            .flatten()
        {
            session.close().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slow(tool: &Value) -> Option<SlowTool> {
        let duration_arg = Some(("durationMs".to_owned(), 1000.0));
        let other_args = other_required_args(tool, duration_arg.as_ref(), None)?;
        Some(SlowTool {
            name: "watch".into(),
            duration_arg,
            steps_arg: None,
            other_args,
        })
    }

    #[test]
    fn other_required_arguments_come_from_the_schema() {
        let tool = json!({"name": "watch", "inputSchema": {"type": "object",
            "properties": {
                "city": {"type": "string", "examples": ["Shenzhen"]},
                "durationMs": {"type": "integer"},
                "intervalMs": {"type": "integer", "minimum": 10}
            },
            "required": ["city", "durationMs"]}});
        let fixture = slow(&tool).map(|t| t.args(1.5, 4));
        assert_eq!(
            fixture,
            Some(json!({"city": "Shenzhen", "durationMs": 1500}))
        );
        // A required string without a hint cannot be filled in safely.
        let mut blind = tool.clone();
        blind["inputSchema"]["properties"]["city"] = json!({"type": "string"});
        assert!(slow(&blind).is_none());
    }
}
