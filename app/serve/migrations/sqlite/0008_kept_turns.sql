-- A running approval's turn, as its conversation keeps it (app/serve/admitted.py: ids and the person's
-- words, as JSON): it runs in its worker's threads with no DBOS workflow of its own, and the recovery of
-- one whose runner died starts its workflow from this (app/serve/recovery.py). NULL for any other turn.
ALTER TABLE conversations ADD COLUMN turn TEXT;
