ALTER TABLE "credentials" ADD COLUMN "state" text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN "created_by" integer;--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN "updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN "updated_by" integer;--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN "deleted_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN "deleted_by" integer;--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN "last_used_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "avatar_url" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "edit_method" text DEFAULT 'html' NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "is_part_time" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "reviewer" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "timezone_id" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "time_format_id" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "send_push_notifications" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "send_web_notifications" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "auto_follow_on_cc" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_timezone_id_timezones_id_fk" FOREIGN KEY ("timezone_id") REFERENCES "public"."timezones"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- A revoked credential is a deleted one, as every record of the API is.
UPDATE "credentials" SET "state" = 'deleted', "deleted_at" = "revoked_at", "updated_at" = "revoked_at" WHERE "revoked_at" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "credentials" DROP COLUMN "revoked_at";