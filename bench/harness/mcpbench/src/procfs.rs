//! What /proc says about a process: CPU time, memory high-water marks, children.

use crate::line::Line;

/// A field of /proc/PID/status in KiB (e.g. "VmHWM").
pub fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|l| {
        let value = l.strip_prefix(field)?.strip_prefix(':')?;
        value.split_whitespace().next()?.parse().ok()
    })
}

/// The fields of /proc/PID/stat after the command name (field 3, the state, is index 0).
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    Some(after_name.split_whitespace().map(str::to_owned).collect())
}

/// User plus system CPU time of every thread of PID so far, in microseconds. The kernel counts it
/// in ticks of 1/100 s (USER_HZ), so it is exact to 10 ms.
pub fn cpu_us(pid: u32) -> Option<u64> {
    let f = stat_fields(pid)?;
    let user: u64 = f.get(11)?.parse().ok()?; // utime, field 14
    let system: u64 = f.get(12)?.parse().ok()?; // stime, field 15
    Some((user + system) * 10_000)
}

/// Every process below ROOT (children, their children, ...).
pub fn descendants(root: u32) -> Vec<u32> {
    let mut parent_of = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some(ppid) = stat_fields(pid).and_then(|f| f.get(1)?.parse::<u32>().ok()) {
            parent_of.push((pid, ppid));
        }
    }
    let mut found = Vec::new();
    let mut queue = vec![root];
    while let Some(parent) = queue.pop() {
        for &(pid, ppid) in &parent_of {
            if ppid == parent && !found.contains(&pid) {
                found.push(pid);
                queue.push(pid);
            }
        }
    }
    found
}

/// CPU readings of the server and of this driver at the start of a measured window.
pub struct CpuWindow {
    server: Option<(u32, u64)>,
    driver: Option<u64>,
}

impl CpuWindow {
    pub fn open(server: Option<u32>) -> Self {
        CpuWindow {
            server: server.and_then(|pid| Some((pid, cpu_us(pid)?))),
            driver: cpu_us(std::process::id()),
        }
    }

    /// srv_cpu_s, srv_cpu_us_per_call, drv_cpu_us_per_call over CALLS calls, where readable.
    pub fn close(self, calls: usize, line: Line) -> Line {
        let calls = calls.max(1) as f64;
        let server = self
            .server
            .and_then(|(pid, before)| Some(cpu_us(pid)?.saturating_sub(before)));
        let driver = self
            .driver
            .and_then(|before| Some(cpu_us(std::process::id())?.saturating_sub(before)));
        line.with(|l| match server {
            Some(us) => l.real("srv_cpu_s", us as f64 / 1e6, 3).real(
                "srv_cpu_us_per_call",
                us as f64 / calls,
                2,
            ),
            None => l,
        })
        .with(|l| match driver {
            Some(us) => l.real("drv_cpu_us_per_call", us as f64 / calls, 2),
            None => l,
        })
    }
}

/// The memory line: peak and current RSS of PID, and the peak of it plus its descendants.
pub fn print_memory(label: &str, transport: &str, pid: u32) {
    let peak = status_kib(pid, "VmHWM").unwrap_or(0);
    let now = status_kib(pid, "VmRSS").unwrap_or(0);
    let children = descendants(pid);
    let tree = peak
        + children
            .iter()
            .map(|&c| status_kib(c, "VmHWM").unwrap_or(0))
            .sum::<u64>();
    Line::new(label)
        .text("transport", transport)
        .text("metric", "rss")
        .int("pid", pid.into())
        .int("vmhwm_kib", peak)
        .int("vmrss_kib", now)
        .real("vmhwm_mib", peak as f64 / 1024.0, 1)
        .int("descendants", children.len() as u64)
        .real("tree_vmhwm_mib", tree as f64 / 1024.0, 1)
        .print();
}
