ALTER TABLE "inboxes" ADD COLUMN "aliases" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
CREATE INDEX "inboxes_aliases_idx" ON "inboxes" USING gin ("aliases");