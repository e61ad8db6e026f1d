-- Packed readings (schema/110-packed-readings.sql): how a closed week of raw readings is
-- packed, and how every read sees packed and raw readings as one set. Re-runnable.
--
-- The three sources are disjoint: a reading is either a raw row (readings_num/_other: the
-- open week and late arrivals) or inside one packed row (packed_num/_other, a week of a
-- series). rollup_day_num/_other summarise exactly the packed readings of each day; they
-- are rewritten by the packing job in the transaction that packs, so they are never stale.
-- A read therefore takes raw rows, packed rows (or their daily partials where whole days
-- nest in its buckets) and merges them; answers are exact at every instant.

-- The microseconds of an interval, exact for intervals shorter than a century (the float8
-- seconds of date_part carry 2^52 microseconds exactly; the offsets and steps of a packed
-- week are below 2^40). Float arithmetic, not extract's numeric: it runs once per reading
-- packed.
CREATE OR REPLACE FUNCTION interval_micros(p interval) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT round(date_part('epoch', p) * 1000000)::bigint $$;

-- The readings of a packed row, in its order: run i holds p_counts[i] times p_steps[i]
-- microseconds apart from p_offsets[i] microseconds after the period's start, paired by
-- position with p_values. The set below is a nested loop over the runs, in order (the
-- generate_series depends on the run), so the times come out in the order of the values
-- array. generate_series steps timestamps in C; a run of one time has step 0, which
-- generate_series refuses, hence GREATEST (start = stop gives that one time whatever the
-- step). A set-returning LANGUAGE sql function of one SELECT, so the planner inlines it
-- into the statement that reads it (readings_<kind>_in) and plans it once with it: a
-- scalar function with a sub-SELECT is never inlined, and its body was planned again by
-- every execution that called it: the one packed week at the edge of a 30-day hourly read
-- at bench M cost 0.42 ms of its 2.80 ms that way, 0.2 ms of 2.58 ms inlined.
CREATE OR REPLACE FUNCTION packed_readings(
    p_period timestamptz, p_offsets bigint[], p_steps bigint[], p_counts integer[],
    p_values anyarray
) RETURNS TABLE ("time" timestamptz, value anyelement)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT u.time, u.value
      FROM unnest(ARRAY(SELECT g
                          FROM unnest(p_offsets, p_steps, p_counts) AS r (o, s, c),
                               generate_series(p_period + r.o * interval '1 microsecond',
                                               p_period + (r.o + r.s * (r.c - 1)) * interval '1 microsecond',
                                               GREATEST(r.s, 1) * interval '1 microsecond') AS g),
                  p_values) AS u ("time", value)
$$;

