-- Keys expire: each remembers when it was first used and which model it answered for.
-- Keys stored before this existed count from the upgrade.
ALTER TABLE idempotency ADD COLUMN model TEXT;
ALTER TABLE idempotency ADD COLUMN "storedAt" REAL NOT NULL DEFAULT 0;
UPDATE idempotency SET model = json_extract(response, '$.model'), "storedAt" = CAST(strftime('%s', 'now') AS REAL);
CREATE INDEX idempotency_stored_at ON idempotency ("storedAt");
CREATE INDEX idempotency_model ON idempotency (model);
