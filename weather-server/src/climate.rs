//! `climate_report`: a slow tool that runs as a task. It visits many cities one by one (a pause
//! per city, as if each were a remote call), reports progress after each, and ends with a
//! summary: the warmest, the coldest and the mean temperature. Cancelling it stops it between
//! cities.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use mcp_server::schema::TaskSupport;
use mcp_server::schemars;
use mcp_server::{Context, HandlerError, JsonSchema, State, Structured, Tool};

use crate::cities::{self, City, CITIES};
use crate::provider::Provider;

/// At most this many cities in one report.
const MAX_CITIES: usize = 200;

/// How many cities a report without a list visits: the first ones the server knows.
const DEFAULT_CITIES: usize = 12;

/// The longest pause per city, in milliseconds.
const MAX_PER_CITY_MS: u64 = 10_000;

// Numbers, not integer types, so an out-of-range value gets the tool's own error.
#[derive(Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct ClimateArgs {
    /// The cities to visit, by name; the first 12 known cities when absent.
    #[serde(default)]
    #[schemars(length(max = 200))]
    cities: Option<Vec<String>>,
    /// The pause per city, in milliseconds (0 to 10000)
    #[serde(default = "default_per_city_ms", rename = "perCityMs")]
    #[schemars(with = "u32", range(min = 0, max = 10_000), extend("default" = 250))]
    per_city_ms: f64,
}

fn default_per_city_ms() -> f64 {
    250.0
}

/// One city in the report.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CityClimate {
    city: &'static str,
    country: &'static str,
    temperature_c: f64,
    condition: String,
}

/// The report.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ClimateReport {
    cities: Vec<CityClimate>,
    warmest: Option<String>,
    coldest: Option<String>,
    mean_temperature_c: Option<f64>,
}

/// The tool's definition (the caller adds the weather tools' annotations): optional task
/// support, so a client may run it as a task (and a 2026-07-28 client that declares the tasks
/// extension gets one).
pub(crate) fn tool() -> Tool {
    Tool::new(
        "climate_report",
        "A climate report over many cities (up to 200; 12 by default): current temperature \
         and sky of each, then the warmest, coldest and mean. Slow (a pause per city, perCityMs), \
         with progress; runs as a task when the client asks for one.",
    )
    .title("Climate report")
    .task_support(TaskSupport::Optional)
}

fn chosen(names: Option<Vec<String>>) -> Result<Vec<&'static City>, HandlerError> {
    let Some(names) = names else {
        return Ok(CITIES.iter().take(DEFAULT_CITIES).collect());
    };
    if names.len() > MAX_CITIES {
        return Err(format!(
            "At most {MAX_CITIES} cities per report, not {}",
            names.len()
        )
        .into());
    }
    names
        .iter()
        .map(|name| {
            cities::find(name).ok_or_else(|| {
                HandlerError::from(format!(
                    "Unknown city {name:?}. Call list_cities to see every supported city."
                ))
            })
        })
        .collect()
}

/// Visits each city, with a pause and a progress report after each.
pub(crate) async fn climate_report(
    State(provider): State<Arc<Provider>>,
    args: ClimateArgs,
    ctx: Context,
) -> Result<Structured<ClimateReport>, HandlerError> {
    if !(0.0..=MAX_PER_CITY_MS as f64).contains(&args.per_city_ms) {
        return Err(format!("perCityMs must be 0 to {MAX_PER_CITY_MS}").into());
    }
    let pause = Duration::from_millis(args.per_city_ms as u64);
    let chosen = chosen(args.cities)?;
    let total = chosen.len() as f64;
    let mut seen = Vec::with_capacity(chosen.len());
    for (i, city) in chosen.into_iter().enumerate() {
        tokio::select! {
            _ = tokio::time::sleep(pause) => {}
            _ = ctx.cancelled() => return Err("The climate report was cancelled".into()),
        }
        let o = provider
            .current(city)
            .await
            .map_err(|e| HandlerError::from(format!("{}: {e}", city.name)))?;
        seen.push(CityClimate {
            city: city.name,
            country: city.country,
            temperature_c: o.temperature_c,
            condition: o.condition.as_str().to_owned(),
        });
        let message = format!("{}/{} cities: {}", i + 1, total as usize, city.name);
        ctx.progress((i + 1) as f64, Some(total), Some(message))
            .await;
    }
    let by_temp = |a: &&CityClimate, b: &&CityClimate| a.temperature_c.total_cmp(&b.temperature_c);
    let warmest = seen.iter().max_by(by_temp).map(|c| c.city.to_owned());
    let coldest = seen.iter().min_by(by_temp).map(|c| c.city.to_owned());
    let mean = (!seen.is_empty())
        .then(|| seen.iter().map(|c| c.temperature_c).sum::<f64>() / seen.len() as f64)
        .map(|m| (m * 10.0).round() / 10.0);
    let text = match (&warmest, &coldest, mean) {
        (Some(w), Some(c), Some(m)) => format!(
            "Climate report over {} cities: warmest {w}, coldest {c}, mean {m} °C",
            seen.len()
        ),
        _ => "Climate report over no cities".to_owned(),
    };
    Ok(Structured(
        text,
        ClimateReport {
            cities: seen,
            warmest,
            coldest,
            mean_temperature_c: mean,
        },
    ))
}
