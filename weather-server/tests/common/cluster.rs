//! The scale-out harness `scale_out.rs` and `scale_sessions.rs` share: weather-server replicas
//! on fixed loopback ports sharing one Redis under a key prefix unique to the test, and a real
//! nginx in front of them (round robin, no stickiness, SSE unbuffered; `scripts/nginx.sh`
//! installs it when missing), each a child of the test.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::net::TcpStream;
use tokio::process::{Child, Command};

use super::{bounded, free_port, spawn_server, CLOCK};

/// The Redis every test machine runs; tests keep their keys under [`unique_prefix`].
pub const SHARED_REDIS: &str = "redis://127.0.0.1:6379";

/// A key prefix no other test (or run) uses: `test:<file>:<test>:<pid>:<nanos>:`.
pub fn unique_prefix(file: &str, test: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("test:{file}:{test}:{}:{nanos}:", std::process::id())
}

/// Deletes every key under `prefix` in the shared Redis (which is never flushed).
pub fn forget(prefix: &str) {
    let script = format!(
        "redis-cli --scan --pattern '{prefix}*' | xargs -r -n 500 redis-cli DEL >/dev/null"
    );
    let _ = std::process::Command::new("bash")
        .arg("-c")
        .arg(script)
        .status();
}

/// Waits until something accepts connections on `port` (bounded: 10 s).
pub async fn wait_for_port(port: u16, what: &str) {
    for _ in 0..200 {
        if TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{what} never listened on {port}");
}

/// Raises the soft limit on open files of process `pid` to `want` (at most its hard limit) when
/// it is lower, with util-linux's `prlimit`. A soft limit of 1,024 (a common default) is too
/// few for 1,000 clients at once: nginx then fails `accept4()` and `socket()` with EMFILE (its
/// `worker_rlimit_nofile` does not apply with `master_process off`), and the test itself holds
/// one socket per client.
pub fn raise_open_files(pid: u32, want: u64) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap_or_default();
    let Some((soft, hard)) = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .and_then(|l| {
            let mut fields = l.split_whitespace().skip(3);
            let soft = fields.next()?.parse::<u64>().ok()?;
            let hard = fields.next()?;
            Some((soft, hard.parse::<u64>().unwrap_or(u64::MAX)))
        })
    else {
        return;
    };
    let target = want.min(hard);
    if soft >= target {
        return;
    }
    let raised = std::process::Command::new("prlimit")
        .args(["--pid", &pid.to_string(), &format!("--nofile={target}:")])
        .status();
    if !matches!(raised, Ok(s) if s.success()) {
        eprintln!("could not raise the open-file limit of {pid} from {soft} to {target}");
    }
}

/// One weather-server replica on a fixed port (so nginx finds it again after a restart).
pub struct Replica {
    pub port: u16,
    args: Vec<String>,
    child: Option<Child>,
}

impl Replica {
    /// Starts `weather-server --clock CLOCK --http 127.0.0.1:PORT --redis URL --redis-prefix P
    /// extra...` and waits until it listens.
    pub async fn start(port: u16, redis_url: &str, prefix: &str, extra: &[&str]) -> Replica {
        let mut args: Vec<String> = vec!["--clock".into(), CLOCK.into()];
        args.extend(["--http".into(), format!("127.0.0.1:{port}")]);
        args.extend(["--redis".into(), redis_url.into()]);
        args.extend(["--redis-prefix".into(), prefix.into()]);
        args.extend(extra.iter().map(|s| s.to_string()));
        let mut replica = Replica {
            port,
            args,
            child: None,
        };
        replica.restart().await;
        replica
    }

    /// Its address, to talk to it without nginx.
    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// Starts it again (after [`kill`](Self::kill)) with the same arguments and port.
    pub async fn restart(&mut self) {
        self.child = Some(spawn_server(&self.args));
        wait_for_port(self.port, "a weather-server replica").await;
    }

    /// SIGKILL: no goodbye to anyone.
    pub async fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill().await;
            let _ = child.wait().await;
        }
    }

    /// Resident memory, in KiB (Linux).
    pub fn rss_kib(&self) -> u64 {
        let Some(pid) = self.child.as_ref().and_then(Child::id) else {
            return 0;
        };
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("VmRSS:"))
                    .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            })
            .unwrap_or(0)
    }
}

