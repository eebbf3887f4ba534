"""One uvicorn worker serving an inherited listening socket (used by bench/run.py).

`uvicorn --fd` assumes a Unix socket, which leaves TCP_NODELAY off and adds delayed-ACK
stalls; rebuilding the socket from its descriptor keeps its real family.
"""

import socket
import sys

import uvicorn


def main() -> None:
    sock = socket.socket(fileno=int(sys.argv[1]))
    config = uvicorn.Config("app.main:app", access_log=False, log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
