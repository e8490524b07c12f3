-- The tables as the service made them before migrations existed: IF NOT EXISTS adopts such a file.
CREATE TABLE IF NOT EXISTS models (
    model TEXT PRIMARY KEY,
    "marketName" TEXT NOT NULL,
    "marketNameEn" TEXT,
    "createdAt" TEXT NOT NULL,
    "createdBy" TEXT
);
CREATE TABLE IF NOT EXISTS idempotency (
    key TEXT PRIMARY KEY,
    "bodyHash" TEXT NOT NULL,
    status INTEGER NOT NULL,
    response TEXT NOT NULL
);
