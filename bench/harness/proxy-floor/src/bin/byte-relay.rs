//! `byte-relay CMD [ARGS...]`: runs CMD and copies bytes between this process's stdio and the
//! child's, one blocking thread per direction, parsing nothing. What a stdio proxy costs at the
//! least: one more process, so two more wake-ups and four more system calls per round trip.
//! `bench/proxy.sh` measures it beside `mcp proxy` as the floor of the proxy's overhead.

use std::io::{self, Read, Write};
use std::process::exit;
use std::thread;

use proxy_floor::spawn_piped;

/// Copies until `from` ends, flushing after every read so nothing waits in a buffer.
fn pump(mut from: impl Read, mut to: impl Write) -> io::Result<()> {
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = from.read(&mut buffer)?;
        if n == 0 {
            return Ok(());
        }
        to.write_all(&buffer[..n])?;
        to.flush()?;
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(program) = args.next() else {
        eprintln!("usage: byte-relay CMD [ARGS...]");
        exit(2);
    };
    let (mut child, child_in, child_out) = spawn_piped("byte-relay", &program, args);
    // Our stdin to the child; its end closes the child's stdin, so the child exits and its
    // stdout ends. Not joined: should the child die first, that thread waits on our stdin.
    thread::spawn(move || pump(io::stdin().lock(), child_in));
    let downstream = pump(child_out, io::stdout().lock());
    let status = child.wait().map(|s| s.code().unwrap_or(1)).unwrap_or(1);
    if let Err(e) = downstream {
        eprintln!("byte-relay: {e}");
    }
    exit(status);
}
