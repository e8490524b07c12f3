-- Codes are stored upper-case without hyphens or spaces: SM-G9910, sm-g9910 and "SM G9910" are SMG9910.
-- A row written otherwise (by hand, or by another program) comes to that form; where the row in that
-- form exists already, it is the one kept.
DELETE FROM models
WHERE model <> UPPER(REPLACE(REPLACE(model, '-', ''), ' ', ''))
  AND UPPER(REPLACE(REPLACE(model, '-', ''), ' ', '')) IN (SELECT model FROM models);
UPDATE models SET model = UPPER(REPLACE(REPLACE(model, '-', ''), ' ', ''))
WHERE model <> UPPER(REPLACE(REPLACE(model, '-', ''), ' ', ''));
UPDATE idempotency SET model = UPPER(REPLACE(REPLACE(model, '-', ''), ' ', ''))
WHERE model <> UPPER(REPLACE(REPLACE(model, '-', ''), ' ', ''));
