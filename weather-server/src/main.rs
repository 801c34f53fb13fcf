//! The sample MCP weather server, built only on the public API of `mcp-server`.
//!
//! Not wired yet: the data (`cities`, `synthetic`, `clock`) is here; the tools come next.

// Wired to tools once mcp-server's builder lands.
#[allow(dead_code)]
mod cities;
#[allow(dead_code)]
mod clock;
#[allow(dead_code)]
mod synthetic;

fn main() {
    eprintln!("weather-server: not implemented yet");
    std::process::exit(2);
}
