CREATE TABLE "ticket_message_files" (
	"installation_id" integer NOT NULL,
	"message_id" integer NOT NULL,
	"file_id" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	CONSTRAINT "ticket_message_files_message_id_file_id_pk" PRIMARY KEY("message_id","file_id")
);
--> statement-breakpoint
CREATE TABLE "ticket_message_mentions" (
	"installation_id" integer NOT NULL,
	"message_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	CONSTRAINT "ticket_message_mentions_message_id_user_id_pk" PRIMARY KEY("message_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "ticket_reads" (
	"installation_id" integer NOT NULL,
	"ticket_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"read_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ticket_reads_ticket_id_user_id_pk" PRIMARY KEY("ticket_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "time_logs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "time_logs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"ticket_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"seconds" integer NOT NULL,
	"date" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"billable" boolean DEFAULT false NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"timezone_offset" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "files" ADD COLUMN "disposition" text DEFAULT 'attachment' NOT NULL;--> statement-breakpoint
ALTER TABLE "files" ADD COLUMN "storage_key" text;--> statement-breakpoint
ALTER TABLE "files" ADD COLUMN "upload_token_hash" text;--> statement-breakpoint
ALTER TABLE "files" ADD COLUMN "upload_expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "files" ADD COLUMN "uploaded_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "files" ADD COLUMN "confirmed_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "first_response_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "response_time_mins" integer;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "resolved_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "resolution_time_mins" integer;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "search_vector" "tsvector";--> statement-breakpoint
ALTER TABLE "ticket_message_files" ADD CONSTRAINT "ticket_message_files_message_id_ticket_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."ticket_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_message_files" ADD CONSTRAINT "ticket_message_files_file_id_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."files"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_message_mentions" ADD CONSTRAINT "ticket_message_mentions_message_id_ticket_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."ticket_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_message_mentions" ADD CONSTRAINT "ticket_message_mentions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_reads" ADD CONSTRAINT "ticket_reads_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_reads" ADD CONSTRAINT "ticket_reads_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "time_logs" ADD CONSTRAINT "time_logs_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "time_logs" ADD CONSTRAINT "time_logs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ticket_message_files_file_idx" ON "ticket_message_files" USING btree ("file_id");--> statement-breakpoint
CREATE INDEX "ticket_message_mentions_user_idx" ON "ticket_message_mentions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "time_logs_ticket_idx" ON "time_logs" USING btree ("ticket_id","id");--> statement-breakpoint
CREATE INDEX "time_logs_user_date_idx" ON "time_logs" USING btree ("installation_id","user_id","date");--> statement-breakpoint
CREATE INDEX "files_unconfirmed_idx" ON "files" USING btree ("created_at") WHERE confirmed_at IS NULL AND storage_key IS NOT NULL;--> statement-breakpoint
CREATE INDEX "tickets_search_idx" ON "tickets" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "tickets_inbox_status_idx" ON "tickets" USING btree ("installation_id","inbox_id","status_id","id") WHERE state = 'active';