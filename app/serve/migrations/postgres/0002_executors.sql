-- Each worker's DBOS executor and when it last said it lives (Unix seconds): one not heard from for
-- SERVE_PEER_SECONDS has died, and a live worker recovers its unfinished turns (app/serve/recovery.py).
CREATE TABLE executors (
    id TEXT PRIMARY KEY,
    seen_at DOUBLE PRECISION NOT NULL
);
