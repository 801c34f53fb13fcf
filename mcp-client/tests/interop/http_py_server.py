"""A Python-SDK (FastMCP, `mcp` 1.30.0) server for the HTTP client interop tests.

Usage: python http_py_server.py streamable-http|streamable-http-json|sse
Binds 127.0.0.1 on a free port, prints "LISTENING <port>", serves until killed or until
its standard input closes. Streamable HTTP is at /mcp, HTTP+SSE at /sse (+ /messages/).
"""

import sys

from serve_local import serve
from mcp.server.fastmcp import Context, FastMCP


def build(json_response: bool) -> FastMCP:
    mcp = FastMCP("py-http-interop", host="127.0.0.1", json_response=json_response)

    @mcp.tool(description="Adds two numbers")
    def add(a: int, b: int) -> str:
        return str(a + b)

    @mcp.tool(description="Echoes the text")
    def echo(text: str) -> str:
        return text

    @mcp.tool(description="Reports progress, then answers")
    async def progress(steps: int, ctx: Context) -> str:
        for i in range(1, steps + 1):
            await ctx.report_progress(i, steps)
        return f"done {steps}"

    return mcp


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "streamable-http"
    mcp = build(json_response=(mode == "streamable-http-json"))
    app = mcp.sse_app() if mode == "sse" else mcp.streamable_http_app()
    serve(app)


if __name__ == "__main__":
    main()