/// How nginx treats a request whose replica fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Upstream {
    /// nginx's defaults: a POST is never sent to a second replica.
    Plain,
    /// A request whose replica refused it or did not accept the connection within 1 s is
    /// retried on the next one, POSTs included (`non_idempotent`: fine for calls without side
    /// effects, as in the failover tests).
    Failover,
}

/// nginx in front of replicas, as a child of the test with its own prefix directory. Every
/// response names the replica(s) that served it in `X-Upstream` (nginx's `$upstream_addr`: two
/// addresses when it retried).
pub struct Nginx {
    pub port: u16,
    child: Child,
    dir: PathBuf,
}

impl Nginx {
    /// Starts nginx on a free port in front of `upstreams` and waits until it listens.
    pub async fn start(upstreams: &[u16], upstream: Upstream) -> Nginx {
        // One install at a time: the tests of a file start in parallel, and two apt-gets would
        // fight over dpkg's lock on a machine without nginx.
        static INSTALL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/nginx.sh");
        let out = {
            let _one = INSTALL.lock().await;
            Command::new("bash")
                .arg(script)
                .stderr(Stdio::inherit())
                .output()
                .await
                .expect("scripts/nginx.sh runs")
        };
        assert!(out.status.success(), "scripts/nginx.sh failed");
        let bin = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        let port = free_port();
        let dir = std::env::temp_dir().join(format!("scale-nginx-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("nginx dir");
        let servers: String = upstreams
            .iter()
            .map(|p| format!("    server 127.0.0.1:{p} max_fails=0;\n"))
            .collect();
        let failover = match upstream {
            Upstream::Plain => "",
            Upstream::Failover => {
                "      proxy_connect_timeout 1s;
      proxy_next_upstream error timeout non_idempotent;
"
            }
        };
        let d = dir.display();
        // Each request in flight holds two connections (client and upstream): 8,192 is room for
        // 4,000 clients at once; the listen backlog takes a burst of them.
        let config = format!(
            "worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log crit;
events {{ worker_connections 8192; }}
http {{
  access_log off;
  client_body_temp_path {d}/body;
  proxy_temp_path {d}/proxy;
  fastcgi_temp_path {d}/fastcgi;
  uwsgi_temp_path {d}/uwsgi;
  scgi_temp_path {d}/scgi;
  upstream weather {{
{servers}    keepalive 64;
  }}
  server {{
    listen 127.0.0.1:{port} backlog=4096;
    location / {{
      proxy_pass http://weather;
      proxy_http_version 1.1;
      proxy_set_header Connection \"\";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_cache off;
      proxy_read_timeout 300s;
{failover}      add_header X-Upstream $upstream_addr always;
    }}
  }}
}}
"
        );
        let conf = dir.join("nginx.conf");
        std::fs::write(&conf, config).expect("write nginx.conf");
        let child = Command::new(bin)
            .arg("-p")
            .arg(&dir)
            .arg("-e")
            .arg(dir.join("error.log"))
            .arg("-c")
            .arg(&conf)
            // One process, no workers: a test that dies (SIGKILL on drop) leaves nothing behind.
            .args(["-g", "daemon off; master_process off;"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("nginx starts");
        // Two descriptors per client in flight (see `raise_open_files`).
        if let Some(pid) = child.id() {
            raise_open_files(pid, 8192 + 64);
        }
        wait_for_port(port, "nginx").await;
        Nginx { port, child, dir }
    }

    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// SIGTERM (a clean exit), then SIGKILL if it lingers; its directory goes too.
    pub async fn stop(mut self) {
        if let Some(pid) = self.child.id() {
            let _ = std::process::Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .status();
            let _ = bounded(10, "nginx stops", self.child.wait()).await;
        }
        let _ = self.child.kill().await;
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Three replicas sharing `redis_url` under `prefix`, each with arguments `all`, replica 0 with
/// `first` too, and nginx in front of them.
pub async fn replicas(
    redis_url: &str,
    prefix: &str,
    all: &[&str],
    first: &[&str],
    upstream: Upstream,
) -> (Vec<Replica>, Nginx) {
    let mut replicas = Vec::new();
    for i in 0..3 {
        let mut args = all.to_vec();
        if i == 0 {
            args.extend_from_slice(first);
        }
        replicas.push(Replica::start(free_port(), redis_url, prefix, &args).await);
    }
    let ports: Vec<u16> = replicas.iter().map(|r| r.port).collect();
    let nginx = Nginx::start(&ports, upstream).await;
    (replicas, nginx)
}
