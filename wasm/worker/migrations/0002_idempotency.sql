-- The answer to each write sent with an Idempotency-Key, stored in the same
-- batch as the write: a retried write (also one retried after the worker died
-- between storing and answering) is answered from here, never stored twice.
-- Kept a day (edge.IdemKeepMs); each write with a key purges its tenant's old ones.
CREATE TABLE idempotency (
  tenant      TEXT NOT NULL,
  key         TEXT NOT NULL,
  fingerprint TEXT NOT NULL,     -- sha256 of method, path and body
  status      INTEGER NOT NULL,
  etag        TEXT NOT NULL,
  location    TEXT NOT NULL,
  body        TEXT NOT NULL,
  created_ms  INTEGER NOT NULL,
  PRIMARY KEY (tenant, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_by_age ON idempotency (tenant, created_ms);
