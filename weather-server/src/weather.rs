//! The weather server's tools, resources, prompt and completions, on mcp-server's public API.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use mcp_server::schema::apps_extension::UiToolMeta;
use mcp_server::schema::{
    ElicitAction, ElicitParams, GetPromptResult, PromptMessage, ReadResourceResult,
    TextResourceContents, ToolAnnotations,
};
use mcp_server::schemars;
use mcp_server::{
    App, CompletionRequest, Context, HandlerError, JsonSchema, LoggingLevel, Prompt,
    PromptArguments, Resource, ResourceRequest, ResourceTemplate, Server, ServerBuilder,
    ServerError, State, Structured, Tool,
};

use crate::cities::{self, City, CITIES};
use crate::provider::Provider;
use crate::synthetic::{DailyForecast, Observation};
use crate::watch::{self, Report, Summary};

/// The URI of the list of cities.
pub const CITIES_URI: &str = "weather://cities";
/// The template of one city's current conditions.
pub const CURRENT_TEMPLATE: &str = "weather://current/{city}";
/// The weather app's view (MCP Apps): the current-conditions card and the forecast chart that
/// get_weather and get_forecast render in hosts that show apps.
pub const APP_URI: &str = "ui://weather/app.html";
/// The view's HTML, one self-contained file (inline script and style, no network).
const APP_HTML: &str = include_str!("weather_app.html");

const INSTRUCTIONS: &str = "Weather for about 120 world cities. Use get_weather for current conditions \
(temperature in °C, sky, humidity, wind), get_forecast for up to 7 days, watch_weather to follow a \
city's conditions for a while (up to 10 minutes, with progress), and list_cities to find \
supported cities (names in English; Chinese names such as 深圳 also work). An unknown city returns \
an error naming the closest known cities. Resources: weather://cities and weather://current/{city}.";

// The tools' arguments: their doc comments and attributes are the tools' input schemas.

#[derive(Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct CityArgs {
    /// City name, e.g. "Shenzhen" or "深圳"
    #[schemars(length(min = 1))]
    city: String,
}

#[derive(Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct ForecastArgs {
    /// City name
    #[schemars(length(min = 1))]
    city: String,
    /// How many days, 1 to 7
    #[serde(default = "default_days")]
    #[schemars(range(min = 1, max = 7))]
    days: i64,
}

fn default_days() -> i64 {
    3
}

// The durations are numbers, not integer types, so that any out-of-range value gets the
// tool's own error; the schema still says integer.
#[derive(Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct WatchArgs {
    /// City name, e.g. "Shenzhen" or "深圳"
    // An example lets generic clients (the conformance runner's slow-tool fixture) call it.
    #[schemars(length(min = 1), extend("examples" = ["Shenzhen"]))]
    city: String,
    /// How long to watch, in milliseconds (0 to 600000)
    #[serde(default = "default_duration_ms", rename = "durationMs")]
    #[schemars(with = "u32", range(min = 0, max = 600_000), extend("default" = 5000))]
    duration_ms: f64,
    /// Time between samples, in milliseconds (10 to 600000)
    #[serde(default = "default_interval_ms", rename = "intervalMs")]
    #[schemars(with = "u32", range(min = 10, max = 600_000), extend("default" = 1000))]
    interval_ms: f64,
}

fn default_duration_ms() -> f64 {
    5000.0
}

fn default_interval_ms() -> f64 {
    1000.0
}

/// `value` as whole milliseconds when it lies in `range`, else the tool error to return.
fn millis(name: &str, value: f64, range: &std::ops::RangeInclusive<u64>) -> Result<u64, String> {
    let (lo, hi) = (*range.start(), *range.end());
    if value.is_finite() && value >= lo as f64 && value <= hi as f64 {
        Ok(value.round() as u64)
    } else {
        Err(format!(
            "{name} must be between {lo} and {hi} (milliseconds), got {value}"
        ))
    }
}

#[derive(Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct ListArgs {
    /// Part of a city or country name
    // Optional, and no `"default": null` in the schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    query: Option<String>,
}

