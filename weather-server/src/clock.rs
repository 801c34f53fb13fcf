//! Civil dates from Unix time, without a date library: what the weather needs (day of year,
//! `YYYY-MM-DD`, RFC 3339 timestamps) and a clock that can be frozen for tests and benchmarks.

use std::time::{SystemTime, UNIX_EPOCH};

/// Where "now" comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// The system clock.
    System,
    /// A fixed instant, in Unix seconds.
    Frozen(i64),
}

impl Clock {
    /// The current time in Unix seconds.
    pub fn now(self) -> i64 {
        match self {
            Clock::System => SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0),
            Clock::Frozen(t) => t,
        }
    }
}

/// Year, month (1-12) and day (1-31) of a day number counted from 1970-01-01.
pub fn civil(days: i64) -> (i64, u32, u32) {
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The day number (from 1970-01-01) of a civil date.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The day of the year, 0 for January 1st.
pub fn day_of_year(days: i64) -> i64 {
    let (y, _, _) = civil(days);
    days - days_from_civil(y, 1, 1)
}

/// `YYYY-MM-DD` of a day number.
pub fn date(days: i64) -> String {
    let mut out = String::with_capacity(10);
    push_date(&mut out, days);
    out
}

/// `YYYY-MM-DDTHH:MM:SSZ` of a Unix time. Written digit by digit: every observation carries one,
/// and `format!` costs several times as much.
pub fn rfc3339(unix_seconds: i64) -> String {
    let secs = unix_seconds.rem_euclid(86_400);
    let mut out = String::with_capacity(20);
    push_date(&mut out, unix_seconds.div_euclid(86_400));
    out.push('T');
    push_two_digits(&mut out, secs / 3600);
    out.push(':');
    push_two_digits(&mut out, secs % 3600 / 60);
    out.push(':');
    push_two_digits(&mut out, secs % 60);
    out.push('Z');
    out
}

fn push_date(out: &mut String, days: i64) {
    let (y, m, d) = civil(days);
    if (0..10_000).contains(&y) {
        push_two_digits(out, y / 100);
        push_two_digits(out, y % 100);
    } else {
        out.push_str(&format!("{y:04}"));
    }
    out.push('-');
    push_two_digits(out, i64::from(m));
    out.push('-');
    push_two_digits(out, i64::from(d));
}

/// Appends `0 <= n < 100` as two digits.
fn push_two_digits(out: &mut String, n: i64) {
    let n = n.clamp(0, 99) as u8;
    out.push(char::from(b'0' + n / 10));
    out.push(char::from(b'0' + n % 10));
}

/// Parses `YYYY-MM-DDTHH:MM[:SS]Z` (or a bare Unix time) into Unix seconds.
pub fn parse_rfc3339(text: &str) -> Option<i64> {
    if let Ok(n) = text.parse::<i64>() {
        return Some(n);
    }
    let text = text
        .strip_suffix('Z')
        .or_else(|| text.strip_suffix("+00:00"))?;
    let (date, time) = text.split_once('T')?;
    let mut d = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let mut t = time.split(':').map(|p| p.parse::<i64>().ok());
    let (hh, mm, ss) = (t.next()??, t.next()??, t.next().unwrap_or(Some(0))?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    Some(days_from_civil(y, m as u32, day as u32) * 86_400 + hh * 3600 + mm * 60 + ss)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(rfc3339(1_785_564_000), "2026-08-01T06:00:00Z");
        assert_eq!(
            rfc3339(1_785_564_000 + 13 * 3600 + 7 * 60 + 9),
            "2026-08-01T19:07:09Z"
        );
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(date(-1), "1969-12-31");
        assert_eq!(parse_rfc3339("2026-08-01T06:00:00Z"), Some(1_785_564_000));
        assert_eq!(parse_rfc3339("2026-08-01T06:00Z"), Some(1_785_564_000));
        assert_eq!(parse_rfc3339("1785564000"), Some(1_785_564_000));
        assert_eq!(parse_rfc3339("2026-13-01T00:00Z"), None);
        assert_eq!(day_of_year(days_from_civil(2024, 12, 31)), 365);
        for days in [-800_000, -1, 0, 59, 60, 11_000, 20_000, 800_000] {
            let (y, m, d) = civil(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }
}
