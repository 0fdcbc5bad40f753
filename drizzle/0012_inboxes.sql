CREATE TABLE "inbox_users" (
	"installation_id" integer NOT NULL,
	"inbox_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"access" text DEFAULT 'full' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	CONSTRAINT "inbox_users_inbox_id_user_id_pk" PRIMARY KEY("inbox_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "local_part" text;--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "signature" text;--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "auto_reply_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "auto_reply_subject" text;--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "auto_reply_message" text;--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "display_order" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "language_code" text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "spam_threshold" integer DEFAULT 5 NOT NULL;--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "on_closed_wait" integer DEFAULT 7 NOT NULL;--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "happiness_rating_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "happiness_rating_message" text;--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "smtp_server" text;--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "smtp_port" integer;--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "smtp_username" text;--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "smtp_password_ciphertext" text;--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "smtp_security" text;--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "smtp_provider" text;--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "send_emails_from" text;--> statement-breakpoint
ALTER TABLE "inbox_users" ADD CONSTRAINT "inbox_users_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inbox_users" ADD CONSTRAINT "inbox_users_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "inbox_users_user_idx" ON "inbox_users" USING btree ("user_id");--> statement-breakpoint
-- Two live inboxes of one installation with one address: the oldest keeps it, the others lose
-- it (their name and everything else stay), so the address names one inbox from now on.
UPDATE "inboxes" i SET "email" = NULL
 WHERE i."state" = 'active' AND i."email" IS NOT NULL
   AND EXISTS (SELECT 1 FROM "inboxes" o WHERE o."installation_id" = i."installation_id" AND o."state" = 'active'
                 AND lower(o."email") = lower(i."email") AND o."id" < i."id");--> statement-breakpoint
CREATE UNIQUE INDEX "inboxes_installation_email_key" ON "inboxes" USING btree ("installation_id",lower("email")) WHERE "inboxes"."state" = 'active' AND "inboxes"."email" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "inboxes_installation_local_part_key" ON "inboxes" USING btree ("installation_id",lower("local_part")) WHERE "inboxes"."state" = 'active' AND "inboxes"."local_part" IS NOT NULL;--> statement-breakpoint
-- Before members existed every seated teammate worked every inbox: they stay members, with full access.
INSERT INTO "inbox_users" ("installation_id", "inbox_id", "user_id", "access")
SELECT i."installation_id", i."id", u."id", 'full'
  FROM "inboxes" i JOIN "users" u ON u."installation_id" = i."installation_id"
 WHERE i."state" = 'active' AND u."state" = 'active' AND u."role" IN ('owner', 'admin', 'agent');
