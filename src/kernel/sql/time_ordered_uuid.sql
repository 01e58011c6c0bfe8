-- A UUID of version 7 (RFC 9562, section 5.7): the Unix time in milliseconds in its first
-- 48 bits, then the version (7) and the variant, then random bits (74 of them, from
-- gen_random_uuid). Keys made of it arrive at the right edge of their B-tree indexes,
-- where the pages are already in memory and already written since the last checkpoint;
-- a random key lands on a leaf of its own, which on a grown ledger is read in, dirtied and,
-- after a checkpoint, written whole to the WAL (openapi/DESIGN.md, "Statements that do not
-- grow with the ledger"). PostgreSQL 18 has uuidv7(); this one runs on earlier releases,
-- those Citus supports among them. Inlined by the planner into the calling statement.
CREATE OR REPLACE FUNCTION time_ordered_uuid() RETURNS uuid LANGUAGE sql VOLATILE AS $$
  SELECT encode(
           set_bit(set_bit(
             overlay(uuid_send(gen_random_uuid())
                     PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                     FROM 1 FOR 6),
             52, 1), 53, 1),
           'hex')::uuid
$$;