/// The city `name` names, or the error to give back: an over-long name is refused before any
/// search (the "did you mean" search costs time in proportion to the name's length).
fn city_named(name: &str) -> Result<&'static City, String> {
    if name.len() > cities::MAX_NAME_BYTES {
        return Err(too_long("The city name", name));
    }
    cities::find(name).ok_or_else(|| {
        let near: Vec<&str> = cities::closest(name, 3).iter().map(|c| c.name).collect();
        format!(
            "Unknown city {name:?}. Closest known cities: {}. Call list_cities to see every supported city.",
            near.join(", ")
        )
    })
}

fn too_long(what: &str, text: &str) -> String {
    format!(
        "{what} is {} bytes long; at most {} are accepted. Call list_cities to see every supported city.",
        text.len(),
        cities::MAX_NAME_BYTES
    )
}

/// [`city_named`] for a tool: an unknown city is logged (its name cut short) and becomes the
/// tool's error result.
async fn city_for_tool(
    tool: &str,
    name: &str,
    ctx: &Context,
) -> Result<&'static City, HandlerError> {
    if let Some(candidates) = cities::ambiguous(name) {
        // Boxed: asking the user is rare, and its future would make every call's larger.
        return Box::pin(which_city(name, &candidates, ctx)).await;
    }
    match city_named(name) {
        Ok(city) => Ok(city),
        Err(error) => {
            let shown: String = name.chars().take(64).collect();
            ctx.log(
                LoggingLevel::Warning,
                json!({"tool": tool, "unknown_city": shown}),
            )
            .await;
            Err(error.into())
        }
    }
}

/// Asks the user which of `candidates` an ambiguous `name` meant, through elicitation: a
/// server-to-client request under 2025, an `input_required` round under 2026-07-28 (the same
/// call). A client that cannot ask its user gets the choices back as the tool's error.
async fn which_city(
    name: &str,
    candidates: &[&'static City],
    ctx: &Context,
) -> Result<&'static City, HandlerError> {
    let names: Vec<&str> = candidates.iter().map(|c| c.name).collect();
    let choose = || {
        format!(
            "{name:?} is ambiguous: it may mean {}. Call again with one of these names.",
            names.join("; ")
        )
    };
    let can_ask = ctx
        .client_capabilities()
        .is_some_and(|c| c.elicitation.is_some());
    if !can_ask {
        return Err(choose().into());
    }
    let schema = json!({
        "type": "object",
        "properties": {"city": {"type": "string", "title": "City", "enum": names}},
        "required": ["city"]
    });
    let message = format!("There are several cities called {name}. Which one did you mean?");
    let answer = ctx.elicit(ElicitParams::form(message, schema)).await?;
    let chosen = answer
        .content
        .as_ref()
        .and_then(|c| c.get("city"))
        .and_then(Value::as_str);
    match (answer.action, chosen) {
        (ElicitAction::Accept, Some(chosen)) => candidates
            .iter()
            .find(|c| c.name == chosen)
            .copied()
            .ok_or_else(|| format!("{chosen:?} is not one of the choices. {}", choose()).into()),
        _ => Err(choose().into()),
    }
}

// The tools' structured results: their doc comments and attributes are the output schemas.

#[derive(Serialize, JsonSchema)]
struct CurrentWeather {
    city: &'static str,
    country: &'static str,
    #[serde(flatten)]
    now: Observation,
}

#[derive(Serialize, JsonSchema)]
struct Forecast {
    city: &'static str,
    country: &'static str,
    days: Vec<DailyForecast>,
}

#[derive(Serialize, JsonSchema)]
struct CityList {
    cities: Vec<CityEntry>,
}

#[derive(Serialize, JsonSchema)]
struct CityEntry {
    name: &'static str,
    country: &'static str,
}

fn observation_json(city: &'static City, now: Observation) -> CurrentWeather {
    CurrentWeather {
        city: city.name,
        country: city.country,
        now,
    }
}

/// What each call logs at info.
#[derive(Serialize)]
struct CallLog<'a> {
    tool: &'static str,
    city: &'a str,
}

