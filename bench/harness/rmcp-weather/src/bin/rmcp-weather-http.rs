//! The weather server over rmcp's Streamable HTTP service, mounted at /mcp in axum.
//!
//!     rmcp-weather-http PORT [stateful|stateless] [nodelay|default]      (binds 127.0.0.1)
//!
//! stateless: no sessions, JSON answers where possible. nodelay (the default) sets TCP_NODELAY on
//! every accepted socket, which `axum::serve` does not do on its own; `default` leaves Nagle on.
use rmcp::transport::streamable_http_server::{
    session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use rmcp_weather::WeatherServer;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let port: u16 = args.next().map_or(Ok(8001), |p| p.parse())?;
    let stateless = args.next().as_deref() == Some("stateless");
    let nodelay = args.next().as_deref() != Some("default");

    let mut config = StreamableHttpServerConfig::default();
    if stateless {
        config = config
            .with_legacy_session_mode(false)
            .with_json_response(true);
    }
    let service: StreamableHttpService<WeatherServer, LocalSessionManager> =
        StreamableHttpService::new(|| Ok(WeatherServer::new()), Default::default(), config);
    let app = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("rmcp-weather-http: 127.0.0.1:{port}, stateless={stateless}, nodelay={nodelay}");
    if nodelay {
        use axum::serve::ListenerExt;
        let listener = listener.tap_io(|socket| {
            let _ = socket.set_nodelay(true);
        });
        axum::serve(listener, app).await?;
    } else {
        axum::serve(listener, app).await?;
    }
    Ok(())
}
