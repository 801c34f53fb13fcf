//! The peer engine.
