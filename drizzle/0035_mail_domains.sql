CREATE TABLE "mail_domains" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "mail_domains_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"name" text NOT NULL,
	"verification_token" text NOT NULL,
	"verified_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "outbound_mails" ALTER COLUMN "ticket_id" DROP NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "mail_domains_installation_name_key" ON "mail_domains" USING btree ("installation_id","name") WHERE "mail_domains"."state" = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "mail_domains_verified_name_key" ON "mail_domains" USING btree ("name") WHERE "mail_domains"."state" = 'active' AND "mail_domains"."verified_at" IS NOT NULL;