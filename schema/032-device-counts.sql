-- Device counts per (partner, sub-account, status), so that the `total` of an unfiltered
-- device list page (the most common directory call) is a lookup instead of a walk over
-- every device of the scope. Kept by statement-level triggers on `devices`
-- (schema/definitions/035-directory.sql). Inventory devices have no sub-account; they are
-- counted under the nil UUID.

CREATE TABLE device_counts (
    partner_id      uuid NOT NULL,
    sub_account_id  uuid NOT NULL,
    status          text NOT NULL,
    n               bigint NOT NULL,
    PRIMARY KEY (partner_id, sub_account_id, status)
);

INSERT INTO device_counts (partner_id, sub_account_id, status, n)
SELECT partner_id, COALESCE(sub_account_id, '00000000-0000-0000-0000-000000000000'), status,
       count(*)
  FROM devices
 GROUP BY 1, 2, 3;
