//! The weather server over rmcp's `transport::stdio_pipes()`: stdin and stdout as non-blocking
//! pipes on tokio's reactor instead of a blocking-pool hop for every read and write.
use rmcp::{transport::stdio_pipes, ServiceExt};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    rmcp_weather::WeatherServer::new()
        .serve(stdio_pipes())
        .await?
        .waiting()
        .await?;
    Ok(())
}