fn observation_text(city: &City, o: &Observation) -> String {
    use std::fmt::Write;
    // One allocation, sized for the longest names.
    let mut text = String::with_capacity(96);
    let _ = write!(
        text,
        "{}: {}, {} °C, humidity {} %, wind {} km/h {}",
        city.name,
        o.condition.as_str(),
        o.temperature_c,
        o.humidity_pct,
        o.wind_kmh,
        o.wind_direction
    );
    text
}

/// The hints every weather tool shares: read-only, idempotent, and open-world when it may go
/// to the network.
fn annotations(open_world: bool) -> ToolAnnotations {
    ToolAnnotations {
        read_only_hint: Some(true),
        idempotent_hint: Some(true),
        destructive_hint: Some(false),
        open_world_hint: Some(open_world),
        ..Default::default()
    }
}

/// The cities whose name or an alias starts with what was typed (case and accents ignored),
/// each with the alias that matched when the name did not.
fn cities_starting_with(prefix: &str) -> Vec<(&'static City, Option<&'static str>)> {
    if prefix.len() > cities::MAX_NAME_BYTES {
        return Vec::new();
    }
    let wanted = cities::fold(prefix);
    CITIES
        .iter()
        .filter_map(|city| {
            if cities::fold(city.name).starts_with(&wanted) {
                Some((city, None))
            } else {
                city.aliases
                    .iter()
                    .find(|a| cities::fold(a).starts_with(&wanted))
                    .map(|alias| (city, Some(*alias)))
            }
        })
        .collect()
}

/// City names (and aliases) that start with what was typed, case and accents ignored.
pub fn complete_city(prefix: &str) -> Vec<String> {
    cities_starting_with(prefix)
        .into_iter()
        // An alias matched (e.g. 深 for 深圳): offer the alias as typed by the user.
        .map(|(city, alias)| alias.unwrap_or(city.name).to_owned())
        .collect()
}

/// The template's `{city}` values for what was typed: always the canonical slug, the URI that
/// update notifications name, even when an alias matched.
pub fn complete_city_slug(prefix: &str) -> Vec<String> {
    cities_starting_with(prefix)
        .into_iter()
        .map(|(city, _)| cities::slug(city.name))
        .collect()
}

type ToolResult<T> = Result<Structured<T>, HandlerError>;

async fn get_weather(
    State(provider): State<Arc<Provider>>,
    args: CityArgs,
    ctx: Context,
) -> ToolResult<CurrentWeather> {
    let city = city_for_tool("get_weather", &args.city, &ctx).await?;
    match provider.current(city).await {
        Ok(o) => {
            let log = CallLog {
                tool: "get_weather",
                city: city.name,
            };
            ctx.log(LoggingLevel::Info, log).await;
            Ok(Structured(
                observation_text(city, &o),
                observation_json(city, o),
            ))
        }
        Err(e) => {
            ctx.log(
                LoggingLevel::Error,
                json!({"tool": "get_weather", "city": city.name, "error": e.to_string()}),
            )
            .await;
            Err(format!(
                "The weather for {} is unavailable right now: {e}",
                city.name
            )
            .into())
        }
    }
}

/// How long a forecast pauses after each progress notification, when the client asked for
/// progress. The TypeScript SDK runs notification handlers a microtask after it handles a
/// response, so progress that reaches it in the same read as the result is dropped as "unknown
/// token"; the pause lets each notification leave in its own write, ahead of the result.
const PROGRESS_GAP: std::time::Duration = std::time::Duration::from_millis(10);

/// Tells the client day `done` of `total` is ready (a no-op without a progress token).
async fn report_day(ctx: &Context, done: usize, total: usize, day: &DailyForecast) {
    if ctx.progress_token().is_none() {
        return;
    }
    ctx.progress(
        done as f64,
        Some(total as f64),
        Some(format!("{}: {}", day.date, day.condition.as_str())),
    )
    .await;
    tokio::time::sleep(PROGRESS_GAP).await;
}

