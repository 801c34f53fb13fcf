//! The weather server's tools, resources, prompt and completions, on mcp-server's public API.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use mcp_server::schema::{
    GetPromptResult, PromptMessage, ReadResourceResult, TextResourceContents, ToolAnnotations,
};
use mcp_server::{
    CompletionRequest, Context, LoggingLevel, Prompt, PromptArguments, Resource, ResourceRequest,
    ResourceTemplate, Server, ServerError, Tool, ToolOutput,
};

use crate::cities::{self, City, CITIES};
use crate::provider::Provider;
use crate::synthetic::{Condition, DailyForecast, Observation};
use crate::watch::{self, Summary};

/// The URI of the list of cities.
pub const CITIES_URI: &str = "weather://cities";
/// The template of one city's current conditions.
pub const CURRENT_TEMPLATE: &str = "weather://current/{city}";

const INSTRUCTIONS: &str = "Weather for about 120 world cities. Use get_weather for current conditions \
(temperature in °C, sky, humidity, wind), get_forecast for up to 7 days, watch_weather to follow a \
city's conditions for a while (up to 10 minutes, with progress), and list_cities to find \
supported cities (names in English; Chinese names such as 深圳 also work). An unknown city returns \
an error naming the closest known cities. Resources: weather://cities and weather://current/{city}.";

#[derive(Deserialize)]
struct CityArgs {
    city: String,
}

#[derive(Deserialize)]
struct ForecastArgs {
    city: String,
    #[serde(default = "default_days")]
    days: i64,
}

fn default_days() -> i64 {
    3
}

#[derive(Deserialize)]
struct WatchArgs {
    city: String,
    /// A number, not an integer type, so that any out-of-range value gets the tool's own error.
    #[serde(default = "default_duration_ms", rename = "durationMs")]
    duration_ms: f64,
    #[serde(default = "default_interval_ms", rename = "intervalMs")]
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

#[derive(Deserialize, Default)]
struct ListArgs {
    #[serde(default)]
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
async fn city_for_tool(tool: &str, name: &str, ctx: &Context) -> Result<&'static City, ToolOutput> {
    match city_named(name) {
        Ok(city) => Ok(city),
        Err(error) => {
            let shown: String = name.chars().take(64).collect();
            ctx.log(
                LoggingLevel::Warning,
                json!({"tool": tool, "unknown_city": shown}),
            )
            .await;
            Err(ToolOutput::error(error))
        }
    }
}

/// Current conditions as the `get_weather` output schema describes them.
#[derive(Serialize)]
struct CurrentWeather<'a> {
    city: &'a str,
    country: &'a str,
    temperature_c: f64,
    condition: &'static str,
    humidity_pct: u8,
    wind_kmh: f64,
    wind_direction: &'static str,
    observed_at: &'a str,
}

fn observation_json<'a>(city: &'a City, o: &'a Observation) -> CurrentWeather<'a> {
    CurrentWeather {
        city: city.name,
        country: city.country,
        temperature_c: o.temperature_c,
        condition: o.condition.as_str(),
        humidity_pct: o.humidity_pct,
        wind_kmh: o.wind_kmh,
        wind_direction: o.wind_direction,
        observed_at: &o.observed_at,
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

fn day_json(d: &DailyForecast) -> Value {
    json!({
        "date": d.date,
        "min_c": d.min_c,
        "max_c": d.max_c,
        "condition": d.condition.as_str(),
        "precipitation_chance_pct": d.precipitation_chance_pct,
    })
}

fn current_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "country": {"type": "string"},
            "temperature_c": {"type": "number", "description": "Air temperature in °C"},
            "condition": {"type": "string", "enum": Condition::ALL},
            "humidity_pct": {"type": "integer", "minimum": 0, "maximum": 100},
            "wind_kmh": {"type": "number", "minimum": 0},
            "wind_direction": {"type": "string", "description": "Where the wind comes from (16-point compass)"},
            "observed_at": {"type": "string", "format": "date-time"}
        },
        "required": ["city", "country", "temperature_c", "condition", "humidity_pct", "wind_kmh", "wind_direction", "observed_at"]
    })
}

