CREATE TABLE "ai_drafts" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ai_drafts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"ticket_id" integer NOT NULL,
	"reply_to_id" integer,
	"html_body" text NOT NULL,
	"text_body" text NOT NULL,
	"sources" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"model" text NOT NULL,
	"instructions" text,
	"tone" text
);
--> statement-breakpoint
ALTER TABLE "ticket_messages" ADD COLUMN "ai_draft_id" integer;--> statement-breakpoint
ALTER TABLE "ticket_messages" ADD COLUMN "ai_similarity" real;--> statement-breakpoint
ALTER TABLE "ai_drafts" ADD CONSTRAINT "ai_drafts_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_drafts" ADD CONSTRAINT "ai_drafts_reply_to_id_ticket_messages_id_fk" FOREIGN KEY ("reply_to_id") REFERENCES "public"."ticket_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ai_drafts_ticket_idx" ON "ai_drafts" USING btree ("ticket_id","id");--> statement-breakpoint
ALTER TABLE "ticket_messages" ADD CONSTRAINT "ticket_messages_ai_draft_id_ai_drafts_id_fk" FOREIGN KEY ("ai_draft_id") REFERENCES "public"."ai_drafts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ticket_messages_ai_draft_idx" ON "ticket_messages" USING btree ("installation_id","created_at") WHERE "ticket_messages"."ai_draft_id" IS NOT NULL;