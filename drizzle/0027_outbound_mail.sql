CREATE TABLE "outbound_mails" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "outbound_mails_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"inbox_id" integer NOT NULL,
	"ticket_id" integer NOT NULL,
	"thread_entry_id" integer,
	"kind" text NOT NULL,
	"mail" jsonb NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"next_attempt_at" timestamp (3) with time zone DEFAULT now(),
	"sent_at" timestamp (3) with time zone,
	"message_id" text
);
--> statement-breakpoint
ALTER TABLE "ticket_messages" ADD COLUMN "email_status" text;--> statement-breakpoint
ALTER TABLE "ticket_messages" ADD COLUMN "email_error" text;--> statement-breakpoint
ALTER TABLE "outbound_mails" ADD CONSTRAINT "outbound_mails_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outbound_mails" ADD CONSTRAINT "outbound_mails_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outbound_mails" ADD CONSTRAINT "outbound_mails_thread_entry_id_ticket_messages_id_fk" FOREIGN KEY ("thread_entry_id") REFERENCES "public"."ticket_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "outbound_mails_installation_idx" ON "outbound_mails" USING btree ("installation_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "outbound_mails_entry_key" ON "outbound_mails" USING btree ("thread_entry_id") WHERE "outbound_mails"."thread_entry_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "outbound_mails_auto_reply_key" ON "outbound_mails" USING btree ("ticket_id") WHERE "outbound_mails"."kind" = 'autoReply';--> statement-breakpoint
CREATE INDEX "outbound_mails_queued_idx" ON "outbound_mails" USING btree ("next_attempt_at") WHERE "outbound_mails"."status" = 'queued';