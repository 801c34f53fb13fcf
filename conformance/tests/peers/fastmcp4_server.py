"""A FastMCP 4 server (PyPI `fastmcp`) for the conformance matrix (conformance/RESULTS.md).

    python fastmcp4_server.py            stdio
    python fastmcp4_server.py http       Streamable HTTP at /mcp on 127.0.0.1, a free port;
                                         prints "LISTENING <port>", ends when stdin closes

Tools: add {a, b} (structured output), slow {duration, steps} (the runner's slow-tool
convention, with progress). A resource, a template and a prompt with a required argument.
For unicode.round-trip: echo {message}, a resource whose URI is percent-encoded UTF-8 and a prompt
named grüße. For tools.dynamic-registration: trigger_tool_change shows the hidden tool `toggled` to the
calling session, or hides it again (FastMCP's session visibility, which sends
notifications/tools/list_changed).
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


@mcp.tool()
def toggled() -> str:
    """Appears and disappears with trigger_tool_change."""
    return "toggled"


mcp.disable(names={"toggled"})
# Whether `toggled` is shown now. Only tools.dynamic-registration calls the trigger, twice on one session,
# so one flag serves.
shown = False


@mcp.tool()
async def trigger_tool_change(ctx: Context) -> str:
    """Shows the tool `toggled` to this session when hidden, hides it when shown."""
    global shown
    shown = not shown
    if shown:
        await ctx.enable_components(names={"toggled"})
    else:
        await ctx.disable_components(names={"toggled"})
    return "changed"


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
