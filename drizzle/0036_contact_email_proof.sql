ALTER TABLE "contacts" ADD COLUMN "email_token_hash" text;--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "email_verified_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "contacts_email_token_key" ON "contacts" USING btree ("email_token_hash") WHERE "contacts"."email_token_hash" IS NOT NULL;