"""Drives the Rust test server with the official Python SDK client over stdio.

Usage: python py_client.py <server binary>
Prints "OK <summary>" on success; raises otherwise.
"""

import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import McpError


async def main(server_bin: str) -> None:
    logs = []
    progress = []

    async def on_log(params):
        logs.append(params)

    async def on_progress(value, total, message):
        progress.append(value)

    params = StdioServerParameters(command=server_bin, args=[])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, logging_callback=on_log) as session:
            init = await session.initialize()
            assert init.serverInfo.name == "mcp-test-server", init
            assert init.instructions == "A server for tests.", init
            assert init.capabilities.tools is not None

            tools = await session.list_tools()
            names = [t.name for t in tools.tools]
            assert {"echo", "add", "slow"} <= set(names), names

            echo = await session.call_tool("echo", {"text": "hi from python"})
            assert echo.content[0].text == "hi from python", echo
            add = await session.call_tool("add", {"a": 1, "b": 2})
            assert add.structuredContent == {"sum": 3.0}, add
            bad = await session.call_tool("add", {"a": "x"})
            assert bad.isError, bad
            fail = await session.call_tool("fail", {})
            assert fail.isError, fail

            res = await session.read_resource("test://static")
            assert res.contents[0].text == "hello from a static resource", res
            item = await session.read_resource("test://item/9")
            assert item.contents[0].text == "item 9", item
            try:
                await session.read_resource("test://nothing")
                raise AssertionError("reading a missing resource must fail")
            except McpError as e:
                assert e.error.code == -32002, e.error

            prompt = await session.get_prompt("greet", {"name": "Ada"})
            assert "Ada" in prompt.messages[0].content.text, prompt
            prompts = await session.list_prompts()
            assert prompts.prompts[0].name == "greet", prompts

            await session.set_logging_level("info")
            slow = await session.call_tool(
                "slow", {"steps": 3, "delay_ms": 20}, progress_callback=on_progress
            )
            assert slow.content[0].text == "done after 3 steps", slow
            await anyio.sleep(0.05)
            assert progress == [1.0, 2.0, 3.0], progress
            step_logs = [l for l in logs if str(l.data).startswith("slow: step")]
            assert len(step_logs) == 3, logs
    print(f"OK tools={len(names)} progress={len(progress)} logs={len(logs)}")


if __name__ == "__main__":
    anyio.run(main, sys.argv[1])
