//! The Open-Meteo forecast API (free, no key) as a weather source: one GET per question, with a
//! timeout, and answers read from Open-Meteo's JSON. The base URL is configurable so tests can
//! point it at a local stub.

use std::time::Duration;

use http_body_util::{BodyExt, Empty, Limited};
use hyper::body::Bytes;
use serde::Deserialize;

use crate::cities::City;
use crate::synthetic::{Condition, DailyForecast, Observation};

/// The public Open-Meteo endpoint.
pub const DEFAULT_BASE_URL: &str = "https://api.open-meteo.com";

/// Why Open-Meteo gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum OpenMeteoError {
    /// The URL could not be built.
    #[error("bad Open-Meteo URL {0}")]
    Url(String),
    /// No connection or no complete answer.
    #[error("Open-Meteo at {url} is unreachable: {detail}")]
    Unreachable {
        /// The URL asked.
        url: String,
        /// What failed.
        detail: String,
    },
    /// No answer within the timeout.
    #[error("Open-Meteo at {url} did not answer within {} s", .after.as_secs())]
    Timeout {
        /// The URL asked.
        url: String,
        /// The timeout.
        after: Duration,
    },
    /// An HTTP error status.
    #[error("Open-Meteo at {url} answered HTTP {status}")]
    Status {
        /// The URL asked.
        url: String,
        /// The status code.
        status: u16,
    },
    /// The body was not the JSON Open-Meteo sends.
    #[error("Open-Meteo sent an answer that could not be read: {0}")]
    Malformed(String),
}

/// A client of one Open-Meteo base URL.
#[derive(Clone)]
pub struct OpenMeteo {
    base: String,
    timeout: Duration,
    client: mcp_https::Client<Empty<Bytes>>,
}

#[derive(Deserialize)]
struct CurrentAnswer {
    current: Current,
}

#[derive(Deserialize)]
struct Current {
    time: String,
    temperature_2m: f64,
    relative_humidity_2m: f64,
    weather_code: i64,
    wind_speed_10m: f64,
    wind_direction_10m: f64,
    #[serde(default = "day")]
    is_day: i64,
}

fn day() -> i64 {
    1
}

#[derive(Deserialize)]
struct DailyAnswer {
    daily: Daily,
}

#[derive(Deserialize)]
struct Daily {
    time: Vec<String>,
    temperature_2m_max: Vec<f64>,
    temperature_2m_min: Vec<f64>,
    weather_code: Vec<i64>,
    #[serde(default)]
    precipitation_probability_max: Vec<Option<f64>>,
}

const COMPASS: [&str; 16] = [
    "N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW",
    "NNW",
];

impl OpenMeteo {
    /// A client of `base` (e.g. [`DEFAULT_BASE_URL`]) that gives up after `timeout`.
    pub fn new(base: &str, timeout: Duration) -> Result<Self, OpenMeteoError> {
        let settings = mcp_https::Settings::new(timeout);
        let client =
            mcp_https::client(&settings).map_err(|e| OpenMeteoError::Url(format!("{e}")))?;
        Ok(OpenMeteo {
            base: base.trim_end_matches('/').to_owned(),
            timeout,
            client,
        })
    }

    async fn get(&self, query: &str) -> Result<Bytes, OpenMeteoError> {
        let url = format!("{}/v1/forecast?{query}", self.base);
        let uri: hyper::Uri = url.parse().map_err(|_| OpenMeteoError::Url(url.clone()))?;
        let fetch = async {
            let response = self
                .client
                .get(uri)
                .await
                .map_err(|e| OpenMeteoError::Unreachable {
                    url: url.clone(),
                    detail: e.to_string(),
                })?;
            let status = response.status();
            if !status.is_success() {
                return Err(OpenMeteoError::Status {
                    url: url.clone(),
                    status: status.as_u16(),
                });
            }
            let body = Limited::new(response.into_body(), 4 * 1024 * 1024)
                .collect()
                .await
                .map_err(|e| OpenMeteoError::Unreachable {
                    url: url.clone(),
                    detail: e.to_string(),
                })?;
            Ok(body.to_bytes())
        };
        tokio::time::timeout(self.timeout, fetch)
            .await
            .unwrap_or_else(|_| {
                Err(OpenMeteoError::Timeout {
                    url: url.clone(),
                    after: self.timeout,
                })
            })
    }

    /// Current conditions at a city.
    pub async fn current(&self, city: &City) -> Result<Observation, OpenMeteoError> {
        let query = format!(
            "latitude={}&longitude={}&current=temperature_2m,relative_humidity_2m,weather_code,wind_speed_10m,wind_direction_10m,is_day&timezone=GMT",
            city.latitude, city.longitude
        );
        let body = self.get(&query).await?;
        let answer: CurrentAnswer =
            serde_json::from_slice(&body).map_err(|e| OpenMeteoError::Malformed(e.to_string()))?;
        let c = answer.current;
        let direction =
            COMPASS[((c.wind_direction_10m.rem_euclid(360.0) / 22.5).round() as usize) % 16];
        Ok(Observation {
            temperature_c: (c.temperature_2m * 10.0).round() / 10.0,
            condition: Condition::from_wmo_code(c.weather_code, c.is_day != 0),
            humidity_pct: c.relative_humidity_2m.clamp(0.0, 100.0).round() as u8,
            wind_kmh: c.wind_speed_10m.round(),
            wind_direction: direction,
            observed_at: if c.time.ends_with('Z') {
                c.time
            } else {
                format!("{}:00Z", c.time)
            },
        })
    }

    /// A daily forecast of `days` days at a city.
    pub async fn forecast(
        &self,
        city: &City,
        days: u8,
    ) -> Result<Vec<DailyForecast>, OpenMeteoError> {
        let query = format!(
            "latitude={}&longitude={}&daily=temperature_2m_max,temperature_2m_min,weather_code,precipitation_probability_max&timezone=auto&forecast_days={days}",
            city.latitude, city.longitude
        );
        let body = self.get(&query).await?;
        let answer: DailyAnswer =
            serde_json::from_slice(&body).map_err(|e| OpenMeteoError::Malformed(e.to_string()))?;
        let d = answer.daily;
        let n = d
            .time
            .len()
            .min(d.temperature_2m_max.len())
            .min(d.temperature_2m_min.len())
            .min(d.weather_code.len());
        if n == 0 {
            return Err(OpenMeteoError::Malformed(
                "the daily forecast is empty".into(),
            ));
        }
        Ok((0..n.min(usize::from(days)))
            .map(|i| DailyForecast {
                date: d.time[i].clone(),
                min_c: d.temperature_2m_min[i],
                max_c: d.temperature_2m_max[i],
                condition: Condition::from_wmo_code(d.weather_code[i], true),
                precipitation_chance_pct: d
                    .precipitation_probability_max
                    .get(i)
                    .copied()
                    .flatten()
                    .unwrap_or(0.0)
                    .clamp(0.0, 100.0) as u8,
            })
            .collect())
    }
}
