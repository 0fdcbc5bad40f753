CREATE TABLE "inbound_mails" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "inbound_mails_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"inbox_id" integer NOT NULL,
	"message_id" text NOT NULL,
	"envelope_from" text NOT NULL,
	"envelope_to" text NOT NULL,
	"subject" text DEFAULT '' NOT NULL,
	"size_bytes" integer NOT NULL,
	"outcome" text NOT NULL,
	"reason" text,
	"ticket_id" integer,
	"thread_entry_id" integer,
	"raw_key" text,
	"raw_expires_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "ticket_messages" ADD COLUMN "email_message_id" text;--> statement-breakpoint
ALTER TABLE "inbound_mails" ADD CONSTRAINT "inbound_mails_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inbound_mails" ADD CONSTRAINT "inbound_mails_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inbound_mails" ADD CONSTRAINT "inbound_mails_thread_entry_id_ticket_messages_id_fk" FOREIGN KEY ("thread_entry_id") REFERENCES "public"."ticket_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "inbound_mails_installation_idx" ON "inbound_mails" USING btree ("installation_id","id");--> statement-breakpoint
CREATE INDEX "inbound_mails_raw_expiry_idx" ON "inbound_mails" USING btree ("raw_expires_at") WHERE "inbound_mails"."raw_key" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "inbound_mails_message_key" ON "inbound_mails" USING btree ("installation_id","message_id") WHERE "inbound_mails"."outcome" IN ('ticket', 'reply');--> statement-breakpoint
CREATE UNIQUE INDEX "ticket_messages_email_message_id_key" ON "ticket_messages" USING btree ("installation_id","email_message_id") WHERE "ticket_messages"."email_message_id" IS NOT NULL;