-- One row per tree, per node and per branch: an append writes the rows it
-- touches (a node, its parent, a branch, the tree) and never the whole tree.
CREATE TABLE trees (
  id         TEXT PRIMARY KEY,
  tenant     TEXT NOT NULL,
  version    INTEGER NOT NULL,  -- +1 on every write: the optimistic lock
  etag       TEXT NOT NULL,     -- quoted, new on every write
  root       TEXT NOT NULL,     -- '' for an empty tree
  active     TEXT NOT NULL,     -- the active branch
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL
);
CREATE INDEX trees_by_tenant ON trees (tenant, created_ms, id);

-- json is the node or branch exactly as it is written in .tree.json.
CREATE TABLE nodes (
  tree TEXT NOT NULL,
  id   TEXT NOT NULL,
  json TEXT NOT NULL,
  PRIMARY KEY (tree, id)
) WITHOUT ROWID;

CREATE TABLE branches (
  tree TEXT NOT NULL,
  name TEXT NOT NULL,
  json TEXT NOT NULL,
  PRIMARY KEY (tree, name)
) WITHOUT ROWID;
