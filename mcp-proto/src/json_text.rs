//! JSON text written by hand where serde's generic path costs too much: string literals escaped
//! eight bytes at a time. serde_json escapes one byte at a time (about 9 instructions a byte),
//! and a tool result that carries its structured content again as a JSON text block sends
//! hundreds of bytes through that loop on every call.

/// The bytes a JSON string must escape: `"`, `\` and the controls below 0x20.
fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// The bytes of `word` (read little-endian, so its lowest byte comes first in the text) that
/// need escaping, as the high bit of each; exact for the lowest one, which is all a caller
/// reads. The classic "has a zero byte" and "has a byte below n" tests: a borrow can only
/// mark bytes above a true match.
fn escape_mask(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero_bytes = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    below_space
        | zero_bytes(word ^ (ONES * u64::from(b'"')))
        | zero_bytes(word ^ (ONES * u64::from(b'\\')))
}

/// The index of the first byte at or after `from` that needs escaping.
fn next_escape(bytes: &[u8], mut from: usize) -> Option<usize> {
    while let Some(word) = bytes.get(from..from + 8) {
        let mut eight = [0; 8];
        eight.copy_from_slice(word);
        let mask = escape_mask(u64::from_le_bytes(eight));
        if mask != 0 {
            return Some(from + (mask.trailing_zeros() / 8) as usize);
        }
        from += 8;
    }
    let tail = bytes.get(from..)?;
    tail.iter().position(|&b| needs_escape(b)).map(|i| from + i)
}

/// Appends `text` to `out` as a JSON string literal, quotes included, escaped as serde_json
/// escapes it (`\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, other controls as `\u00XX`), so the
/// text is the same whichever writer made it.
pub fn push_string(out: &mut String, text: &str) {
    out.reserve(text.len() + 2);
    out.push('"');
    let bytes = text.as_bytes();
    // The first byte not yet copied.
    let mut run = 0;
    while let Some(at) = next_escape(bytes, run) {
        // Runs end before an ASCII byte, so they are whole UTF-8 sequences.
        out.push_str(&text[run..at]);
        push_escape(out, bytes[at]);
        run = at + 1;
    }
    out.push_str(&text[run..]);
    out.push('"');
}

fn push_escape(out: &mut String, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match byte {
        b'"' => out.push_str("\\\""),
        b'\\' => out.push_str("\\\\"),
        b'\n' => out.push_str("\\n"),
        b'\r' => out.push_str("\\r"),
        b'\t' => out.push_str("\\t"),
        0x08 => out.push_str("\\b"),
        0x0c => out.push_str("\\f"),
        _ => {
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn written(text: &str) -> String {
        let mut out = String::new();
        push_string(&mut out, text);
        out
    }

    #[test]
    fn escapes_as_serde_json_does() {
        for text in [
            "",
            "plain",
            "exactly8",
            "a \"quoted\" word",
            "{\"city\":\"Shenzhen\",\"temperature_c\":34.3}",
            "back\\slash and \u{7f} and \u{1} \u{1f} \n\r\t\u{8}\u{c}",
            "34.3 °C, 深圳, 😀 and \"quotes\" after them",
        ] {
            assert_eq!(
                written(text),
                serde_json::to_string(text).unwrap(),
                "{text:?}"
            );
        }
    }

    proptest! {
        #[test]
        fn any_text_matches_serde_json(text in any::<String>()) {
            prop_assert_eq!(written(&text), serde_json::to_string(&text).unwrap());
        }

        #[test]
        fn any_ascii_matches_serde_json(bytes in proptest::collection::vec(0u8..0x80, 0..80)) {
            let text = String::from_utf8(bytes).unwrap();
            prop_assert_eq!(written(&text), serde_json::to_string(&text).unwrap());
        }
    }
}
