ALTER TABLE "contact_forms" ADD COLUMN "ai_assistant" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "contact_forms" ADD COLUMN "ai_wait_seconds" integer DEFAULT 30 NOT NULL;