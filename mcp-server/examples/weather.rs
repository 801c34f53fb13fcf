//! A complete MCP server over stdio in a few dozen lines: shared state, one typed tool with
//! derived input and output schemas, a resource template, and a prompt. Run it under any MCP
//! client: `cargo run -p mcp-server --example weather`.

use std::sync::Arc;

use mcp_server::{Context, Json, Prompt, PromptArguments, ResourceRequest, ResourceTemplate};
use mcp_server::{Server, State, Tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What every handler shares: here, a fixed table of temperatures.
struct Readings {
    celsius: f64,
}

/// Which city to look up.
#[derive(Deserialize, JsonSchema)]
struct WeatherArgs {
    /// The city's name, e.g. "Oslo".
    city: String,
}

/// The current weather in a city.
#[derive(Serialize, JsonSchema)]
struct Weather {
    city: String,
    /// Temperature in degrees Celsius.
    celsius: f64,
}

async fn get_weather(
    State(readings): State<Arc<Readings>>,
    args: WeatherArgs,
    ctx: Context,
) -> Json<Weather> {
    ctx.progress(1.0, Some(1.0), Some("looked it up".into()))
        .await;
    Json(Weather {
        city: args.city,
        celsius: readings.celsius,
    })
}

#[tokio::main]
async fn main() {
    Server::builder("weather", "1.0.0")
        .instructions("Ask get_weather for temperatures.")
        .state(Arc::new(Readings { celsius: 21.5 }))
        .tool(Tool::new("get_weather", "Current temperature in a city"), get_weather)
        .resource_template(
            ResourceTemplate::new("weather://{city}", "city weather").mime_type("text/plain"),
            |req: ResourceRequest, State(readings): State<Arc<Readings>>| async move {
                let city = req.var("city").unwrap_or("nowhere");
                format!("{city}: {} °C", readings.celsius)
            },
        )
        .prompt(
            Prompt::new("packing", "What to pack").argument("city", "Destination", true),
            |args: PromptArguments| async move { format!("What should I pack for {}?", args["city"]) },
        )
        .build()
        .serve_stdio()
        .await;
}
