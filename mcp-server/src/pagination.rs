//! Paging of long lists with opaque cursors: a cursor names the offset of the next page,
//! wrapped so that clients treat it as opaque and a forged or stale one is refused with -32602.

use crate::error::ServerError;

/// The prefix that marks a cursor as ours.
const PREFIX: &str = "mcp1.";

/// Mixed into the offset so cursors do not look like plain numbers.
const MASK: u64 = 0x5bd1_e995_7f4a_7c15;

/// Makes the cursor that points at `offset`.
pub(crate) fn encode_cursor(offset: usize) -> String {
    let value = (offset as u64) ^ MASK;
    let check = value.rotate_left(17).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 48;
    format!("{PREFIX}{value:016x}{check:04x}")
}

/// Reads a cursor back to an offset; `None` when it is not one of ours.
pub(crate) fn decode_cursor(cursor: &str) -> Option<usize> {
    let body = cursor.strip_prefix(PREFIX)?;
    if body.len() != 20 || !body.is_ascii() {
        return None;
    }
    let value = u64::from_str_radix(&body[..16], 16).ok()?;
    let check = u64::from_str_radix(&body[16..], 16).ok()?;
    if value.rotate_left(17).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 48 != check {
        return None;
    }
    let offset = value ^ MASK;
    if offset > u64::from(u32::MAX) {
        return None;
    }
    usize::try_from(offset).ok()
}

/// One page of a list: the range of items to return and the cursor of the next page.
#[derive(Debug, PartialEq)]
pub(crate) struct Page {
    /// Index of the first item.
    pub start: usize,
    /// Index one past the last item.
    pub end: usize,
    /// The cursor of the following page, when there is one.
    pub next_cursor: Option<String>,
}

/// Picks the page of a list of `len` items after `cursor`, `page_size` items at most
/// (0 means no paging).
pub(crate) fn page(
    len: usize,
    cursor: Option<&str>,
    page_size: usize,
) -> Result<Page, ServerError> {
    let start = match cursor {
        None => 0,
        Some(c) => match decode_cursor(c) {
            Some(offset) if offset <= len => offset,
            _ => return Err(ServerError::InvalidCursor(c.to_owned())),
        },
    };
    if page_size == 0 {
        return Ok(Page {
            start,
            end: len,
            next_cursor: None,
        });
    }
    let end = start.saturating_add(page_size).min(len);
    let next_cursor = (end < len).then(|| encode_cursor(end));
    Ok(Page {
        start,
        end,
        next_cursor,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_forgeries() {
        for offset in [0, 1, 7, 100, 123_456] {
            assert_eq!(decode_cursor(&encode_cursor(offset)), Some(offset));
        }
        assert_eq!(decode_cursor("garbage"), None);
        assert_eq!(decode_cursor("mcp1.00000000000000000000"), None);
        let mut c = encode_cursor(5);
        c.replace_range(6..7, if &c[6..7] == "0" { "1" } else { "0" });
        assert_eq!(decode_cursor(&c), None);
    }

    #[test]
    fn pages_cover_the_list() {
        let p = page(5, None, 2).unwrap();
        assert_eq!((p.start, p.end), (0, 2));
        let p = page(5, p.next_cursor.as_deref(), 2).unwrap();
        assert_eq!((p.start, p.end), (2, 4));
        let p = page(5, p.next_cursor.as_deref(), 2).unwrap();
        assert_eq!((p.start, p.end, p.next_cursor), (4, 5, None));
        assert!(page(5, Some("x"), 2).is_err());
        assert!(page(1, Some(&encode_cursor(3)), 2).is_err());
        assert_eq!(page(3, None, 0).unwrap().end, 3);
    }
}
