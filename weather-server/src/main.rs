//! The sample MCP weather server, built only on the public API of `mcp-server`.
//!
//! Not wired yet: the data (`cities`, `synthetic`, `clock`) is here; the tools come next.

mod cities;
mod clock;
mod synthetic;

fn main() {
    let _ = (cities::CITIES, clock::Clock::System, synthetic::observe);
    eprintln!("weather-server: not implemented yet");
    std::process::exit(2);
}
