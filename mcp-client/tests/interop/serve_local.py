"""Serves an ASGI app for the interop tests: 127.0.0.1 on a free port, announced on stdout as
"LISTENING <port>", until killed or until standard input closes (so no server outlives its
test). Shared by the Python fixture servers of every SDK version."""

import os
import socket
import sys
import threading

import uvicorn


def serve(app) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))

    def watch_stdin() -> None:
        sys.stdin.read()
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    print(f"LISTENING {port}", flush=True)
    server.run(sockets=[sock])
