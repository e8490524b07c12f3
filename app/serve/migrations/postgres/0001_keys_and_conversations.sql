-- The served agent's tables: API keys (their hashes only), conversations (whose they are, the lease of
-- the worker running a turn in one, the last turn's run id, state and answer, a pending approval), their
-- messages in order (with the run that added each), and how many turns each user started in the current minute.
-- Times are Unix seconds.
CREATE TABLE api_keys (
    name TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    created_at DOUBLE PRECISION NOT NULL,
    revoked_at DOUBLE PRECISION
);
CREATE TABLE conversations (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    thread_id TEXT,
    created_at DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL,
    lease_owner TEXT,
    lease_until DOUBLE PRECISION,
    run_id TEXT,
    state TEXT NOT NULL,
    answer TEXT,
    pending TEXT
);
CREATE UNIQUE INDEX conversations_thread ON conversations (user_id, thread_id);
CREATE INDEX conversations_lease ON conversations (lease_owner);
CREATE INDEX conversations_running ON conversations (user_id, lease_until);
CREATE TABLE messages (
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    run_id TEXT NOT NULL,
    message TEXT NOT NULL,
    PRIMARY KEY (conversation_id, seq)
);
CREATE TABLE request_counts (
    user_id TEXT PRIMARY KEY,
    window_start DOUBLE PRECISION NOT NULL,
    requests INTEGER NOT NULL
);
