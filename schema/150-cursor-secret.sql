-- The secret that signs POST /query cursors when CURSOR_SECRET is not set
-- (app/query/cursor.py): made once, at random, and read by every instance of the
-- database, so cursors survive restarts and work across instances. 32 bytes from two
-- version 4 UUIDs (gen_random_uuid draws from the server's strong random source; 244 bits
-- of them are random).
CREATE TABLE server_secrets (
    name    text PRIMARY KEY,
    secret  bytea NOT NULL
);
INSERT INTO server_secrets (name, secret)
VALUES ('query_cursor',
        decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));
