//! An rmcp 3.11 server written the way rmcp's README writes one, for the conformance matrix.
//!
//!     rmcp-conformance-peer            stdio
//!     rmcp-conformance-peer http       Streamable HTTP at /mcp on 127.0.0.1, a free port;
//!                                      prints "LISTENING <port>", ends when stdin closes
//!
//! Tools: add {a, b}; slow {duration, steps} (the runner's slow-tool convention), which reports
//! progress when the request carries a progress token.
use std::time::Duration;

use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{ProgressNotificationParam, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::{
    session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use rmcp::{schemars, tool, tool_handler, tool_router, RoleServer, ServerHandler, ServiceExt};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct AddArgs {
    /// The first addend
    a: i64,
    /// The second addend
    b: i64,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct SlowArgs {
    /// Seconds of work
    duration: f64,
    /// Progress steps
    #[serde(default = "four")]
    steps: u32,
}

fn four() -> u32 {
    4
}

#[derive(Debug, Clone)]
struct Peer {
    #[allow(dead_code)]
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Peer {
    #[tool(description = "Adds two integers", annotations(read_only_hint = true))]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        (a + b).to_string()
    }

    #[tool(description = "Works for `duration` seconds in `steps` steps, reporting progress")]
    async fn slow(
        &self,
        Parameters(SlowArgs { duration, steps }): Parameters<SlowArgs>,
        context: RequestContext<RoleServer>,
    ) -> String {
        let steps = steps.max(1);
        let token = context.meta.get_progress_token();
        for i in 1..=steps {
            tokio::time::sleep(Duration::from_secs_f64(
                duration.max(0.0) / f64::from(steps),
            ))
            .await;
            if let Some(token) = &token {
                let param = ProgressNotificationParam::new(token.clone(), f64::from(i))
                    .with_total(f64::from(steps));
                let _ = context.peer.notify_progress(param).await;
            }
        }
        "done".to_owned()
    }
}

#[tool_handler]
impl ServerHandler for Peer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

fn peer() -> Peer {
    Peer {
        tool_router: Peer::tool_router(),
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    if std::env::args().nth(1).as_deref() != Some("http") {
        peer()
            .serve(rmcp::transport::stdio())
            .await?
            .waiting()
            .await?;
        return Ok(());
    }
    let service: StreamableHttpService<Peer, LocalSessionManager> = StreamableHttpService::new(
        || Ok(peer()),
        Default::default(),
        StreamableHttpServerConfig::default(),
    );
    let app = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
    println!("LISTENING {}", listener.local_addr()?.port());
    // Ends when standard input closes, so no server outlives the run that started it.
    tokio::spawn(async {
        let mut sink = Vec::new();
        let _ = tokio::io::AsyncReadExt::read_to_end(&mut tokio::io::stdin(), &mut sink).await;
        std::process::exit(0);
    });
    axum::serve(listener, app).await?;
    Ok(())
}
