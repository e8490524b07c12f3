-- Fencing (app/serve/fence.py): each taking of a conversation's lease raises its generation, and every
-- step of a turn is conditioned on the lease at the generation it took. An executor is one start of a
-- worker process: its machine and process say whether it is gone, seen from the same machine, and the
-- live executor that claimed a dead one's turns says so (one recovers them). The one timeout after which a
-- silent executor has died is kept here, for every server to read.
ALTER TABLE conversations ADD COLUMN lease_gen INTEGER NOT NULL DEFAULT 0;
ALTER TABLE executors ADD COLUMN machine TEXT NOT NULL DEFAULT '';
ALTER TABLE executors ADD COLUMN process TEXT NOT NULL DEFAULT '';
ALTER TABLE executors ADD COLUMN recovered_by TEXT;
CREATE TABLE serve_settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
