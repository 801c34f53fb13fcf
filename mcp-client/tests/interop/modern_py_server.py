"""A Python `mcp` 2.x server (MCPServer) for the 2026-07-28 interop tests of our client.

    python modern_py_server.py stdio   serves stdin/stdout (the era is chosen per request)
    python modern_py_server.py http    Streamable HTTP at /mcp on 127.0.0.1, a free port;
                                       prints "LISTENING <port>", ends when stdin closes

Tools: echo {message}; confirm {action}, which asks the user (elicitation, through
`input_required` under 2026-07-28) whether to go on. Prompt greet {name}; resource note://hello.
"""

import sys
from typing import Annotated

from pydantic import BaseModel
from serve_local import serve
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve


class Confirmation(BaseModel):
    confirm: bool


def ask(action: str) -> Elicit[Confirmation]:
    return Elicit(f"Really {action}?", Confirmation)


def build() -> MCPServer:
    mcp = MCPServer("py-modern", version="2.3.0")

    @mcp.tool()
    def echo(message: str) -> str:
        """Echoes its message."""
        return f"echo: {message}"

    @mcp.tool()
    def confirm(action: str, answer: Annotated[Confirmation, Resolve(ask)]) -> str:
        """Asks the user before it acts."""
        return f"{action}: {'done' if answer.confirm else 'skipped'}"

    @mcp.prompt()
    def greet(name: str) -> str:
        """Greets someone."""
        return f"Hello, {name}!"

    @mcp.resource("note://hello", mime_type="text/plain")
    def hello() -> str:
        return "hello from py"

    return mcp


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    mcp = build()
    if mode == "stdio":
        mcp.run("stdio")
        return
    app = mcp.streamable_http_app()
    serve(app)


if __name__ == "__main__":
    main()
