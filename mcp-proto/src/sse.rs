//! Server-Sent Events: the parser and writer both HTTP transports share.
