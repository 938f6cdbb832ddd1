-- What the list of trees shows of each besides its id and times, kept by the
-- tree's object after its writes: the title (its first user message, one
-- line), its nodes and the bytes its storage takes.
ALTER TABLE trees ADD COLUMN title TEXT NOT NULL DEFAULT '';
ALTER TABLE trees ADD COLUMN nodes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trees ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