async fn get_forecast(
    State(provider): State<Arc<Provider>>,
    args: ForecastArgs,
    ctx: Context,
) -> ToolResult<Forecast> {
    let city = city_for_tool("get_forecast", &args.city, &ctx).await?;
    let days = u8::try_from(args.days)
        .ok()
        .filter(|days| (1..=7).contains(days))
        .ok_or_else(|| format!("days must be between 1 and 7, got {}", args.days))?;
    ctx.log(
        LoggingLevel::Info,
        json!({"tool": "get_forecast", "city": city.name, "days": days}),
    )
    .await;
    let forecast: Vec<DailyForecast> = if provider.is_networked() {
        match provider.network_forecast(city, days).await {
            Ok(f) => {
                // One answer holds every day; still one progress notification per day, as
                // the embedded provider sends, so clients see the same shape either way.
                let total = f.len();
                for (i, day) in f.iter().enumerate() {
                    report_day(&ctx, i + 1, total, day).await;
                }
                f
            }
            Err(e) => {
                let error = format!(
                    "The forecast for {} is unavailable right now: {e}",
                    city.name
                );
                return Err(error.into());
            }
        }
    } else {
        let mut out = Vec::with_capacity(usize::from(days));
        for d in 0..days {
            if ctx.is_cancelled() {
                return Err("cancelled".into());
            }
            if let Some(day) = provider.embedded_forecast_day(city, d) {
                report_day(&ctx, usize::from(d) + 1, usize::from(days), &day).await;
                out.push(day);
            }
        }
        out
    };
    let text = std::iter::once(format!("{} forecast:", city.name))
        .chain(forecast.iter().map(|d| {
            format!(
                "{}: {}, {} to {} °C, {} % chance of precipitation",
                d.date,
                d.condition.as_str(),
                d.min_c,
                d.max_c,
                d.precipitation_chance_pct
            )
        }))
        .collect::<Vec<_>>()
        .join("\n");
    let value = Forecast {
        city: city.name,
        country: city.country,
        days: forecast,
    };
    Ok(Structured(text, value))
}

/// Samples `city` every `interval_ms` for `duration_ms`, reporting each sample as progress
/// (progress = milliseconds into the watch, total = the duration). Cancellation drops it.
async fn watch_city(
    provider: &Provider,
    city: &City,
    duration_ms: u64,
    interval_ms: u64,
    ctx: &Context,
) -> Summary {
    let started = tokio::time::Instant::now();
    let mut summary = Summary::default();
    let mut offset = 0;
    loop {
        tokio::time::sleep_until(started + std::time::Duration::from_millis(offset)).await;
        let message = match provider.current(city).await {
            Ok(o) => {
                summary.add(&o);
                format!(
                    "{}: {}, {} °C",
                    city.name,
                    o.condition.as_str(),
                    o.temperature_c
                )
            }
            Err(e) => {
                let message = format!("{}: unavailable ({e})", city.name);
                summary.miss(e.to_string());
                message
            }
        };
        if ctx.progress_token().is_some() {
            ctx.progress(offset as f64, Some(duration_ms as f64), Some(message))
                .await;
            tokio::time::sleep(PROGRESS_GAP).await;
        }
        let elapsed = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        match watch::next_offset(offset, elapsed, interval_ms, duration_ms) {
            Some(next) => offset = next,
            None => return summary,
        }
    }
}

async fn watch_weather(
    State(provider): State<Arc<Provider>>,
    args: WatchArgs,
    ctx: Context,
) -> ToolResult<Report> {
    let city = city_for_tool("watch_weather", &args.city, &ctx).await?;
    let duration_ms = millis("durationMs", args.duration_ms, &watch::DURATION_MS)?;
    let interval_ms = millis("intervalMs", args.interval_ms, &watch::INTERVAL_MS)?;
    ctx.log(
        LoggingLevel::Info,
        json!({"tool": "watch_weather", "city": city.name, "duration_ms": duration_ms, "interval_ms": interval_ms}),
    )
    .await;
    let summary = tokio::select! {
        biased;
        // The client gets no answer to a cancelled request; this only ends the work.
        _ = ctx.cancelled() => return Err("cancelled".into()),
        summary = watch_city(&provider, city, duration_ms, interval_ms, &ctx) => summary,
    };
    if summary.samples == 0 {
        return Err(format!(
            "The weather for {} was unavailable for the whole watch ({} samples failed): {}",
            city.name,
            summary.missed,
            summary.last_error.as_deref().unwrap_or("no answer")
        )
        .into());
    }
    Ok(Structured(
        summary.text(city.name, duration_ms),
        summary.report(city.name, city.country, duration_ms, interval_ms),
    ))
}

