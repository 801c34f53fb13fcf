//! Where the weather comes from: the embedded synthetic model (default, no network) or the
//! Open-Meteo API.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use crate::cities::City;
use crate::clock::Clock;
use crate::open_meteo::{OpenMeteo, OpenMeteoError};
use crate::synthetic::{self, DailyForecast, Observation};

/// A source of weather.
#[derive(Clone)]
pub enum Provider {
    /// Synthetic weather from the built-in model; `shift` moves its clock forward on each
    /// update tick, so subscribed resources change.
    Embedded {
        /// Where "now" comes from.
        clock: Clock,
        /// Seconds added to the clock by update ticks.
        shift: Arc<AtomicI64>,
    },
    /// The Open-Meteo API.
    OpenMeteo(Box<OpenMeteo>),
}

impl Provider {
    /// The embedded provider on `clock`.
    pub fn embedded(clock: Clock) -> Self {
        Provider::Embedded {
            clock,
            shift: Arc::new(AtomicI64::new(0)),
        }
    }

    /// Whether answers come from the network (the tools' open-world hint).
    pub fn is_networked(&self) -> bool {
        matches!(self, Provider::OpenMeteo(_))
    }

    fn now(clock: Clock, shift: &AtomicI64) -> i64 {
        clock.now() + shift.load(Ordering::Relaxed)
    }

    /// Current conditions at `city`.
    pub async fn current(&self, city: &City) -> Result<Observation, OpenMeteoError> {
        match self {
            Provider::Embedded { clock, shift } => {
                Ok(synthetic::observe(city, Self::now(*clock, shift)))
            }
            // Boxed: the network request's future would otherwise make every call's larger.
            Provider::OpenMeteo(api) => Box::pin(api.current(city)).await,
        }
    }

    /// Day `index` (0 = today) of the forecast for `city`, for the embedded provider only.
    pub fn embedded_forecast_day(&self, city: &City, index: u8) -> Option<DailyForecast> {
        match self {
            Provider::Embedded { clock, shift } => Some(synthetic::forecast_day(
                city,
                Self::now(*clock, shift),
                i64::from(index),
            )),
            Provider::OpenMeteo(_) => None,
        }
    }

    /// The whole forecast of `days` days, from the network provider.
    pub async fn network_forecast(
        &self,
        city: &City,
        days: u8,
    ) -> Result<Vec<DailyForecast>, OpenMeteoError> {
        match self {
            Provider::OpenMeteo(api) => api.forecast(city, days).await,
            Provider::Embedded { .. } => Ok((0..days)
                .filter_map(|d| self.embedded_forecast_day(city, d))
                .collect()),
        }
    }

    /// Moves the embedded clock forward by `seconds` (an update tick); false for the network
    /// provider, whose data changes by itself.
    pub fn advance(&self, seconds: i64) -> bool {
        match self {
            Provider::Embedded { shift, .. } => {
                shift.fetch_add(seconds, Ordering::Relaxed);
                true
            }
            Provider::OpenMeteo(_) => false,
        }
    }
}
