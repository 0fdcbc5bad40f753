-- A check inside a write sent as one batch (src/db/refusal.ts): the batch stops, rolls back, and
-- the Worker answers the error this names. The SQLSTATE is 'HD' and the HTTP status (HD400,
-- HD404, HD409); the message is the detail a client reads, the DETAIL the property it names.
CREATE FUNCTION desk_refuse(status integer, source text, detail text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'HD' || status::text, MESSAGE = detail, DETAIL = source;
END $$;
