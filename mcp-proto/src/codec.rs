//! Newline-delimited JSON framing.
