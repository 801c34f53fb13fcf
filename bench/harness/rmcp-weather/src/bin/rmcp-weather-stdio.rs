//! The weather server over rmcp's `transport::stdio()` (tokio's Stdin and Stdout), as rmcp's
//! README serves stdio.
use rmcp::{transport::stdio, ServiceExt};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    rmcp_weather::WeatherServer::new()
        .serve(stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}
