-- The bytes a tree's object granted it under its tenant's quota of bytes
-- (glue/isolate.mjs, GRANT): a tenant's trees count each at the larger of
-- its bytes (now its rows' keys and JSON as stored) and its grant.
ALTER TABLE trees ADD COLUMN granted INTEGER NOT NULL DEFAULT 0;