async fn list_cities(args: ListArgs, ctx: Context) -> ToolResult<CityList> {
    if let Some(query) = args
        .query
        .as_deref()
        .filter(|q| q.len() > cities::MAX_NAME_BYTES)
    {
        return Err(too_long("The query", query).into());
    }
    let query = args.query.as_deref().map(cities::fold).unwrap_or_default();
    let found: Vec<&City> = CITIES
        .iter()
        .filter(|c| {
            query.is_empty()
                || cities::fold(c.name).contains(&query)
                || cities::fold(c.country).contains(&query)
                || c.aliases.iter().any(|a| cities::fold(a).contains(&query))
        })
        .collect();
    ctx.log(
        LoggingLevel::Info,
        json!({"tool": "list_cities", "matches": found.len()}),
    )
    .await;
    let text = if found.is_empty() {
        "No known city matches; call list_cities without a query to see all.".to_owned()
    } else {
        found
            .iter()
            .map(|c| format!("{} ({})", c.name, c.country))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let cities = found.iter().map(|c| CityEntry {
        name: c.name,
        country: c.country,
    });
    Ok(Structured(
        text,
        CityList {
            cities: cities.collect(),
        },
    ))
}

fn cities_json() -> String {
    let list: Vec<Value> = CITIES
        .iter()
        .map(|c| {
            json!({
                "name": c.name, "country": c.country, "latitude": c.latitude, "longitude": c.longitude,
                "time_zone": c.time_zone, "aliases": c.aliases,
            })
        })
        .collect();
    serde_json::to_string_pretty(&list).unwrap_or_else(|_| "[]".into())
}

/// The URI of one city's current conditions.
pub fn current_uri(city: &City) -> String {
    format!("weather://current/{}", cities::slug(city.name))
}

/// Reads `weather://current/{city}`: the city's current conditions as JSON.
async fn read_current(
    req: ResourceRequest,
    State(provider): State<Arc<Provider>>,
) -> Result<ReadResourceResult, ServerError> {
    let name = req.var("city").unwrap_or_default().replace('-', " ");
    // No "did you mean" search for a URI: not found is the whole answer.
    let city = cities::find(&name).ok_or_else(|| ServerError::ResourceNotFound(req.uri.clone()))?;
    let o = provider
        .current(city)
        .await
        .map_err(|e| ServerError::handler(e.to_string()))?;
    let text = serde_json::to_string_pretty(&observation_json(city, o)).unwrap_or_default();
    let contents = TextResourceContents::new(req.uri, text).with_mime_type("application/json");
    Ok(ReadResourceResult::new(vec![contents.into()]))
}

/// The `weather_report` prompt: asks for a report in the given style, with the data embedded.
async fn weather_report(
    args: PromptArguments,
    State(provider): State<Arc<Provider>>,
) -> Result<GetPromptResult, ServerError> {
    let name = args.get("city").cloned().unwrap_or_default();
    let city = city_named(&name).map_err(ServerError::InvalidParams)?;
    let o = provider
        .current(city)
        .await
        .map_err(|e| ServerError::handler(e.to_string()))?;
    let style = args.get("style").map(String::as_str).unwrap_or("brief");
    let data = serde_json::to_string(&observation_json(city, o)).unwrap_or_default();
    let ask = format!(
        "Write a {style} weather report for {} ({}) from this current data:\n{data}",
        city.name, city.country
    );
    Ok(GetPromptResult::new(vec![PromptMessage::user(ask)])
        .with_description(format!("Weather report for {}", city.name)))
}

const WATCH_DESCRIPTION: &str = "Watch a city's current conditions for a while (up to 10 minutes) \
and report how they changed: temperature range, the skies seen, how many samples. Sends one \
progress notification per sample when the call carries a progress token; cancel it to stop early.";

/// The weather server, answering from `provider`.
/// The weather server's builder, everything registered: the caller may add deployment
/// settings (shared state, the request-state key) before it builds.
pub fn builder(provider: Provider) -> ServerBuilder {
    let weather_hints = annotations(provider.is_networked());
    Server::builder("weather-server", env!("CARGO_PKG_VERSION"))
        .title("Weather")
        .description("Current weather and forecasts for world cities")
        .instructions(INSTRUCTIONS)
        // Each call's info entry goes only to clients that ask for it with logging/setLevel.
        .default_log_level(LoggingLevel::Warning)
        // Cloned into every call: an Arc, so a clone is a count, whatever the provider holds.
        .state(Arc::new(provider))
        // Both weather tools render in the weather app where the host shows apps; every
        // client still gets their text and structured results.
        .app(
            App::new(
                Tool::new("get_weather", "Current weather in a city: temperature (°C), sky, humidity and wind.")
                    .title("Current weather")
                    .annotations(weather_hints.clone()),
                APP_URI,
                APP_HTML,
            )
            .view_title("Weather app", "Current conditions and a forecast chart, with a city picker")
            .prefers_border(true),
            get_weather,
        )
        .tool(
            Tool::new("get_forecast", "Daily forecast for a city, 1 to 7 days: low/high °C, sky, chance of precipitation.")
                .title("Forecast")
                .annotations(weather_hints.clone())
                .ui(UiToolMeta::view(APP_URI)),
            get_forecast,
        )
        .tool(
            Tool::new("watch_weather", WATCH_DESCRIPTION)
                .title("Watch the weather")
                .annotations(weather_hints.clone()),
            watch_weather,
        )
        .tool(
            crate::climate::tool().annotations(weather_hints),
            crate::climate::climate_report,
        )
        .tool(
            Tool::new("list_cities", "The cities this server knows, optionally filtered by a part of the name or country.")
                .title("Known cities")
                .annotations(annotations(false)),
            list_cities,
        )
        .resource(
            Resource::new(CITIES_URI, "cities")
                .title("Known cities")
                .description("Every city with its country, coordinates, time zone and aliases (JSON)")
                .mime_type("application/json"),
            |req: ResourceRequest| async move {
                let contents = TextResourceContents::new(req.uri, cities_json());
                ReadResourceResult::new(vec![contents.with_mime_type("application/json").into()])
            },
        )
        .resource_template(
            ResourceTemplate::new(CURRENT_TEMPLATE, "current")
                .title("Current weather")
                .description("Current conditions in one city (JSON); subscribe to hear when they change")
                .mime_type("application/json"),
            read_current,
        )
        .prompt(
            Prompt::new("weather_report", "A weather report for a city, with the current data embedded")
                .title("Weather report")
                .argument("city", "The city", true)
                .argument("style", "The tone, e.g. \"brief\", \"friendly\", \"for pilots\"", false),
            weather_report,
        )
        .prompt_completion("weather_report", "city", |req: CompletionRequest| async move {
            complete_city(&req.value)
        })
        .prompt_completion("weather_report", "style", |req: CompletionRequest| async move {
            ["brief", "detailed", "friendly", "for pilots", "for sailors"]
                .iter()
                .filter(|s| s.starts_with(&req.value))
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
        })
        .template_completion(CURRENT_TEMPLATE, "city", |req: CompletionRequest| async move {
            complete_city_slug(&req.value)
        })
}

/// Moves the embedded weather forward one hour every `every`, and tells subscribers of each
/// city's resource that it changed.
pub fn spawn_updates(server: Server, provider: Provider, every: std::time::Duration) {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        loop {
            ticks.tick().await;
            if provider.advance(3600) || provider.is_networked() {
                for city in CITIES {
                    server.notify_resource_updated(&current_uri(city));
                }
            }
        }
    });
}
