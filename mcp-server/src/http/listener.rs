//! The listening socket: bound with a deep accept queue.
//!
//! std and tokio listen with a backlog of 128. A load balancer that opens hundreds of upstream
//! connections at once (nginx in front of three replicas, 1,000 clients talking together) fills
//! that queue faster than one accept loop drains it; the kernel then drops the SYNs, and each
//! dropped client tries again only after its one-second SYN timeout, which is also nginx's
//! usual `proxy_connect_timeout`: the request fails with 504 or moves to another replica.

use std::io;
use std::net::SocketAddr;

use tokio::net::{lookup_host, TcpListener, TcpSocket, ToSocketAddrs};

/// The listen backlog of [`listen`]; the kernel caps it at `net.core.somaxconn` (4096 by default
/// since Linux 5.4).
pub const LISTEN_BACKLOG: u32 = 1024;

/// Binds the first address of `addr` that works and listens with [`LISTEN_BACKLOG`]
/// (`SO_REUSEADDR` on, as tokio's own `TcpListener::bind` does).
pub async fn listen<A: ToSocketAddrs>(addr: A) -> io::Result<TcpListener> {
    let mut last = None;
    for addr in lookup_host(addr).await? {
        match listen_on(addr) {
            Ok(listener) => return Ok(listener),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "the address resolved to nothing",
        )
    }))
}

fn listen_on(addr: SocketAddr) -> io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn listens_with_the_deep_backlog() {
        let listener = listen("127.0.0.1:0").await.expect("listen");
        let port = listener.local_addr().expect("addr").port();
        // iproute2's `ss` shows a listening socket's backlog as its Send-Q.
        let out = std::process::Command::new("ss")
            .args(["-ltnH", &format!("sport = :{port}")])
            .output()
            .expect("ss (iproute2) runs");
        let shown = String::from_utf8_lossy(&out.stdout);
        let backlog = shown
            .split_whitespace()
            .nth(2)
            .and_then(|q| q.parse::<u32>().ok());
        let somaxconn = std::fs::read_to_string("/proc/sys/net/core/somaxconn")
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok())
            .unwrap_or(LISTEN_BACKLOG);
        assert_eq!(backlog, Some(LISTEN_BACKLOG.min(somaxconn)), "{shown}");
    }

    #[tokio::test]
    async fn reports_an_address_in_use() {
        let first = listen("127.0.0.1:0").await.expect("listen");
        let addr = first.local_addr().expect("addr");
        let err = listen(addr).await.expect_err("the port is taken");
        assert_eq!(err.kind(), io::ErrorKind::AddrInUse);
    }
}
