//! The sample MCP weather server, built only on the public API of `mcp-server`.
//!
//! Not written yet: it will serve weather tools, resources and prompts over stdio by default.

fn main() {
    eprintln!("weather-server: not implemented yet");
    std::process::exit(2);
}
