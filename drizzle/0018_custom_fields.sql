CREATE TABLE "custom_field_inboxes" (
	"installation_id" integer NOT NULL,
	"custom_field_id" integer NOT NULL,
	"inbox_id" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	CONSTRAINT "custom_field_inboxes_custom_field_id_inbox_id_pk" PRIMARY KEY("custom_field_id","inbox_id")
);
--> statement-breakpoint
CREATE TABLE "custom_field_options" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "custom_field_options_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"custom_field_id" integer NOT NULL,
	"name" text NOT NULL,
	"display_order" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "custom_fields" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "custom_fields_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"agent_label" text NOT NULL,
	"customer_label" text DEFAULT '' NOT NULL,
	"kind" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"agent_required" boolean DEFAULT false NOT NULL,
	"customer_required" boolean DEFAULT false NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"add_to_new_inboxes" boolean DEFAULT true NOT NULL,
	"display_order" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "custom_field_inboxes" ADD CONSTRAINT "custom_field_inboxes_custom_field_id_custom_fields_id_fk" FOREIGN KEY ("custom_field_id") REFERENCES "public"."custom_fields"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custom_field_inboxes" ADD CONSTRAINT "custom_field_inboxes_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custom_field_options" ADD CONSTRAINT "custom_field_options_custom_field_id_custom_fields_id_fk" FOREIGN KEY ("custom_field_id") REFERENCES "public"."custom_fields"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "custom_field_inboxes_inbox_idx" ON "custom_field_inboxes" USING btree ("inbox_id");--> statement-breakpoint
CREATE INDEX "custom_field_options_field_idx" ON "custom_field_options" USING btree ("custom_field_id");--> statement-breakpoint
CREATE UNIQUE INDEX "custom_field_options_field_name_key" ON "custom_field_options" USING btree ("custom_field_id",lower("name")) WHERE "custom_field_options"."state" = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "custom_fields_installation_label_key" ON "custom_fields" USING btree ("installation_id",lower("agent_label")) WHERE "custom_fields"."state" = 'active';