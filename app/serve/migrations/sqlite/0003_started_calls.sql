-- The tool calls of served turns that must not act twice, marked as they start: a call found marked whose
-- result the conversation did not keep was running when its process died, and may or may not have acted
-- (app/serve/steps.py).
CREATE TABLE started_calls (
    run_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    started_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (run_id, call_id)
);
