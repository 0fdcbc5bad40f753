CREATE TABLE "idempotency_keys" (
	"installation_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"key" text NOT NULL,
	"request_digest" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"response_status" integer,
	"response_type" text,
	"response_body" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_installation_id_user_id_key_pk" PRIMARY KEY("installation_id","user_id","key")
);
--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created_at");