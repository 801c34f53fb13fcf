//! Watching one city for a while: when to take each sample, and what the samples add up to
//! (temperature range, the conditions seen in order, how many samples and misses).

use mcp_server::schemars;
use mcp_server::JsonSchema;
use serde::Serialize;

use crate::synthetic::{Condition, Observation};

/// The bounds of `durationMs`: up to ten minutes.
pub const DURATION_MS: std::ops::RangeInclusive<u64> = 0..=600_000;
/// The bounds of `intervalMs`: at most 100 samples a second, at least one per ten minutes.
pub const INTERVAL_MS: std::ops::RangeInclusive<u64> = 10..=600_000;

/// When the next sample is due, in milliseconds after the watch began: samples fall on
/// multiples of the interval, the last one exactly at the end; a tick already past (a slow
/// provider) is dropped rather than caught up in a burst.
pub fn next_offset(done: u64, elapsed: u64, interval: u64, duration: u64) -> Option<u64> {
    if done >= duration {
        return None;
    }
    let next_tick = (elapsed / interval + 1) * interval;
    Some(next_tick.max(done + 1).min(duration))
}

/// The samples taken so far.
#[derive(Debug, Default)]
pub struct Summary {
    /// Samples that brought an observation.
    pub samples: u32,
    /// Samples the provider could not answer.
    pub missed: u32,
    /// The lowest temperature seen, °C.
    pub min_c: Option<f64>,
    /// The highest temperature seen, °C.
    pub max_c: Option<f64>,
    /// Each condition once, in the order first seen.
    pub conditions: Vec<Condition>,
    /// When the first and the last observation were made (the provider's time).
    pub first_observed_at: Option<String>,
    /// See `first_observed_at`.
    pub last_observed_at: Option<String>,
    /// Why the last missed sample failed.
    pub last_error: Option<String>,
}

impl Summary {
    /// Adds one observation.
    pub fn add(&mut self, o: &Observation) {
        self.samples += 1;
        let t = o.temperature_c;
        self.min_c = Some(self.min_c.map_or(t, |m| m.min(t)));
        self.max_c = Some(self.max_c.map_or(t, |m| m.max(t)));
        if !self.conditions.contains(&o.condition) {
            self.conditions.push(o.condition);
        }
        if self.first_observed_at.is_none() {
            self.first_observed_at = Some(o.observed_at.clone());
        }
        self.last_observed_at = Some(o.observed_at.clone());
    }

    /// Counts a sample the provider could not answer, and why.
    pub fn miss(&mut self, why: String) {
        self.missed += 1;
        self.last_error = Some(why);
    }

    /// One line for people, e.g. `Shenzhen, 6 samples over 5000 ms: thunderstorms throughout,
    /// steady at 34.3 °C.`
    pub fn text(&self, city: &str, duration_ms: u64) -> String {
        let plural = |n: u32| if n == 1 { "" } else { "s" };
        let mut out = format!(
            "{city}, {} sample{} over {duration_ms} ms",
            self.samples,
            plural(self.samples)
        );
        if self.missed > 0 {
            out.push_str(&format!(" ({} more unavailable)", self.missed));
        }
        let sky = match self.conditions.as_slice() {
            [] => String::new(),
            [only] => format!("{} throughout", only.as_str()),
            many => many
                .iter()
                .map(|c| c.as_str())
                .collect::<Vec<_>>()
                .join(", then "),
        };
        let temperature = match (self.min_c, self.max_c) {
            (Some(lo), Some(hi)) if lo == hi => format!("steady at {lo} °C"),
            (Some(lo), Some(hi)) => format!("between {lo} and {hi} °C"),
            _ => String::new(),
        };
        if !sky.is_empty() {
            out.push_str(&format!(": {sky}, {temperature}"));
        }
        out.push('.');
        out
    }

    /// The structured form, as the `watch_weather` output schema describes it.
    pub fn report(
        &self,
        city: &'static str,
        country: &'static str,
        duration_ms: u64,
        interval_ms: u64,
    ) -> Report {
        Report {
            city,
            country,
            duration_ms,
            interval_ms,
            samples: self.samples,
            missed: self.missed,
            min_c: self.min_c,
            max_c: self.max_c,
            conditions: self.conditions.clone(),
            first_observed_at: self.first_observed_at.clone(),
            last_observed_at: self.last_observed_at.clone(),
        }
    }
}

