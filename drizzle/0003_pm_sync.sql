CREATE TABLE "pm_connections" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "pm_connections_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"base_url" text NOT NULL,
	"token_ciphertext" text NOT NULL,
	"last_synced_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "pm_links" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "pm_links_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"installation_id" integer NOT NULL,
	"local_type" text NOT NULL,
	"local_id" integer NOT NULL,
	"remote_id" text NOT NULL,
	"synced_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "pm_connections_installation" ON "pm_connections" USING btree ("installation_id");--> statement-breakpoint
CREATE UNIQUE INDEX "pm_links_local" ON "pm_links" USING btree ("installation_id","local_type","local_id");