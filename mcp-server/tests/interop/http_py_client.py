"""Drives our HTTP server with the official Python SDK client (mcp 1.x).

usage: python http_py_client.py streamable|sse URL
Prints one JSON line with what it saw; exits non-zero on any failure.
"""
import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamablehttp_client


async def exercise(session: ClientSession) -> dict:
    init = await session.initialize()
    tools = await session.list_tools()
    assert any(t.name == "echo" for t in tools.tools), tools
    echo = await session.call_tool("echo", {"text": "py"})
    assert echo.content[0].text == "py", echo
    progress = []

    async def on_progress(p, total, message):
        progress.append(p)

    done = await session.call_tool("progress", {}, progress_callback=on_progress)
    assert done.content[0].text == "done", done
    await session.send_ping()
    return {"version": init.protocolVersion, "tools": [t.name for t in tools.tools], "progress": progress}


async def main(mode: str, url: str) -> None:
    if mode == "sse":
        async with sse_client(url) as (read, write):
            async with ClientSession(read, write) as session:
                out = await exercise(session)
    else:
        async with streamablehttp_client(url) as (read, write, get_session_id):
            async with ClientSession(read, write) as session:
                out = await exercise(session)
                out["sessionId"] = get_session_id()
    out["mode"] = mode
    print(json.dumps(out))


asyncio.run(asyncio.wait_for(main(sys.argv[1], sys.argv[2]), 20))
