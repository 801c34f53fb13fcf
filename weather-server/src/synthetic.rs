//! The embedded provider's weather: synthetic, deterministic, plausible for latitude, season
//! and hour. The same city and time always give the same answer, so tests can assert on it.

use mcp_server::{schemars, JsonSchema};
use serde::Serialize;

use crate::cities::City;

/// The sky, as a word a person would use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Condition {
    // Clear sky at night.
    Clear,
    // Clear sky by day.
    Sunny,
    // Some clouds.
    #[serde(rename = "partly cloudy")]
    PartlyCloudy,
    // Overcast.
    Cloudy,
    // Light rain.
    Drizzle,
    // Rain.
    Rain,
    // Rain with thunder.
    Thunderstorms,
    // Snow.
    Snow,
    // Fog.
    Fog,
}

impl Condition {
    /// The condition as shown in text, e.g. `"partly cloudy"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Condition::Clear => "clear",
            Condition::Sunny => "sunny",
            Condition::PartlyCloudy => "partly cloudy",
            Condition::Cloudy => "cloudy",
            Condition::Drizzle => "drizzle",
            Condition::Rain => "rain",
            Condition::Thunderstorms => "thunderstorms",
            Condition::Snow => "snow",
            Condition::Fog => "fog",
        }
    }

    /// Maps WMO weather codes (as Open-Meteo reports them) to a condition.
    pub fn from_wmo_code(code: i64, is_day: bool) -> Condition {
        match code {
            0 | 1 if is_day => Condition::Sunny,
            0 | 1 => Condition::Clear,
            2 => Condition::PartlyCloudy,
            3 => Condition::Cloudy,
            45 | 48 => Condition::Fog,
            51..=57 => Condition::Drizzle,
            61..=67 | 80..=82 => Condition::Rain,
            71..=77 | 85 | 86 => Condition::Snow,
            95..=99 => Condition::Thunderstorms,
            _ => Condition::Cloudy,
        }
    }
}

/// Current conditions at one place and time.
// Its doc comments and attributes are part of the tools' output schemas.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Observation {
    /// Air temperature in °C, one decimal.
    pub temperature_c: f64,
    /// The sky.
    pub condition: Condition,
    /// Relative humidity in percent.
    #[schemars(range(max = 100))]
    pub humidity_pct: u8,
    /// Wind speed in km/h.
    #[schemars(range(min = 0))]
    pub wind_kmh: f64,
    /// Where the wind comes from, as a 16-point compass direction.
    pub wind_direction: &'static str,
    /// When it was observed, as RFC 3339 UTC.
    #[schemars(extend("format" = "date-time"))]
    pub observed_at: String,
}

/// One day of a forecast.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct DailyForecast {
    /// The local date, `YYYY-MM-DD`.
    #[schemars(extend("format" = "date"))]
    pub date: String,
    /// The night's low in °C.
    pub min_c: f64,
    /// The day's high in °C.
    pub max_c: f64,
    /// The afternoon's sky.
    pub condition: Condition,
    /// Chance of precipitation in percent.
    #[schemars(range(max = 100))]
    pub precipitation_chance_pct: u8,
}

const COMPASS: [&str; 16] = [
    "N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW",
    "NNW",
];

