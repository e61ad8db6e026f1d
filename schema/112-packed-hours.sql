-- Hourly partials of the packed readings (issue 17): one row per (device, field, site,
-- week) beside its packed row, holding, for every hour of the week with readings, the hour
-- (0..167 from the period's start) and its count, sum, min, max and last (time as
-- microseconds from the start of its hour, and value: regular sampling repeats the same
-- offset hour after hour, which lz4 folds, where offsets from the period's start grow). Whole-hour buckets read 168 partials a
-- week instead of unpacking every reading; they are written by the packing job with the
-- packed row (schema/definitions/035-packing.sql) and compressed like it (lz4, MAIN).
SET LOCAL statement_timeout = 0;

DO $$
DECLARE
    kind text;
BEGIN
    FOR kind IN SELECT unnest(ARRAY['num', 'other']) LOOP
        EXECUTE format($t$
            CREATE TABLE packed_hours_%1$s (
                device_num  integer NOT NULL,
                field_num   integer NOT NULL,
                site_num    integer NOT NULL,
                period      timestamptz NOT NULL,
                hours       smallint[] NOT NULL,
                n           integer[] NOT NULL,%2$s
                last_time   bigint[] NOT NULL,
                last_value  %3$s[] NOT NULL,
                PRIMARY KEY (device_num, field_num, period, site_num)
            );
            SELECT create_hypertable('packed_hours_%1$s', 'period',
                                     chunk_time_interval => INTERVAL '28 days',
                                     create_default_indexes => false);
        $t$, kind,
        CASE kind WHEN 'num' THEN '
                sum         double precision[] NOT NULL,
                min         double precision[] NOT NULL,
                max         double precision[] NOT NULL,' ELSE '' END,
        CASE kind WHEN 'num' THEN 'double precision' ELSE 'jsonb' END);
        EXECUTE format($t$
            ALTER TABLE packed_hours_%1$s
                ALTER COLUMN hours SET STORAGE MAIN, ALTER COLUMN hours SET COMPRESSION lz4,
                ALTER COLUMN n SET STORAGE MAIN, ALTER COLUMN n SET COMPRESSION lz4,
                ALTER COLUMN last_time SET STORAGE MAIN,
                ALTER COLUMN last_time SET COMPRESSION lz4,
                ALTER COLUMN last_value SET STORAGE MAIN,
                ALTER COLUMN last_value SET COMPRESSION lz4
        $t$, kind);
    END LOOP;
    ALTER TABLE packed_hours_num
        ALTER COLUMN sum SET STORAGE MAIN, ALTER COLUMN sum SET COMPRESSION lz4,
        ALTER COLUMN min SET STORAGE MAIN, ALTER COLUMN min SET COMPRESSION lz4,
        ALTER COLUMN max SET STORAGE MAIN, ALTER COLUMN max SET COMPRESSION lz4;
END;
$$;
