//! Running `mcp ui` in a test: started with `--no-open`, its printed URL read, and stopped with
//! SIGTERM (then killed) when dropped.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use super::mcp_in;

/// `mcp ui` running, stopped (SIGTERM, then kill) when dropped.
pub struct Ui(Child);

impl Drop for Ui {
    fn drop(&mut self) {
        if let Some(pid) = rustix::process::Pid::from_raw(self.0.id() as i32) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        }
        let deadline = Instant::now() + Duration::from_secs(8);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `mcp ui --no-open` and reads the URL it prints (within 60 s).
pub fn start_ui(home: &Path, config: &Path) -> (Ui, String) {
    let mut command = mcp_in(
        home,
        &["--config", &config.to_string_lossy(), "ui", "--no-open"],
    );
    command.stdout(Stdio::piped()).stderr(Stdio::inherit());
    let mut child = command.spawn().expect("start mcp ui");
    let stdout = child.stdout.take().expect("stdout");
    let ui = Ui(child);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("mcp ui: ") {
                let _ = tx.send(url.to_owned());
            }
        }
    });
    let url = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("mcp ui prints its URL");
    (ui, url)
}
