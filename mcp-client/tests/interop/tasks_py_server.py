"""A Python `mcp` 1.x (experimental tasks, 2025-11-25) server over stdio for the client's task
tests; the same tools as tasks_ts_server.cjs:
  count   {steps, delayMs}  taskSupport optional: counts, a status message (and progress under
                            the call's token) per step, answers "counted N"
  forever {}                taskSupport required: works until cancelled
  ask     {}                taskSupport required: asks for a name (elicitation through the task,
                            delivered on tasks/result), answers "hello NAME"
  plain   {}                no task support: answers "plain"
Usage: python tasks_py_server.py
"""

import anyio

import mcp.types as types
from mcp.server.experimental.task_context import ServerTaskContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

server = Server("py-tasks-interop")
support = server.experimental.enable_tasks()


def text(value: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=value)])


async def cancelled(task: ServerTaskContext) -> bool:
    if task.is_cancelled:
        return True
    current = await support.store.get_task(task.task_id)
    return current is None or current.status == "cancelled"


async def stay_cancelled() -> types.CallToolResult:
    # run_task stores whatever the work returns (or fails it when it raises), and either on a
    # cancelled task raises in the SDK's task group, which ends the whole server (mcp 1.30):
    # a cancelled work never returns.
    await anyio.sleep_forever()
    return text("unreachable")


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    def tool(name, description, schema, mode):
        execution = types.ToolExecution(taskSupport=mode) if mode else None
        return types.Tool(name=name, description=description, inputSchema=schema, execution=execution)

    empty = {"type": "object", "properties": {}}
    count_schema = {
        "type": "object",
        "properties": {"steps": {"type": "number"}, "delayMs": {"type": "number"}},
        "required": ["steps", "delayMs"],
    }
    return [
        tool("count", "Counts to steps, one step every delayMs", count_schema, "optional"),
        tool("forever", "Works until cancelled", empty, "required"),
        tool("ask", "Asks the client for a name", empty, "required"),
        tool("plain", "Not a task", empty, None),
    ]


@server.call_tool()
async def call_tool(name: str, arguments: dict):
    ctx = server.request_context
    if name == "plain":
        return [types.TextContent(type="text", text="plain")]
    token = ctx.meta.progressToken if ctx.meta else None
    session = ctx.session

    if name == "count":
        steps = int(arguments.get("steps", 1))
        delay = float(arguments.get("delayMs", 10)) / 1000

        async def work(task: ServerTaskContext) -> types.CallToolResult:
            for i in range(1, steps + 1):
                await anyio.sleep(delay)
                if await cancelled(task):
                    return await stay_cancelled()
                await task.update_status(f"step {i} of {steps}")
                if token is not None:
                    await session.send_progress_notification(token, i, steps)
            return text(f"counted {steps}")

        if not ctx.experimental.is_task:
            return (await work_without_task(steps, delay)).content
        return await ctx.experimental.run_task(work)

    if name == "forever":

        async def forever(task: ServerTaskContext) -> types.CallToolResult:
            for _ in range(6000):
                await anyio.sleep(0.02)
                if await cancelled(task):
                    return await stay_cancelled()
            return text("gave up waiting to be cancelled")

        return await ctx.experimental.run_task(forever)

    if name == "ask":

        async def ask(task: ServerTaskContext) -> types.CallToolResult:
            answer = await task.elicit(
                message="What is your name?",
                requestedSchema={
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                    "required": ["name"],
                },
            )
            who = answer.content.get("name") if answer.action == "accept" and answer.content else "nobody"
            return text(f"hello {who}")

        return await ctx.experimental.run_task(ask)

    raise ValueError(f"unknown tool {name}")


async def work_without_task(steps: int, delay: float) -> types.CallToolResult:
    for _ in range(steps):
        await anyio.sleep(delay)
    return text(f"counted {steps}")


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
