-- One mechanism says who runs a turn and whether its runner died (app/serve/leases.py): the conversation's
-- lease, renewed by the worker that runs the turn, on the database's clock; its holder's process (pid,
-- start and machine) says at once, seen from the same machine, that it is gone. The executors' heartbeat
-- goes. Running turns are found by their leases.
ALTER TABLE conversations ADD COLUMN lease_process TEXT;
CREATE INDEX conversations_leased ON conversations (lease_until);
DROP TABLE executors;
