"""A FastMCP 4 server (PyPI `fastmcp`) for the conformance matrix (conformance/RESULTS.md).

    python fastmcp4_server.py            stdio
    python fastmcp4_server.py http       Streamable HTTP at /mcp on 127.0.0.1, a free port;
                                         prints "LISTENING <port>", ends when stdin closes

Tools: add {a, b} (structured output), slow {duration, steps} (the runner's slow-tool
convention, with progress). A resource, a template and a prompt with a required argument.
"""

import asyncio
import os
import socket
import sys
import threading

from fastmcp import Context, FastMCP

mcp = FastMCP("conformance-fastmcp4")


@mcp.tool(annotations={"readOnlyHint": True})
def add(a: int = 1, b: int = 2) -> int:
    """Adds two integers."""
    return a + b


@mcp.tool(annotations={"readOnlyHint": True})
async def slow(ctx: Context, duration: float = 1.0, steps: int = 4) -> str:
    """Works for `duration` seconds in `steps` steps, reporting progress."""
    steps = max(1, steps)
    for i in range(1, steps + 1):
        await asyncio.sleep(duration / steps)
        await ctx.report_progress(i, steps)
    return "done"


@mcp.resource("note://one", mime_type="text/plain")
def note_one() -> str:
    """The first note."""
    return "one"


@mcp.resource("note://{name}")
def note(name: str) -> str:
    """A note by name."""
    return f"note {name}"


@mcp.prompt()
def greet(who: str) -> str:
    """Greets someone."""
    return f"Hello, {who}!"


def serve_http() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()

    def watch_stdin() -> None:
        sys.stdin.read()
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    print(f"LISTENING {port}", flush=True)
    mcp.run(transport="http", host="127.0.0.1", port=port, path="/mcp", show_banner=False)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "http":
        serve_http()
    else:
        mcp.run(show_banner=False)