/// What a watch saw: how many samples, the temperature range and the skies.
// `watch_weather`'s structured content: these doc comments and attributes are its output
// schema. A report is made only when a sample succeeded, so the optional fields are set.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Report {
    city: &'static str,
    country: &'static str,
    duration_ms: u64,
    #[schemars(range(min = 10))]
    interval_ms: u64,
    /// Observations taken
    #[schemars(range(min = 1))]
    samples: u32,
    /// Samples the provider could not answer
    missed: u32,
    /// Lowest temperature seen, °C
    #[schemars(with = "f64")]
    min_c: Option<f64>,
    /// Highest temperature seen, °C
    #[schemars(with = "f64")]
    max_c: Option<f64>,
    /// Each condition seen, in the order first seen
    conditions: Vec<Condition>,
    #[schemars(with = "String", extend("format" = "date-time"))]
    first_observed_at: Option<String>,
    #[schemars(with = "String", extend("format" = "date-time"))]
    last_observed_at: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offsets(interval: u64, duration: u64, delays: impl Fn(u64) -> u64) -> Vec<u64> {
        let mut out = vec![0];
        let mut done = 0;
        while let Some(next) = next_offset(done, done + delays(done), interval, duration) {
            out.push(next);
            done = next;
        }
        out
    }

    #[test]
    fn samples_fall_on_the_interval_and_end_at_the_duration() {
        assert_eq!(offsets(1000, 3000, |_| 0), [0, 1000, 2000, 3000]);
        assert_eq!(offsets(400, 1000, |_| 0), [0, 400, 800, 1000]);
        assert_eq!(offsets(1000, 0, |_| 0), [0]);
        assert_eq!(offsets(5000, 1000, |_| 0), [0, 1000]);
        // A sample that took 1.5 intervals: the tick it overran is dropped.
        assert_eq!(
            offsets(100, 500, |d| if d == 100 { 150 } else { 5 }),
            [0, 100, 300, 400, 500]
        );
        // Running late past the end still takes the last sample, once.
        assert_eq!(offsets(100, 250, |_| 400), [0, 250]);
    }

    fn observation(t: f64, condition: Condition, at: &str) -> Observation {
        Observation {
            temperature_c: t,
            condition,
            humidity_pct: 50,
            wind_kmh: 10.0,
            wind_direction: "N",
            observed_at: at.to_owned(),
        }
    }

    #[test]
    fn a_summary_keeps_the_range_and_the_conditions_in_order() {
        let mut s = Summary::default();
        s.add(&observation(20.5, Condition::Cloudy, "t1"));
        s.add(&observation(19.0, Condition::Rain, "t2"));
        s.miss("HTTP 500".into());
        s.add(&observation(21.0, Condition::Cloudy, "t3"));
        assert_eq!((s.samples, s.missed), (3, 1));
        assert_eq!((s.min_c, s.max_c), (Some(19.0), Some(21.0)));
        assert_eq!(s.conditions, [Condition::Cloudy, Condition::Rain]);
        assert_eq!(
            s.text("Oslo", 2000),
            "Oslo, 3 samples over 2000 ms (1 more unavailable): cloudy, then rain, between 19 and 21 °C."
        );
        let report =
            serde_json::to_value(s.report("Oslo", "Norway", 2000, 1000)).unwrap_or_default();
        assert_eq!(report["first_observed_at"], "t1");
        assert_eq!(report["last_observed_at"], "t3");
        assert_eq!(report["conditions"], serde_json::json!(["cloudy", "rain"]));

        let mut steady = Summary::default();
        steady.add(&observation(34.3, Condition::Thunderstorms, "t"));
        assert_eq!(
            steady.text("Shenzhen", 0),
            "Shenzhen, 1 sample over 0 ms: thunderstorms throughout, steady at 34.3 °C."
        );
        assert_eq!(
            Summary::default().text("Lima", 10),
            "Lima, 0 samples over 10 ms."
        );
    }
}
