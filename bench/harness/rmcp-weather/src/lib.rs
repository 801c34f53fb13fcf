//! The weather tool of the benchmark served with rmcp 3.11, written the way rmcp's README and
//! examples write a tool: a `#[tool_router]` impl, `Parameters<T>` with a schemars-derived schema,
//! and `#[tool_handler]` for the `ServerHandler`.

use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{schemars, tool, tool_handler, tool_router, ServerHandler};

/// The synthetic weather of every comparison server; "shenzhen" is what the driver asks for.
pub fn weather(city: &str) -> String {
    let report = match city {
        "shenzhen" => "thunderstorms 30C",
        "beijing" => "sunny 22C",
        "london" => "drizzle 12C",
        "paris" => "cloudy 16C",
        "tokyo" => "clear 18C",
        _ => "unknown",
    };
    format!("{city}: {report}")
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct CityArgs {
    /// City name
    pub city: String,
}

/// The server: one tool, `get_weather(city)`.
#[derive(Debug, Clone)]
pub struct WeatherServer {
    // Read by the code #[tool_handler] generates.
    #[allow(dead_code)]
    tool_router: ToolRouter<Self>,
}

impl WeatherServer {
    pub fn new() -> Self {
        WeatherServer {
            tool_router: Self::tool_router(),
        }
    }
}

impl Default for WeatherServer {
    fn default() -> Self {
        Self::new()
    }
}

#[tool_router]
impl WeatherServer {
    #[tool(description = "Get the current weather for a city")]
    fn get_weather(&self, Parameters(CityArgs { city }): Parameters<CityArgs>) -> String {
        weather(&city)
    }
}

#[tool_handler]
impl ServerHandler for WeatherServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}
