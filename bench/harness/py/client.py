"""The client side with the Python SDK: spawns a stdio server, initializes a ClientSession and
makes N sequential get_weather calls; prints one JSON line.

usage: python client.py N COMMAND [ARGS...]"""

import asyncio
import json
import os
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def failed(result):
    # mcp 2.x names the flag is_error, mcp 1.x isError.
    flag = result.is_error if hasattr(result, "is_error") else result.isError
    return bool(flag) or "thunderstorms" not in result.content[0].text


async def run(n, command, args):
    started = time.perf_counter()
    server = StdioServerParameters(command=command, args=args)
    latencies, errors = [], 0
    with open(os.devnull, "w") as quiet:
        async with stdio_client(server, errlog=quiet) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                init_us = int((time.perf_counter() - started) * 1e6)
                calls_started = time.perf_counter()
                for _ in range(n):
                    sent = time.perf_counter()
                    result = await session.call_tool("get_weather", {"city": "shenzhen"})
                    latencies.append((time.perf_counter() - sent) * 1e6)
                    errors += failed(result)
                elapsed = time.perf_counter() - calls_started
    latencies.sort()

    def quantile(q):
        return round(latencies[round((len(latencies) - 1) * q)])

    return {"client": "python-sdk", "n": n, "init_us": init_us, "elapsed_s": round(elapsed, 4),
            "calls_per_s": round(n / elapsed, 1), "p50_us": quantile(0.5),
            "p99_us": quantile(0.99), "errors": errors}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    line = asyncio.run(run(int(sys.argv[1]), sys.argv[2], sys.argv[3:]))
    print(json.dumps(line))
    sys.exit(2 if line["errors"] else 0)


if __name__ == "__main__":
    main()