/// A stable hash of a city and a number, mapped to `[0, 1)` (FNV-1a, then a mix).
fn unit(city: &City, salt: &str, n: i64) -> f64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in city.name.bytes().chain(salt.bytes()).chain(n.to_le_bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    (h >> 11) as f64 / (1u64 << 53) as f64
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// Local seasonal factor: 1 at the height of local summer, -1 in deep winter.
fn season(city: &City, day_of_year: f64) -> f64 {
    let peak = if city.latitude >= 0.0 { 200.0 } else { 17.0 };
    (2.0 * std::f64::consts::PI * (day_of_year - peak) / 365.25).cos()
}

/// The temperature at a local day and hour, before rounding.
fn temperature(city: &City, day: i64, day_of_year: f64, local_hour: f64, utc_hour: i64) -> f64 {
    let lat = city.latitude.abs();
    let mean = 27.0 - 0.004 * lat * lat - 0.1 * lat;
    let amplitude = 0.2 * lat;
    let diurnal = 4.0 * (2.0 * std::f64::consts::PI * (local_hour - 15.0) / 24.0).cos();
    let day_noise = (unit(city, "day", day) * 2.0 - 1.0) * 2.5;
    let hour_noise = (unit(city, "hour", utc_hour) * 2.0 - 1.0) * 0.8;
    mean + amplitude * season(city, day_of_year) + diurnal + day_noise + hour_noise
}

fn humidity(city: &City, day_of_year: f64, utc_hour: i64) -> u8 {
    let wet = (1.0 - city.latitude.abs() / 45.0).clamp(0.0, 1.0)
        * (0.6 + 0.4 * season(city, day_of_year));
    let h = 45.0 + 40.0 * wet + (unit(city, "humidity", utc_hour) * 2.0 - 1.0) * 15.0;
    h.clamp(12.0, 100.0).round() as u8
}

fn condition(temp: f64, humidity: u8, u: f64, is_day: bool) -> Condition {
    match humidity {
        h if temp <= 0.5 && h >= 70 && u < 0.6 => Condition::Snow,
        h if h >= 78 && temp >= 24.0 => {
            if u < 0.7 {
                Condition::Thunderstorms
            } else {
                Condition::Rain
            }
        }
        h if h >= 85 && u < 0.2 => Condition::Fog,
        h if h >= 78 => {
            if u < 0.5 {
                Condition::Rain
            } else {
                Condition::Drizzle
            }
        }
        h if h >= 62 => {
            if u < 0.5 {
                Condition::Cloudy
            } else {
                Condition::PartlyCloudy
            }
        }
        _ if is_day => Condition::Sunny,
        _ => Condition::Clear,
    }
}

/// The weather at `city` at `unix_seconds` (UTC).
pub fn observe(city: &City, unix_seconds: i64) -> Observation {
    let utc_hour = unix_seconds.div_euclid(3600);
    let local = unix_seconds + (city.utc_offset * 3600.0) as i64;
    let day = local.div_euclid(86_400);
    let local_hour = local.rem_euclid(86_400) as f64 / 3600.0;
    let day_of_year = crate::clock::day_of_year(day) as f64;
    let temp = temperature(city, day, day_of_year, local_hour, utc_hour);
    let humidity = humidity(city, day_of_year, utc_hour);
    let is_day = (6.0..19.0).contains(&local_hour);
    let u = unit(city, "sky", utc_hour);
    let wind = 3.0 + unit(city, "wind", utc_hour) * 30.0;
    let direction = COMPASS[(unit(city, "direction", day) * 16.0) as usize % 16];
    Observation {
        temperature_c: round1(temp),
        condition: condition(temp, humidity, u, is_day),
        humidity_pct: humidity,
        wind_kmh: wind.round(),
        wind_direction: direction,
        observed_at: crate::clock::rfc3339(utc_hour * 3600),
    }
}

/// A forecast of `days` days starting with the local day of `unix_seconds`.
pub fn forecast_day(city: &City, unix_seconds: i64, offset_days: i64) -> DailyForecast {
    let local = unix_seconds + (city.utc_offset * 3600.0) as i64;
    let day = local.div_euclid(86_400) + offset_days;
    let day_of_year = crate::clock::day_of_year(day) as f64;
    // The local hours 05:00 and 15:00 of that day, as UTC hours.
    let utc_hour_at =
        |h: i64| (day * 86_400 + h * 3600 - (city.utc_offset * 3600.0) as i64).div_euclid(3600);
    let low = temperature(city, day, day_of_year, 5.0, utc_hour_at(5));
    let high = temperature(city, day, day_of_year, 15.0, utc_hour_at(15));
    let humidity = humidity(city, day_of_year, utc_hour_at(14));
    let sky = condition(high, humidity, unit(city, "sky", utc_hour_at(14)), true);
    let chance = match sky {
        Condition::Thunderstorms | Condition::Rain => 70 + (unit(city, "pop", day) * 30.0) as u8,
        Condition::Drizzle | Condition::Snow => 50 + (unit(city, "pop", day) * 30.0) as u8,
        Condition::Cloudy | Condition::Fog => 20 + (unit(city, "pop", day) * 20.0) as u8,
        _ => (unit(city, "pop", day) * 15.0) as u8,
    };
    DailyForecast {
        date: crate::clock::date(day),
        min_c: round1(low.min(high)),
        max_c: round1(high.max(low)),
        condition: sky,
        precipitation_chance_pct: chance,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cities::{find, CITIES};

    /// 2026-08-02T07:00:00Z, 15:00 in Shenzhen: the frozen clock the benchmark uses.
    const BENCH_CLOCK: i64 = 1_785_654_000;

    #[test]
    fn same_inputs_same_answer() {
        for city in CITIES {
            assert_eq!(observe(city, 1_790_000_000), observe(city, 1_790_000_000));
            assert_eq!(
                forecast_day(city, 1_790_000_000, 3),
                forecast_day(city, 1_790_000_000, 3)
            );
        }
    }

    #[test]
    fn plausible_for_latitude_and_season() {
        let july = 1_783_000_000; // 2026-07-02
        let january = 1_768_000_000; // 2026-01-09
        for city in CITIES {
            for t in [july, january] {
                let o = observe(city, t);
                assert!(
                    (-45.0..=50.0).contains(&o.temperature_c),
                    "{} {o:?}",
                    city.name
                );
                assert!((12..=100).contains(&o.humidity_pct), "{} {o:?}", city.name);
                assert!((0.0..=40.0).contains(&o.wind_kmh));
            }
        }
        let moscow = find("Moscow").unwrap();
        let singapore = find("Singapore").unwrap();
        assert!(observe(moscow, january).temperature_c < observe(moscow, july).temperature_c);
        assert!(observe(moscow, january).temperature_c < observe(singapore, january).temperature_c);
        let sydney = find("Sydney").unwrap();
        assert!(forecast_day(sydney, january, 0).max_c > forecast_day(sydney, july, 0).max_c);
    }

    #[test]
    fn the_benchmark_clock_gives_thunderstorms_in_shenzhen() {
        let o = observe(find("shenzhen").unwrap(), BENCH_CLOCK);
        assert_eq!(o.condition, Condition::Thunderstorms, "{o:?}");
    }
}
