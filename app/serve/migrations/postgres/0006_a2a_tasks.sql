-- The A2A face's tasks (app/serve/a2a_store.py): each the protocol's Task as JSON, its person's, in a
-- conversation (context_id); a task's turn is the conversation's, which keeps its messages.
CREATE TABLE a2a_tasks (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    context_id TEXT NOT NULL,
    state INTEGER NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL,
    task TEXT NOT NULL
);
CREATE INDEX a2a_tasks_by_user ON a2a_tasks (user_id, updated_at);
