-- createdAt is the ISO-8601 UTC text the service writes, so both backends answer the same bytes.
-- storedAt is Unix seconds; an idempotency response is kept as the exact JSON text it answered.
CREATE TABLE models (
    model TEXT PRIMARY KEY,
    "marketName" TEXT NOT NULL,
    "marketNameEn" TEXT,
    "createdAt" TEXT NOT NULL,
    "createdBy" TEXT
);
CREATE TABLE idempotency (
    key TEXT PRIMARY KEY,
    "bodyHash" TEXT NOT NULL,
    status INTEGER NOT NULL,
    response TEXT NOT NULL,
    model TEXT,
    "storedAt" DOUBLE PRECISION NOT NULL
);
CREATE INDEX idempotency_stored_at ON idempotency ("storedAt");
CREATE INDEX idempotency_model ON idempotency (model);
