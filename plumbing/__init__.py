"""Generic plumbing that the device service and the served agent share, and that knows neither: SQL
databases with migrations, processes and their supervision, sockets, ASGI helpers, OpenTelemetry setup."""
