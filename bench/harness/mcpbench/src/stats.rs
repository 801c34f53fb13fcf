//! Latency summaries.

use crate::line::Line;

/// Latencies in microseconds, sorted once they are all in.
pub struct Latencies(Vec<u64>);

impl Latencies {
    pub fn sorted(mut samples: Vec<u64>) -> Self {
        samples.sort_unstable();
        Latencies(samples)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The sample at rank round((len - 1) * q); 0 for no samples.
    pub fn quantile(&self, q: f64) -> u64 {
        match self.0.len() {
            0 => 0,
            n => self.0[((n - 1) as f64 * q).round() as usize],
        }
    }

    pub fn min(&self) -> u64 {
        self.0.first().copied().unwrap_or(0)
    }

    pub fn max(&self) -> u64 {
        self.0.last().copied().unwrap_or(0)
    }

    pub fn mean(&self) -> f64 {
        if self.0.is_empty() {
            0.0
        } else {
            self.0.iter().sum::<u64>() as f64 / self.0.len() as f64
        }
    }

    /// p50_us, p90_us, p99_us, max_us, mean_us.
    pub fn fields(&self, line: Line) -> Line {
        line.int("p50_us", self.quantile(0.5))
            .int("p90_us", self.quantile(0.9))
            .int("p99_us", self.quantile(0.99))
            .int("max_us", self.max())
            .real("mean_us", self.mean(), 1)
    }
}
