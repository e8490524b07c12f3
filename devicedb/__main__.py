"""`python -m devicedb --port P --db FILE`: the device-model service on its own (OpenAPI docs at /docs)."""

import argparse

from devicedb.server import serve_forever


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m devicedb", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--db", default="data/devices.db", help="SQLite file (created if missing)")
    args = parser.parse_args()
    serve_forever(args.db, args.host, args.port)


if __name__ == "__main__":
    main()
