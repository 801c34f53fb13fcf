//! The output: one JSON object per line, fields in the order they are added.

use std::fmt::Write;

/// A JSON line under construction; `impl` comes first.
pub struct Line(String);

impl Line {
    pub fn new(label: &str) -> Self {
        Line(String::from("{")).text("impl", label)
    }

    fn key(mut self, key: &str) -> Self {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        self.0
            .push_str(&serde_json::to_string(key).expect("a string serializes"));
        self.0.push(':');
        self
    }

    pub fn text(self, key: &str, value: &str) -> Self {
        let mut line = self.key(key);
        line.0
            .push_str(&serde_json::to_string(value).expect("a string serializes"));
        line
    }

    pub fn int(self, key: &str, value: u64) -> Self {
        let mut line = self.key(key);
        write!(line.0, "{value}").expect("writing to a String");
        line
    }

    /// A number with DIGITS decimals.
    pub fn real(self, key: &str, value: f64, digits: usize) -> Self {
        let mut line = self.key(key);
        if value.is_finite() {
            write!(line.0, "{value:.digits$}").expect("writing to a String");
        } else {
            line.0.push_str("null");
        }
        line
    }

    /// Applies F (for optional groups of fields).
    pub fn with(self, f: impl FnOnce(Line) -> Line) -> Self {
        f(self)
    }

    pub fn print(mut self) {
        self.0.push('}');
        println!("{}", self.0);
    }
}
