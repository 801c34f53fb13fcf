"""A Python SDK 2.x server (PyPI `mcp`, its `MCPServer`) for the conformance matrix
(conformance/RESULTS.md). Dual-era: the 2025 handshake and 2026-07-28 requests.

    python py2_server.py            stdio
    python py2_server.py http       Streamable HTTP at /mcp on 127.0.0.1, a free port;
                                    prints "LISTENING <port>", ends when stdin closes

Tools: add {a, b}; slow {duration, steps} (the runner's slow-tool convention, with progress).
Prompt greet {who}; resource note://one; template note://{name}.
For unicode.round-trip: tool echo {message}; resource note://caf%C3%A9%20%E2%98%95 (percent-encoded
UTF-8); prompt grüße.
"""

import asyncio
import os
import socket
import sys
import threading

from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer("conformance-py2", version="2.3.0")


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


@mcp.tool(annotations={"readOnlyHint": True})
def echo(message: str) -> str:
    """Echoes its message back."""
    return f"Echo: {message}"


@mcp.resource("note://caf%C3%A9%20%E2%98%95", mime_type="text/plain")
def note_unicode() -> str:
    """A note whose URI is percent-encoded UTF-8 (café ☕)."""
    return "Café ☕"


@mcp.prompt(name="grüße")
def gruesse() -> str:
    """A prompt whose name is not ASCII."""
    return "Grüße! ☕"


def serve_http() -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)

    def watch_stdin() -> None:
        sys.stdin.read()
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    print(f"LISTENING {sock.getsockname()[1]}", flush=True)
    server = uvicorn.Server(uvicorn.Config(mcp.streamable_http_app(), log_level="warning"))
    server.run(sockets=[sock])


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "http":
        serve_http()
    else:
        mcp.run("stdio")