fn forecast_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "country": {"type": "string"},
            "days": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "date": {"type": "string", "format": "date"},
                        "min_c": {"type": "number"},
                        "max_c": {"type": "number"},
                        "condition": {"type": "string", "enum": Condition::ALL},
                        "precipitation_chance_pct": {"type": "integer", "minimum": 0, "maximum": 100}
                    },
                    "required": ["date", "min_c", "max_c", "condition", "precipitation_chance_pct"]
                }
            }
        },
        "required": ["city", "country", "days"]
    })
}

fn watch_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "country": {"type": "string"},
            "duration_ms": {"type": "integer", "minimum": 0},
            "interval_ms": {"type": "integer", "minimum": 10},
            "samples": {"type": "integer", "minimum": 1, "description": "Observations taken"},
            "missed": {"type": "integer", "minimum": 0, "description": "Samples the provider could not answer"},
            "min_c": {"type": "number", "description": "Lowest temperature seen, °C"},
            "max_c": {"type": "number", "description": "Highest temperature seen, °C"},
            "conditions": {
                "type": "array",
                "items": {"type": "string", "enum": Condition::ALL},
                "description": "Each condition seen, in the order first seen"
            },
            "first_observed_at": {"type": "string", "format": "date-time"},
            "last_observed_at": {"type": "string", "format": "date-time"}
        },
        "required": ["city", "country", "duration_ms", "interval_ms", "samples", "missed", "min_c", "max_c", "conditions", "first_observed_at", "last_observed_at"]
    })
}

fn city_schema(description: &str) -> Value {
    json!({"type": "string", "description": description, "minLength": 1})
}

fn annotations(provider: &Provider) -> ToolAnnotations {
    ToolAnnotations {
        read_only_hint: Some(true),
        idempotent_hint: Some(true),
        destructive_hint: Some(false),
        open_world_hint: Some(provider.is_networked()),
        ..Default::default()
    }
}

