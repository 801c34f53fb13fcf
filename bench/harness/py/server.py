"""The Python SDK's weather server, one file for both SDK lines the benchmark compares.

usage: python server.py stdio
       python server.py http PORT [stateful|stateless]        (binds 127.0.0.1)

With mcp 1.x this is mcp.server.fastmcp.FastMCP; mcp 2.x renamed it mcp.server.mcpserver.MCPServer
(the same decorator API, but host, port and stateless mode move from the constructor to run())."""

import sys

try:
    from mcp.server.fastmcp import FastMCP as Server  # mcp 1.x

    SDK_2 = False
except ModuleNotFoundError:
    from mcp.server.mcpserver import MCPServer as Server  # mcp 2.x

    SDK_2 = True

REPORTS = {
    "shenzhen": "thunderstorms 30C",
    "beijing": "sunny 22C",
    "london": "drizzle 12C",
    "paris": "cloudy 16C",
    "tokyo": "clear 18C",
}

transport = sys.argv[1] if len(sys.argv) > 1 else "stdio"
port = int(sys.argv[2]) if len(sys.argv) > 2 else 8003
stateless = len(sys.argv) > 3 and sys.argv[3] == "stateless"

if SDK_2:
    server = Server("py-weather")
else:
    server = Server("py-weather", host="127.0.0.1", port=port, stateless_http=stateless)


@server.tool()
def get_weather(city: str) -> str:
    """Get the current weather for a city"""
    return f"{city}: {REPORTS.get(city, 'unknown')}"


def main():
    if transport == "stdio":
        server.run()
    elif SDK_2:
        server.run("streamable-http", host="127.0.0.1", port=port, stateless_http=stateless)
    else:
        server.run(transport="streamable-http")


if __name__ == "__main__":
    main()
