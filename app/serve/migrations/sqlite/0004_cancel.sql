-- A client's request to stop the turn running in a conversation: the run id it names (app/serve/journal.py
-- stops that turn before it runs another call).
ALTER TABLE conversations ADD COLUMN stop_run TEXT;
