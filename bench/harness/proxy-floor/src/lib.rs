//! What `bench/proxy.sh` measures `mcp proxy` against: `byte-relay`, a process that copies
//! bytes between its stdio and a child's, and `raw-proxy`, one that reads every message once.
//! Both start the server the same way.

use std::process::{exit, Child, ChildStdin, ChildStdout, Command, Stdio};

/// Starts `program` with `args` on pipes, or exits with a message naming `who`.
pub fn spawn_piped(
    who: &str,
    program: &str,
    args: impl Iterator<Item = String>,
) -> (Child, ChildStdin, ChildStdout) {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            eprintln!("{who}: cannot start {program:?}: {e}");
            exit(1);
        });
    let (Some(child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take()) else {
        eprintln!("{who}: the child has no pipes");
        exit(1);
    };
    (child, child_in, child_out)
}