-- The times of a packed row, ascending: packed_readings without values (unnest pads the
-- missing ones with NULLs), for the packing job, which unpacks a week once per call.
CREATE OR REPLACE FUNCTION packed_times(
    p_period timestamptz, p_offsets bigint[], p_steps bigint[], p_counts integer[]
) RETURNS timestamptz[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT ARRAY(SELECT r.time
                   FROM packed_readings(p_period, p_offsets, p_steps, p_counts,
                                        '{}'::integer[]) AS r)
$$;

-- The start of the first bucket of width p_width (on the Unix epoch, as packed_period and
-- TimescaleDB's chunks) that starts at or after p_time.
CREATE OR REPLACE FUNCTION bucket_ceil(p_width interval, p_time timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT time_bucket(p_width, p_time + p_width - interval '1 microsecond',
                       timestamptz '1970-01-01 00:00:00+00')
$$;

-- A sum (taken in numeric) as float8, saturated to +-Infinity instead of raising "value out
-- of range": a day
-- of readings near the ingest bound (1e300) can sum past float8, and one such day must not
-- stop the packing job for good. Reads merge an infinite partial without error and the
-- API shows the sum and average of such a bucket as null.
CREATE OR REPLACE FUNCTION saturate(p numeric) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN abs(p) > 1.7976931348623157e308 THEN sign(p) * 'Infinity'::float8
                -- Below half the least subnormal a float8 is 0, which the cast refuses
                -- ("out of range") instead of rounding to.
                WHEN abs(p) <= 2.4703282292062328e-324 THEN 0::float8
                ELSE p::float8 END
$$;

-- How long each value held, summed by value: p_keys[i] (a value's JSON text) held for
-- p_micros[i] microseconds; an object from value to microseconds (the duration partials of
-- schema/181-state-partials.sql).
CREATE OR REPLACE FUNCTION state_durations(p_keys text[], p_micros bigint[]) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT COALESCE(jsonb_object_agg(x.k, x.m), '{}'::jsonb)
      FROM (SELECT u.k, sum(u.m) AS m FROM unnest(p_keys, p_micros) AS u (k, m)
             WHERE u.m > 0 GROUP BY u.k) x
$$;

-- A day's durations from those of its hours (arrays in hour order): their own, and each
-- hour's last value held until the next hour's first reading.
CREATE OR REPLACE FUNCTION state_durations_of_hours(
    p_durations jsonb[], p_first timestamptz[], p_last timestamptz[], p_last_value text[]
) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT state_durations(array_agg(x.k), array_agg(x.m))
      FROM (SELECT e.key AS k, e.value::bigint AS m
              FROM unnest(p_durations) AS o (d) CROSS JOIN LATERAL jsonb_each_text(o.d) AS e
            UNION ALL
            SELECT p_last_value[i - 1], interval_micros(p_first[i] - p_last[i - 1])
              FROM generate_subscripts(p_first, 1) AS i
             WHERE i > 1) x
$$;

-- The runs of ascending times p_times (the inverse of packed_times): a run is a stretch of
-- equal steps, and a time starts a new run when its step differs from the one before it,
-- or is 0 (a time equal to the one before it is a run of its own: packed_times steps
-- with generate_series, which cannot repeat a time). Offsets and steps in microseconds.
CREATE OR REPLACE FUNCTION time_runs(
    p_period timestamptz, p_times timestamptz[],
    OUT offsets bigint[], OUT steps bigint[], OUT counts integer[]
)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    -- The positions that start a run, read off the array by subscript (window functions
    -- over the unnested times sorted them three times: ~2 us a time, the most expensive
    -- step of packing), then each run from its start to the next one's. The packing job
    -- passes an array_agg, held in memory; a TOASTed array (read from a table) would be
    -- decompressed at every subscript.
    WITH starts AS (
        SELECT i FROM generate_subscripts(p_times, 1) AS i
         WHERE i = 1 OR p_times[i] = p_times[i - 1]
            OR i > 2 AND p_times[i] - p_times[i - 1] <> p_times[i - 1] - p_times[i - 2]),
    runs AS (
        SELECT i AS s, lead(i, 1, cardinality(p_times) + 1) OVER (ORDER BY i) - i AS c
          FROM starts)
    SELECT array_agg(interval_micros(p_times[s] - p_period) ORDER BY s),
           array_agg(CASE WHEN c > 1
                          THEN interval_micros(p_times[s + c - 1] - p_times[s]) / (c - 1)
                          ELSE 0 END ORDER BY s),
           array_agg(c ORDER BY s)
      FROM runs
$$;

-- Generated for both kinds of readings from one template each, so the packing rule and
-- the read of packed data are written once. Every function the block creates, by the
-- template (a text constant below) that writes it, so that grep finds each full name here;
-- an error's position inside one points into the template's text. The lists are checked
-- against the functions of a migrated database (tests/integration/test_schema_upgrade.py).
-- generated from period_fn: packed_period
-- generated from reads: readings_num_in, readings_other_in, readings_num_count,
--   readings_other_count, readings_num_newest, readings_other_newest
-- generated from hours_read: packed_hours_num_in, packed_hours_other_in
-- generated from pack: pack_range_num, pack_range_other
-- generated from hours_fill: fill_packed_hours_num, fill_packed_hours_other
DO $generate$
DECLARE
    template text;
    -- The packed period: one week, aligned like TimescaleDB's chunks (on the Unix epoch),
    -- so that packing a weekly raw chunk writes one packed row per series.
    period constant interval := interval '7 days';
    period_fn constant text := $t$
CREATE OR REPLACE FUNCTION packed_period(p_time timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $f$ SELECT time_bucket(%1$L::interval, p_time, timestamptz '1970-01-01 00:00:00+00') $f$;$t$;
    -- %1$s kind (num, other), %2$s its value type, %3$L the period.
    reads constant text := $t$
-- Every reading of a series (site p_site, or any when NULL) in [p_from, p_to): raw rows
-- and the readings of the packed weeks that overlap the range, except the packed readings
-- in [p_skip_from, p_skip_to) when given (a bucketed read takes those from partials;
-- weeks wholly inside are not unpacked). Inlined by the planner into the query that calls
-- it, so its ranges exclude chunks like any other predicate.
CREATE OR REPLACE FUNCTION readings_%1$s_in(
    p_device integer, p_field integer, p_from timestamptz, p_to timestamptz,
    p_site integer DEFAULT NULL, p_skip_from timestamptz DEFAULT NULL,
    p_skip_to timestamptz DEFAULT NULL
) RETURNS TABLE ("time" timestamptz, value %2$s, site_num integer)
LANGUAGE sql STABLE
AS $f$
    SELECT r.time, r.value, r.site_num
      FROM readings_%1$s r
     WHERE r.device_num = p_device AND r.field_num = p_field
       AND r.time >= p_from AND r.time < p_to
       AND (p_site IS NULL OR r.site_num = p_site)
    UNION ALL
    -- An empty range (an edge segment of a read that starts or ends on a whole hour or
    -- day) is a one-time filter, not a week unpacked for nothing.
    SELECT u.time, u.value, k.site_num
      FROM packed_%1$s k
     CROSS JOIN LATERAL packed_readings(k.period, k.offsets, k.steps, k.counts, k.values) u
     WHERE k.device_num = p_device AND k.field_num = p_field
       AND k.period > p_from - %3$L::interval AND k.period < p_to
       AND (p_site IS NULL OR k.site_num = p_site)
       AND p_from < p_to
       AND (p_skip_from IS NULL
            OR k.period < p_skip_from AND p_from < p_skip_from
            OR k.period > p_skip_to - %3$L::interval AND p_skip_to < p_to)
       AND u.time >= p_from AND u.time < p_to
       AND (p_skip_from IS NULL OR u.time < p_skip_from OR u.time >= p_skip_to)
$f$;

-- How many readings readings_%1$s_in returns for the series (p_devices[i], p_fields[i])
-- in [p_from, p_to), all together: raw rows counted, packed weeks wholly inside by their
-- counts, the other weeks by their hourly partials for the whole hours inside, and only the
-- readings of the sub-hour edges (a range that does not start or end on the hour)
-- unpacked. One statement for a whole export: a call per series cost ~0.15 ms of function
-- overhead, and unpacking each series' edge weeks ~0.2 ms (0.9 s for a fleet's week).
CREATE OR REPLACE FUNCTION readings_%1$s_count(
    p_devices integer[], p_fields integer[], p_from timestamptz, p_to timestamptz
) RETURNS bigint
LANGUAGE sql STABLE
AS $f$
    -- The whole hours of the range are [bucket_ceil(1 hour, p_from), time_bucket(1 hour,
    -- p_to)), its whole packed weeks [bucket_ceil(week, p_from), packed_period(p_to))
    -- (GREATEST makes them empty when there are none); written as expressions of p_from
    -- and p_to in each call, not once in a CTE, so that chunk exclusion sees them.
    WITH series AS MATERIALIZED (
        SELECT * FROM unnest(p_devices, p_fields) AS s (device_num, field_num))
    SELECT (SELECT count(*) FROM series s,
                   readings_%1$s_in(s.device_num, s.field_num, p_from, p_to, NULL,
                                   bucket_ceil('1 hour', p_from),
                                   GREATEST(time_bucket('1 hour', p_to),
                                            bucket_ceil('1 hour', p_from))) r)
         + (SELECT COALESCE(sum(h.n), 0) FROM series s,
                   packed_hours_%1$s_in(s.device_num, s.field_num,
                                       bucket_ceil('1 hour', p_from),
                                       GREATEST(time_bucket('1 hour', p_to),
                                                bucket_ceil('1 hour', p_from)),
                                       NULL,
                                       bucket_ceil(%3$L, p_from),
                                       GREATEST(packed_period(p_to), bucket_ceil(%3$L, p_from))) h)
         + (SELECT COALESCE(sum(k.n), 0) FROM series s JOIN packed_%1$s k
                ON k.device_num = s.device_num AND k.field_num = s.field_num
             WHERE k.period >= bucket_ceil(%3$L, p_from) AND k.period < packed_period(p_to))
$f$;

-- The newest p_limit readings of a series (site p_site, or any when NULL) in [p_from,
-- p_to), newest first (ties: greatest value, then site), as one row of three arrays (NULLs
-- when none): a client decodes three arrays far faster than p_limit rows. The aggregates
-- take the rows in the order of the sorted subquery below them.
--
-- One statement reads the newest raw rows once and unpacks only what can be in the
-- answer. The raw candidates are the newest p_limit raw rows, with those tied on the last
-- time (the index gives time order; the final sort breaks ties). A packed row (a week of
-- one site) can add only its newest `need` readings, need being p_limit less the readings
-- certainly newer than the week: the packed readings of newer weeks wholly inside the
-- range, and the raw candidates when all of them lie past the week's end (a lower bound
-- otherwise, which only unpacks more). Its newest readings by position are its first in
-- the answer's order (packing orders a week by time, then value). So when the open week
-- holds 480 of 500 readings, the week before it unpacks its last 20 times from its runs,
-- and older weeks nothing. A packed row reaching past p_to is unpacked whole (how many of
-- its readings lie past p_to is known only then).
--
-- PL/pgSQL with a generic plan, planned once per session: with custom plans (the default
-- chose them, a generic plan's estimates being higher) each call planned the statement
-- over every chunk again, about 0.5 ms of a 1.3 ms call.
CREATE OR REPLACE FUNCTION readings_%1$s_newest(
    p_device integer, p_field integer, p_from timestamptz, p_to timestamptz,
    p_site integer, p_limit integer
) RETURNS TABLE (times timestamptz[], "values" %2$s[], sites integer[])
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan
AS $f$
DECLARE
    -- The packed weeks that overlap the range start after this. A plain value: written
    -- as p_from - 7 days in the statement, the generic plan's scan of the packed chunks
    -- went through a constraint-aware append and took 0.1 ms longer.
    weeks_from constant timestamptz := p_from - %3$L::interval;
BEGIN
    RETURN QUERY
    WITH raw AS MATERIALIZED (
        SELECT r.time, r.value, r.site_num
          FROM readings_%1$s r
         WHERE r.device_num = p_device AND r.field_num = p_field
           AND r.time >= p_from AND r.time < p_to
           AND (p_site IS NULL OR r.site_num = p_site)
         ORDER BY r.time DESC
         FETCH FIRST p_limit ROWS WITH TIES),
    newest_raw AS MATERIALIZED (
        SELECT count(*)::integer AS n, min(raw.time) AS oldest FROM raw),
    weeks AS (
        SELECT k.period, k.site_num, k.n, k.offsets, k.steps, k.counts, k.values,
               k.period > p_to - %3$L::interval AS whole,
               p_limit
               - COALESCE((sum(k.n) FILTER (WHERE k.period >= p_from
                                             AND k.period <= p_to - %3$L::interval)
                              OVER (ORDER BY k.period DESC
                                    RANGE BETWEEN UNBOUNDED PRECEDING
                                              AND '1 microsecond' PRECEDING))::integer, 0)
               - (SELECT CASE WHEN g.oldest >= k.period + %3$L::interval THEN g.n ELSE 0 END
                    FROM newest_raw g) AS need
          FROM packed_%1$s k
         WHERE k.device_num = p_device AND k.field_num = p_field
           AND k.period > weeks_from AND k.period < p_to
           AND (p_site IS NULL OR k.site_num = p_site))
    SELECT array_agg(a.time), array_agg(a.value), array_agg(a.site_num)
      FROM (SELECT raw.time, raw.value, raw.site_num FROM raw
            UNION ALL
            SELECT w.period + (u.o + u.s * j) * interval '1 microsecond', w.values[u.first + j],
                   w.site_num
              FROM weeks w
             CROSS JOIN LATERAL (
                   SELECT r.o, r.s, r.c, r.upto - r.c + 1 AS first, w.n - r.upto AS later
                     FROM (SELECT x.o, x.s, x.c, (sum(x.c) OVER (ORDER BY x.i))::integer AS upto
                             FROM unnest(w.offsets, w.steps, w.counts) WITH ORDINALITY
                                  AS x (o, s, c, i)) r) u
             CROSS JOIN LATERAL generate_series(
                   u.c - 1,
                   CASE WHEN w.whole THEN 0 ELSE GREATEST(0, u.c - (w.need - u.later)) END,
                   -1) AS j
             WHERE w.need > 0 AND (w.whole OR u.later < w.need)
               AND w.period + (u.o + u.s * j) * interval '1 microsecond' >= p_from
               AND w.period + (u.o + u.s * j) * interval '1 microsecond' < p_to
            ORDER BY 1 DESC, 2 DESC, 3 DESC
            LIMIT p_limit) a;
END;
$f$;$t$;
    -- The hourly partials of the readings `merged` (d, f, s, p, t, v) written: shared by
    -- the packing job and the backfill, with the arguments of `pack` below. `steps` adds
    -- to each reading its hour of the week and, for numbers, the reading before it and the
    -- time of the one after it in the week (order: time, then value, as the reads).
    hours_of_merged constant text := $t$
    steps AS MATERIALIZED (
        SELECT m.*, floor(date_part('epoch', m.t - m.p) / 3600)::smallint AS h%7$s
          FROM merged m%16$s),
    hourly AS MATERIALIZED (
        SELECT d, f, s, p, h, count(*)::integer AS n%5$s, max(t) AS last,
               (array_agg(v ORDER BY t DESC, v DESC))[1] AS last_value%8$s
          FROM steps GROUP BY d, f, s, p, h),
    hours AS (
        INSERT INTO packed_hours_%1$s AS x
               (device_num, field_num, site_num, period, hours, n%2$s, last_time, last_value%10$s)
        SELECT d, f, s, p, array_agg(h ORDER BY h), array_agg(n ORDER BY h)%6$s,
               array_agg(interval_micros(last - p - h * interval '1 hour') ORDER BY h),
               array_agg(last_value ORDER BY h)%9$s
          FROM hourly
         GROUP BY d, f, s, p
         ORDER BY d, f, p, s
        ON CONFLICT (device_num, field_num, period, site_num) DO UPDATE
           SET hours = excluded.hours, n = excluded.n%4$s, last_time = excluded.last_time,
               last_value = excluded.last_value%11$s
        RETURNING 1),
    -- The days from the hours (24 rows a day instead of every reading).
    days AS (
        INSERT INTO rollup_day_%1$s AS x
               (device_num, field_num, site_num, bucket, n%2$s, last_time, last_value%12$s)
        SELECT d, f, s, time_bucket('1 day', p + h * interval '1 hour'), sum(n)%3$s, max(last),
               (array_agg(last_value ORDER BY last DESC, last_value DESC))[1]%13$s
          FROM hourly
         GROUP BY d, f, s, time_bucket('1 day', p + h * interval '1 hour')
         ORDER BY d, f, time_bucket('1 day', p + h * interval '1 hour'), s
        ON CONFLICT (device_num, field_num, bucket, site_num) DO UPDATE
           SET n = excluded.n%4$s, last_time = excluded.last_time,
               last_value = excluded.last_value%14$s)$t$;
    -- pack and hours_fill: %1$s kind, %2$s the partial columns (sum, min, max for
    -- numbers), %3$s their daily aggregates of the hourly ones, %4$s their replacements on
    -- conflict, %5$s their hourly aggregates and %6$s those gathered into a week's arrays.
    pack constant text := $t$
-- Packs the raw readings of [p_from, p_to) (the range of one raw chunk, which the caller
-- has locked against inserts and drops afterwards): each (series, site, week) becomes one
-- packed row, merged with the packed row already there (late readings), and the hourly
-- partials and daily rollups of the week are rewritten from the merged readings. Readings
-- are ordered by (time, value); time_runs encodes their times. Returns the raw readings
-- packed.
CREATE OR REPLACE FUNCTION pack_range_%1$s(p_from timestamptz, p_to timestamptz)
RETURNS bigint
LANGUAGE plpgsql
AS $f$
DECLARE
    moved bigint;
BEGIN
    WITH fresh AS MATERIALIZED (
        SELECT r.device_num AS d, r.field_num AS f, r.site_num AS s,
               packed_period(r.time) AS p, r.time AS t, r.value AS v
          FROM readings_%1$s r
         WHERE r.time >= p_from AND r.time < p_to),
    keys AS (SELECT DISTINCT d, f, s, p FROM fresh),
    merged AS MATERIALIZED (
        SELECT d, f, s, p, t, v FROM fresh
        UNION ALL
        SELECT k.device_num, k.field_num, k.site_num, k.period, u.t, u.v
          FROM keys
          JOIN packed_%1$s k ON k.device_num = keys.d AND k.field_num = keys.f
                            AND k.period = keys.p AND k.site_num = keys.s
         CROSS JOIN LATERAL unnest(packed_times(k.period, k.offsets, k.steps, k.counts),
                                   k.values) AS u (t, v)),
    grouped AS (
        SELECT d, f, s, p, count(*)::integer AS n,
               array_agg(t ORDER BY t, v) AS ts, array_agg(v ORDER BY t, v) AS vs
          FROM merged GROUP BY d, f, s, p),
    stored AS (
        INSERT INTO packed_%1$s AS k
               (device_num, field_num, site_num, period, n, offsets, steps, counts, values)
        SELECT g.d, g.f, g.s, g.p, g.n, r.offsets, r.steps, r.counts, g.vs
          FROM grouped g CROSS JOIN LATERAL time_runs(g.p, g.ts) r
         ORDER BY g.d, g.f, g.p, g.s
        ON CONFLICT (device_num, field_num, period, site_num) DO UPDATE
           SET n = excluded.n, offsets = excluded.offsets, steps = excluded.steps,
               counts = excluded.counts, values = excluded.values),
$t$ || hours_of_merged || $t$
    SELECT count(*) INTO moved FROM fresh;
    RETURN moved;
END;
$f$;$t$;
    -- %1$s kind, %2$s its value type, %3$L the period, then the number-only partials:
    -- %4$s as result columns, %5$s selected, %6$s as stored arrays, %7$s as aliases.
    hours_read constant text := $t$
-- The hourly partials of the packed readings of a series (site p_site, or any when NULL)
-- for the hours inside [p_from, p_to) but not inside [p_skip_from, p_skip_to) (the days a
-- bucketed read takes from the daily rollups; weeks wholly inside are not unnested): one
-- row per hour with readings. They count packed readings only; raw rows of the same
-- hours are read as they are.
CREATE OR REPLACE FUNCTION packed_hours_%1$s_in(
    p_device integer, p_field integer, p_from timestamptz, p_to timestamptz,
    p_site integer, p_skip_from timestamptz, p_skip_to timestamptz
) RETURNS TABLE (bucket timestamptz, n integer%4$s, last_time timestamptz, last_value %2$s)
LANGUAGE sql STABLE
AS $f$
    SELECT k.period + u.h * interval '1 hour', u.n%5$s,
           k.period + u.h * interval '1 hour' + u.lt * interval '1 microsecond', u.lv
      FROM packed_hours_%1$s k
     -- The bounds as hours of the week, once per week (OFFSET 0 keeps the subquery from
     -- being pulled up and computed again for every hour): the hour h starts at or after
     -- a time x exactly when h >= ceil(hours from the week's start to x).
     CROSS JOIN LATERAL (
         SELECT ceil(date_part('epoch', p_from - k.period) / 3600) AS lo,
                ceil(date_part('epoch', p_to - k.period) / 3600) AS hi,
                ceil(date_part('epoch', p_skip_from - k.period) / 3600) AS skip_lo,
                ceil(date_part('epoch', p_skip_to - k.period) / 3600) AS skip_hi
         OFFSET 0) b
     CROSS JOIN LATERAL unnest(k.hours, k.n%6$s, k.last_time, k.last_value)
           AS u (h, n%7$s, lt, lv)
     WHERE k.device_num = p_device AND k.field_num = p_field
       AND k.period > p_from - %3$L::interval AND k.period < p_to
       AND (p_site IS NULL OR k.site_num = p_site)
       AND p_from < p_to
       AND (k.period < p_skip_from AND p_from < p_skip_from
            OR k.period > p_skip_to - %3$L::interval AND p_skip_to < p_to)
       AND u.h >= b.lo AND u.h < b.hi AND (u.h < b.skip_lo OR u.h >= b.skip_hi)
$f$;$t$;
    -- The arguments of `pack` (above).
    hours_fill constant text := $t$
-- Hourly partials and daily rollups for the packed weeks of [p_from, p_to) whose hours
-- have none (packed before the hourly partials existed) or lack the composable partials
-- (packed before schema/180-composable-partials.sql), from the packed readings. Returns
-- the weeks written.
CREATE OR REPLACE FUNCTION fill_packed_hours_%1$s(p_from timestamptz, p_to timestamptz)
RETURNS bigint
LANGUAGE sql
AS $f$
    WITH merged AS (
        SELECT k.device_num AS d, k.field_num AS f, k.site_num AS s, k.period AS p, u.t, u.v
          FROM packed_%1$s k
         CROSS JOIN LATERAL unnest(packed_times(k.period, k.offsets, k.steps, k.counts),
                                   k.values) AS u (t, v)
         WHERE k.period >= p_from AND k.period < p_to
           AND NOT EXISTS (SELECT 1 FROM packed_hours_%1$s x
                            WHERE x.device_num = k.device_num AND x.field_num = k.field_num
                              AND x.period = k.period AND x.site_num = k.site_num%15$s)),
$t$ || hours_of_merged || $t$
    SELECT count(*) FROM hours
$f$;$t$;
    -- The composable partials of numbers (schema/180-composable-partials.sql): per reading
    -- the one before it and the time of the one after it in the week ...
    num_steps constant text := $t$,
               lag(m.v) OVER w AS pv, lead(m.t) OVER w AS nt,
               -- its growth over the reading before it (a reset: its own value; the
               -- week's first reading: nothing), as contract section 3's increase
               CASE WHEN lag(m.v) OVER w IS NULL THEN 0
                    WHEN m.v < lag(m.v) OVER w THEN m.v
                    ELSE m.v - lag(m.v) OVER w END AS growth
$t$;
    num_window constant text :=
        ' WINDOW w AS (PARTITION BY m.d, m.f, m.s, m.p ORDER BY m.t, m.v)';
    -- ... per hour: its first reading, the growth of its readings (and of its first one),
    -- whether one is a reset, its integral from its first reading to its last, and the part
    -- of the day's integral that starts in it (readings followed within the day), whether
    -- its times are evenly spaced (then its integral is step x (sum - last value)) ...
    num_hourly constant text := $t$,
               min(t) AS first, (array_agg(v ORDER BY t, v))[1] AS first_value,
               sum(growth::numeric) AS growth,
               (array_agg(growth ORDER BY t, v))[1]::numeric AS first_growth,
               COALESCE(bool_or(v < pv), false) AS reset,
               sum(v::numeric * interval_micros(nt - t))
                   FILTER (WHERE nt < p + (h + 1) * interval '1 hour') AS area,
               sum(v::numeric * interval_micros(nt - t))
                   FILTER (WHERE nt < time_bucket('1 day', p + h * interval '1 hour')
                                      + interval '1 day') AS day_area,
               count(DISTINCT nt - t)
                   FILTER (WHERE nt < p + (h + 1) * interval '1 hour') <= 1 AS even$t$;
    -- ... per week the hours' arrays (increase only for counters), per day its own values.
    num_week constant text := $t$,
               array_agg(interval_micros(first - p - h * interval '1 hour') ORDER BY h),
               (array_agg(first_value ORDER BY h))[1],
               CASE WHEN (SELECT pf.measurement FROM profile_fields pf WHERE pf.num = f)
                         = 'counter'
                    THEN array_agg(CASE WHEN reset THEN saturate(growth) END ORDER BY h) END,
               array_agg(CASE WHEN NOT even THEN saturate(area) END ORDER BY h)$t$;
    num_week_columns constant text := ', first_time, first_value, increase, integral';
    num_week_update constant text := $t$, first_time = excluded.first_time,
               first_value = excluded.first_value, increase = excluded.increase,
               integral = excluded.integral$t$;
    num_day_columns constant text := ', first_time, first_value, increase, integral';
    num_day constant text := $t$,
               min(first), (array_agg(first_value ORDER BY h))[1],
               saturate(sum(growth) - (array_agg(first_growth ORDER BY h))[1]),
               COALESCE(saturate(sum(day_area)), 0)$t$;
    num_day_update constant text := $t$, first_time = excluded.first_time,
               first_value = excluded.first_value, increase = excluded.increase,
               integral = excluded.integral$t$;
    -- The duration partials of other values (schema/181-state-partials.sql): per reading
    -- the time of the one after it; per hour its first reading, whether all its readings
    -- hold one value (then NULL is stored), and how long each value held inside it; per day
    -- the same from its hours (NULL too when one value holds all day).
    other_steps constant text := ', lead(m.t) OVER w AS nt';
    other_hourly constant text := $t$,
               min(t) AS first, count(DISTINCT v) = 1 AS uniform,
               state_durations(
                   array_agg(v::text) FILTER (WHERE nt < p + (h + 1) * interval '1 hour'),
                   array_agg(interval_micros(nt - t))
                       FILTER (WHERE nt < p + (h + 1) * interval '1 hour')) AS durations$t$;
    other_week constant text := $t$,
               array_agg(interval_micros(first - p - h * interval '1 hour') ORDER BY h),
               array_agg(CASE WHEN NOT uniform THEN durations END ORDER BY h)$t$;
    other_columns constant text := ', first_time, durations';
    other_update constant text :=
        ', first_time = excluded.first_time, durations = excluded.durations';
    other_day constant text := $t$,
               min(first),
               CASE WHEN bool_and(uniform) AND count(DISTINCT last_value) = 1 THEN NULL
                    ELSE state_durations_of_hours(
                             array_agg(durations ORDER BY h), array_agg(first ORDER BY h),
                             array_agg(last ORDER BY h), array_agg(last_value::text ORDER BY h))
               END$t$;
BEGIN
    EXECUTE format(period_fn, period);
    EXECUTE format(hours_read, 'num', 'double precision', period,
                   ', sum double precision, min double precision, max double precision',
                   ', u.sum, u.min, u.max', ', k.sum, k.min, k.max', ', sum, min, max');
    EXECUTE format(hours_read, 'other', 'jsonb', period, '', '', '', '');
    EXECUTE format(reads, 'num', 'double precision', period);
    EXECUTE format(reads, 'other', 'jsonb', period);
    FOREACH template IN ARRAY ARRAY[pack, hours_fill] LOOP
        EXECUTE format(template, 'num', ', sum, min, max',
                       ', saturate(sum(sum::numeric)), min(min), max(max)',
                       ', sum = excluded.sum, min = excluded.min, max = excluded.max',
                       ', saturate(sum(v::numeric)) AS sum, min(v) AS min, max(v) AS max',
                       ', array_agg(sum ORDER BY h), array_agg(min ORDER BY h), array_agg(max ORDER BY h)',
                       num_steps, num_hourly, num_week, num_week_columns, num_week_update,
                       num_day_columns, num_day, num_day_update, ' AND x.first_time IS NOT NULL',
                       num_window);
        EXECUTE format(template, 'other', '', '', '', '', '',
                       other_steps, other_hourly, other_week, other_columns, other_update,
                       other_columns, other_day, other_update, ' AND x.first_time IS NOT NULL',
                       num_window);
    END LOOP;
END;
$generate$;

-- The packing job (app/history/maintenance.py; `telemetry retention run --pack`): packs raw
-- chunks closed for at least p_closed_for, oldest first, at most p_limit of them (all when
-- NULL), and drops them. Each chunk is locked against inserts (SHARE) before it is read, so
-- a late reading either commits before and is packed, or waits and fails when the chunk is
-- dropped (its ingest batch is retried one by one and lands in a new chunk). Everything
-- happens in the caller's transaction: a crash packs nothing and loses nothing. Shares the
-- retention job's lock. Returns the chunks packed, NULL when another runner holds the lock.
CREATE OR REPLACE FUNCTION pack_closed_chunks(
    p_closed_for interval DEFAULT interval '1 hour', p_limit integer DEFAULT NULL
) RETURNS integer
LANGUAGE plpgsql
AS $$
DECLARE
    chunk   record;
    packed  integer := 0;
BEGIN
    IF NOT pg_try_advisory_xact_lock(7301994212) THEN
        RETURN NULL;
    END IF;
    FOR chunk IN
        SELECT c.hypertable_name, c.chunk_schema, c.chunk_name, c.range_start, c.range_end
          FROM timescaledb_information.chunks c
         WHERE c.hypertable_name IN ('readings_num', 'readings_other')
           AND c.range_end <= now() - p_closed_for
         ORDER BY c.range_end, c.hypertable_name
         LIMIT p_limit
    LOOP
        EXECUTE format('LOCK TABLE %I.%I IN SHARE MODE', chunk.chunk_schema, chunk.chunk_name);
        IF chunk.hypertable_name = 'readings_num' THEN
            PERFORM pack_range_num(chunk.range_start, chunk.range_end);
        ELSE
            PERFORM pack_range_other(chunk.range_start, chunk.range_end);
        END IF;
        EXECUTE format('DROP TABLE %I.%I', chunk.chunk_schema, chunk.chunk_name);
        packed := packed + 1;
    END LOOP;
    RETURN packed;
END;
$$;

-- Packed weeks without hourly partials get them on every migrate (a no-op once done; the
-- first run over a loaded database unpacks every week, longer than the default timeout).
SET LOCAL statement_timeout = 0;
SELECT fill_packed_hours_num('-infinity', 'infinity'), fill_packed_hours_other('-infinity', 'infinity');