fn structured(text: String, value: Value) -> ToolOutput {
    ToolOutput::structured(text, &value)
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

async fn get_weather(provider: Provider, args: CityArgs, ctx: Context) -> ToolOutput {
    let city = match city_for_tool("get_weather", &args.city, &ctx).await {
        Ok(city) => city,
        Err(error) => return error,
    };
    match provider.current(city).await {
        Ok(o) => {
            let log = CallLog {
                tool: "get_weather",
                city: city.name,
            };
            ctx.log(LoggingLevel::Info, log).await;
            ToolOutput::structured(observation_text(city, &o), &observation_json(city, &o))
        }
        Err(e) => {
            ctx.log(
                LoggingLevel::Error,
                json!({"tool": "get_weather", "city": city.name, "error": e.to_string()}),
            )
            .await;
            ToolOutput::error(format!(
                "The weather for {} is unavailable right now: {e}",
                city.name
            ))
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

async fn get_forecast(provider: Provider, args: ForecastArgs, ctx: Context) -> ToolOutput {
    let city = match city_for_tool("get_forecast", &args.city, &ctx).await {
        Ok(city) => city,
        Err(error) => return error,
    };
    let Ok(days) = u8::try_from(args.days) else {
        return ToolOutput::error(format!("days must be between 1 and 7, got {}", args.days));
    };
    if !(1..=7).contains(&days) {
        return ToolOutput::error(format!("days must be between 1 and 7, got {days}"));
    }
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
                return ToolOutput::error(format!(
                    "The forecast for {} is unavailable right now: {e}",
                    city.name
                ))
            }
        }
    } else {
        let mut out = Vec::with_capacity(usize::from(days));
        for d in 0..days {
            if ctx.is_cancelled() {
                return ToolOutput::error("cancelled");
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
    let value = json!({
        "city": city.name,
        "country": city.country,
        "days": forecast.iter().map(day_json).collect::<Vec<_>>(),
    });
    structured(text, value)
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

async fn watch_weather(provider: Provider, args: WatchArgs, ctx: Context) -> ToolOutput {
    let city = match city_for_tool("watch_weather", &args.city, &ctx).await {
        Ok(city) => city,
        Err(error) => return error,
    };
    let duration_ms = match millis("durationMs", args.duration_ms, &watch::DURATION_MS) {
        Ok(ms) => ms,
        Err(e) => return ToolOutput::error(e),
    };
    let interval_ms = match millis("intervalMs", args.interval_ms, &watch::INTERVAL_MS) {
        Ok(ms) => ms,
        Err(e) => return ToolOutput::error(e),
    };
    ctx.log(
        LoggingLevel::Info,
        json!({"tool": "watch_weather", "city": city.name, "duration_ms": duration_ms, "interval_ms": interval_ms}),
    )
    .await;
    let summary = tokio::select! {
        biased;
        // The client gets no answer to a cancelled request; this only ends the work.
        _ = ctx.cancelled() => return ToolOutput::error("cancelled"),
        summary = watch_city(&provider, city, duration_ms, interval_ms, &ctx) => summary,
    };
    if summary.samples == 0 {
        return ToolOutput::error(format!(
            "The weather for {} was unavailable for the whole watch ({} samples failed): {}",
            city.name,
            summary.missed,
            summary.last_error.as_deref().unwrap_or("no answer")
        ));
    }
    ToolOutput::structured(
        summary.text(city.name, duration_ms),
        &summary.report(city.name, city.country, duration_ms, interval_ms),
    )
}

async fn list_cities(args: ListArgs, ctx: Context) -> ToolOutput {
    if let Some(query) = args
        .query
        .as_deref()
        .filter(|q| q.len() > cities::MAX_NAME_BYTES)
    {
        return ToolOutput::error(too_long("The query", query));
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
    let value = json!({
        "cities": found.iter().map(|c| json!({"name": c.name, "country": c.country})).collect::<Vec<_>>(),
    });
    structured(text, value)
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

/// The weather server, answering from `provider`.
pub fn build(provider: Provider) -> Server {
    // An example city lets generic clients (the conformance runner's slow-tool fixture) call it.
    let mut watch_city_schema = city_schema("City name, e.g. \"Shenzhen\" or \"深圳\"");
    watch_city_schema["examples"] = json!(["Shenzhen"]);
    let (p1, p2, p3, p4, p5) = (
        provider.clone(),
        provider.clone(),
        provider.clone(),
        provider.clone(),
        provider.clone(),
    );
    Server::builder("weather-server", env!("CARGO_PKG_VERSION"))
        .title("Weather")
        .description("Current weather and forecasts for world cities")
        .instructions(INSTRUCTIONS)
        // Each call's info entry goes only to clients that ask for it with logging/setLevel.
        .default_log_level(LoggingLevel::Warning)
        .tool(
            Tool::new("get_weather", "Current weather in a city: temperature (°C), sky, humidity and wind.")
                .title("Current weather")
                .input_schema(json!({
                    "type": "object",
                    "properties": {"city": city_schema("City name, e.g. \"Shenzhen\" or \"深圳\"")},
                    "required": ["city"],
                    "additionalProperties": false
                }))
                .output_schema(current_schema())
                .annotations(annotations(&provider)),
            move |args: CityArgs, ctx: Context| get_weather(p1.clone(), args, ctx),
        )
        .tool(
            Tool::new("get_forecast", "Daily forecast for a city, 1 to 7 days: low/high °C, sky, chance of precipitation.")
                .title("Forecast")
                .input_schema(json!({
                    "type": "object",
                    "properties": {
                        "city": city_schema("City name"),
                        "days": {"type": "integer", "minimum": 1, "maximum": 7, "default": 3, "description": "How many days, 1 to 7"}
                    },
                    "required": ["city"],
                    "additionalProperties": false
                }))
                .output_schema(forecast_schema())
                .annotations(annotations(&provider)),
            move |args: ForecastArgs, ctx: Context| get_forecast(p2.clone(), args, ctx),
        )
        .tool(
            Tool::new("watch_weather", "Watch a city's current conditions for a while (up to 10 minutes) and report how they changed: \
temperature range, the skies seen, how many samples. Sends one progress notification per sample when the call carries a progress token; \
cancel it to stop early.")
                .title("Watch the weather")
                .input_schema(json!({
                    "type": "object",
                    "properties": {
                        "city": watch_city_schema,
                        "durationMs": {"type": "integer", "minimum": 0, "maximum": 600_000, "default": 5000,
                            "description": "How long to watch, in milliseconds (0 to 600000)"},
                        "intervalMs": {"type": "integer", "minimum": 10, "maximum": 600_000, "default": 1000,
                            "description": "Time between samples, in milliseconds (10 to 600000)"}
                    },
                    "required": ["city"],
                    "additionalProperties": false
                }))
                .output_schema(watch_schema())
                .annotations(annotations(&provider)),
            move |args: WatchArgs, ctx: Context| watch_weather(p5.clone(), args, ctx),
        )
        .tool(
            Tool::new("list_cities", "The cities this server knows, optionally filtered by a part of the name or country.")
                .title("Known cities")
                .input_schema(json!({
                    "type": "object",
                    "properties": {"query": {"type": "string", "description": "Part of a city or country name"}},
                    "additionalProperties": false
                }))
                .output_schema(json!({
                    "type": "object",
                    "properties": {"cities": {"type": "array", "items": {
                        "type": "object",
                        "properties": {"name": {"type": "string"}, "country": {"type": "string"}},
                        "required": ["name", "country"]
                    }}},
                    "required": ["cities"]
                }))
                .annotations(ToolAnnotations { open_world_hint: Some(false), ..annotations(&provider) }),
            |args: ListArgs, ctx: Context| list_cities(args, ctx),
        )
        .resource(
            Resource::new(CITIES_URI, "cities")
                .title("Known cities")
                .description("Every city with its country, coordinates, time zone and aliases (JSON)")
                .mime_type("application/json"),
            |req: ResourceRequest, _ctx: Context| async move {
                ReadResourceResult::new(vec![TextResourceContents::new(req.uri, cities_json())
                    .with_mime_type("application/json")
                    .into()])
            },
        )
        .resource_template(
            ResourceTemplate::new(CURRENT_TEMPLATE, "current")
                .title("Current weather")
                .description("Current conditions in one city (JSON); subscribe to hear when they change")
                .mime_type("application/json"),
            move |req: ResourceRequest, _ctx: Context| {
                let provider = p3.clone();
                async move {
                    let name = req.var("city").unwrap_or_default().replace('-', " ");
                    // No "did you mean" search for a URI: not found is the whole answer.
                    let city = cities::find(&name).ok_or_else(|| ServerError::ResourceNotFound(req.uri.clone()))?;
                    let o = provider.current(city).await.map_err(|e| ServerError::handler(e.to_string()))?;
                    let text = serde_json::to_string_pretty(&observation_json(city, &o)).unwrap_or_default();
                    Ok::<_, ServerError>(ReadResourceResult::new(vec![TextResourceContents::new(req.uri, text)
                        .with_mime_type("application/json")
                        .into()]))
                }
            },
        )
        .prompt(
            Prompt::new("weather_report", "A weather report for a city, with the current data embedded")
                .title("Weather report")
                .argument("city", "The city", true)
                .argument("style", "The tone, e.g. \"brief\", \"friendly\", \"for pilots\"", false),
            move |args: PromptArguments, _ctx: Context| {
                let provider = p4.clone();
                async move {
                    let name = args.get("city").cloned().unwrap_or_default();
                    let city = city_named(&name).map_err(ServerError::InvalidParams)?;
                    let o = provider.current(city).await.map_err(|e| ServerError::handler(e.to_string()))?;
                    let style = args.get("style").map(String::as_str).unwrap_or("brief");
                    let data = serde_json::to_string(&observation_json(city, &o)).unwrap_or_default();
                    let ask = format!(
                        "Write a {style} weather report for {} ({}) from this current data:\n{data}",
                        city.name, city.country
                    );
                    Ok::<_, ServerError>(
                        GetPromptResult::new(vec![PromptMessage::user(ask)])
                            .with_description(format!("Weather report for {}", city.name)),
                    )
                }
            },
        )
        .prompt_completion("weather_report", "city", |req: CompletionRequest, _ctx: Context| async move {
            complete_city(&req.value)
        })
        .prompt_completion("weather_report", "style", |req: CompletionRequest, _ctx: Context| async move {
            ["brief", "detailed", "friendly", "for pilots", "for sailors"]
                .iter()
                .filter(|s| s.starts_with(&req.value))
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
        })
        .template_completion(CURRENT_TEMPLATE, "city", |req: CompletionRequest, _ctx: Context| async move {
            complete_city_slug(&req.value)
        })
        .build()
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
