-- What a profile field's readings measure (analytics.md section 3): `gauge` (a level, the
-- default for number fields), `counter` (a running total that only grows, except when the
-- device resets it), `state` (string and boolean fields), or NULL (date and location
-- fields). The measurement decides which aggregates a field takes (increase on counters,
-- duration on states, twa and integral on numbers).

-- The default of each data type, written once: the world loader leaves `measurement`
-- NULL when the file does not set it and this trigger fills it in, as it does for the
-- fields already stored.
CREATE FUNCTION default_measurement(p_data_type text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE p_data_type WHEN 'number' THEN 'gauge'
                            WHEN 'string' THEN 'state'
                            WHEN 'boolean' THEN 'state' END
$$;

CREATE FUNCTION profile_fields_default_measurement() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.measurement := COALESCE(NEW.measurement, default_measurement(NEW.data_type));
    RETURN NEW;
END
$$;

ALTER TABLE profile_fields ADD COLUMN measurement text;
UPDATE profile_fields SET measurement = default_measurement(data_type);

CREATE TRIGGER profile_fields_default_measurement
    BEFORE INSERT OR UPDATE OF data_type, measurement ON profile_fields
    FOR EACH ROW EXECUTE FUNCTION profile_fields_default_measurement();

-- Numbers are gauges or counters, strings and booleans states, dates and locations none.
ALTER TABLE profile_fields ADD CONSTRAINT profile_fields_measurement_fits CHECK (
    CASE data_type WHEN 'number' THEN measurement IN ('gauge', 'counter')
                   WHEN 'string' THEN measurement = 'state'
                   WHEN 'boolean' THEN measurement = 'state'
                   ELSE measurement IS NULL END);
