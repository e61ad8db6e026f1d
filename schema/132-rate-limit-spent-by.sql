-- The per-minute window holds at most N requests in any 60 seconds (decisions D4; issue 23,
-- item 5). One-second buckets that freed a request of second s at s + 60 let a request at
-- s + 0.9 and one at s + 60.0 both in, 59.1 s apart. Each bucket now also keeps the time
-- (in milliseconds into its second) by which all of its permits were spent, and frees
-- them exactly 60 s after that; the logic is api_lease in
-- schema/definitions/015-auth-cache.sql.
--
-- The window spans 61 buckets (the oldest one, second head - 60, is in it until its
-- permits' 60 s are up), so a bucket is prepended to every row. What is already counted
-- is taken as spent at the end of its second, as late as possible.
ALTER TABLE api_key_usage
    ADD COLUMN second_spent_by smallint[] NOT NULL DEFAULT array_fill(0::smallint, ARRAY[61]);
UPDATE api_key_usage
   SET second_counts = ARRAY[0] || second_counts,
       second_spent_by = array_fill(1000::smallint, ARRAY[61]);
ALTER TABLE api_key_usage ALTER COLUMN second_counts SET DEFAULT array_fill(0, ARRAY[61]);

-- api_lease takes the decision's time (or the database's clock) instead of a whole second
-- and returns the second its grant went to, how long its permits may be spent, and how
-- long a refusal is to be held; the old signature goes (see 061-auth-function-signatures).
DROP FUNCTION IF EXISTS api_lease(uuid, bigint, integer, bigint, integer, integer, integer,
    integer, integer);
