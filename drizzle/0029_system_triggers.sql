ALTER TABLE "triggers" ADD COLUMN "system_key" text;--> statement-breakpoint
CREATE UNIQUE INDEX "triggers_system_key" ON "triggers" USING btree ("installation_id","system_key") WHERE "triggers"."system_key" IS NOT NULL;--> statement-breakpoint
-- every installation made before gets the service's own triggers (src/resources/triggers/system-triggers.ts)
INSERT INTO "triggers" ("installation_id", "name", "description", "is_system", "system_key", "state")
SELECT i."id", s."name", s."description", true, s."key", s."state" FROM "installations" i
CROSS JOIN (VALUES
  ('notify.assigned', 'Tell an agent of a ticket assigned to them', 'Mails the agent a ticket is assigned to (by someone else, or by a rule), with the ticket''s latest message.', 'active'),
  ('notify.customerReply', 'Tell the assigned agent of the customer''s reply', 'Mails the ticket''s agent each message its customer adds to it.', 'active'),
  ('notify.newTicket', 'Tell an inbox''s teammates of a new unassigned ticket', 'Mails every teammate who works the whole inbox of a new ticket no one is assigned to. Off to start with: it is a lot of mail.', 'inactive')
) AS s("key", "name", "description", "state")
ON CONFLICT DO NOTHING;
