CREATE TABLE "spam_lists" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "spam_lists_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"term" text NOT NULL,
	"list_type" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tags" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "tags_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"name" text NOT NULL,
	"color" text DEFAULT '#9e9e9e' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ticket_priorities" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ticket_priorities_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"name" text NOT NULL,
	"color" text DEFAULT '#9e9e9e' NOT NULL,
	"display_order" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ticket_sources" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ticket_sources_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"name" text NOT NULL,
	"icon" text DEFAULT '' NOT NULL,
	"display_order" integer DEFAULT 0 NOT NULL,
	"is_custom" boolean DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ticket_statuses" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ticket_statuses_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer,
	"code" text DEFAULT 'active' NOT NULL,
	"name" text NOT NULL,
	"color" text DEFAULT '#9e9e9e' NOT NULL,
	"icon" text DEFAULT '' NOT NULL,
	"display_order" integer DEFAULT 0 NOT NULL,
	"is_custom" boolean DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ticket_type_inboxes" (
	"installation_id" integer NOT NULL,
	"ticket_type_id" integer NOT NULL,
	"inbox_id" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	CONSTRAINT "ticket_type_inboxes_ticket_type_id_inbox_id_pk" PRIMARY KEY("ticket_type_id","inbox_id")
);
--> statement-breakpoint
CREATE TABLE "ticket_types" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ticket_types_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"name" text NOT NULL,
	"display_order" integer DEFAULT 0 NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"enabled_for_future_inboxes" boolean DEFAULT true NOT NULL
);
--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "ticket_status_id" integer;--> statement-breakpoint
ALTER TABLE "ticket_type_inboxes" ADD CONSTRAINT "ticket_type_inboxes_ticket_type_id_ticket_types_id_fk" FOREIGN KEY ("ticket_type_id") REFERENCES "public"."ticket_types"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_type_inboxes" ADD CONSTRAINT "ticket_type_inboxes_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "spam_lists_installation_term_key" ON "spam_lists" USING btree ("installation_id",lower("term")) WHERE "spam_lists"."state" = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "tags_installation_name_key" ON "tags" USING btree ("installation_id",lower("name")) WHERE "tags"."state" = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "ticket_priorities_installation_name_key" ON "ticket_priorities" USING btree ("installation_id",lower("name")) WHERE "ticket_priorities"."state" = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "ticket_sources_installation_name_key" ON "ticket_sources" USING btree ("installation_id",lower("name")) WHERE "ticket_sources"."state" = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "ticket_statuses_installation_name_key" ON "ticket_statuses" USING btree ("installation_id",lower("name")) WHERE "ticket_statuses"."state" = 'active';--> statement-breakpoint
CREATE INDEX "ticket_type_inboxes_inbox_idx" ON "ticket_type_inboxes" USING btree ("inbox_id");--> statement-breakpoint
CREATE UNIQUE INDEX "ticket_types_installation_name_key" ON "ticket_types" USING btree ("installation_id",lower("name")) WHERE "ticket_types"."state" = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "ticket_types_one_default" ON "ticket_types" USING btree ("installation_id") WHERE "ticket_types"."is_default" AND "ticket_types"."state" = 'active';--> statement-breakpoint
-- The platform's statuses, with its ids, shared by every installation (docs/resources/ticketstatuses.md).
-- An installation's own statuses are numbered from 100.
INSERT INTO "ticket_statuses" ("id", "code", "name", "color", "icon", "display_order", "is_custom") OVERRIDING SYSTEM VALUE VALUES
(1, 'active', 'Active', '#2196f3', 'circle', 1, false),
(3, 'waiting', 'Waiting on customer', '#ff9800', 'hourglass', 2, false),
(4, 'onhold', 'On hold', '#9c27b0', 'pause', 3, false),
(5, 'solved', 'Solved', '#4caf50', 'check', 4, false),
(6, 'closed', 'Closed', '#607d8b', 'lock', 5, false),
(7, 'spam', 'Spam', '#f44336', 'ban', 6, false);--> statement-breakpoint
ALTER TABLE "ticket_statuses" ALTER COLUMN "id" RESTART WITH 100;--> statement-breakpoint
-- The priorities, types and sources a new installation starts with (src/installations/provision.ts
-- calls this); installations made before this migration get them here.
CREATE FUNCTION provision_ticket_vocabulary(installation integer) RETURNS void LANGUAGE sql AS $$
  INSERT INTO ticket_priorities (installation_id, name, color, display_order) VALUES
    (installation, 'Low', '#8bc34a', 1), (installation, 'Medium', '#ffc107', 2),
    (installation, 'High', '#ff9800', 3), (installation, 'Urgent', '#f44336', 4);
  INSERT INTO ticket_types (installation_id, name, display_order, is_default) VALUES
    (installation, 'Question', 1, true), (installation, 'Problem', 2, false), (installation, 'Feature request', 3, false);
  INSERT INTO ticket_sources (installation_id, name, icon, display_order, is_custom) VALUES
    (installation, 'Email', 'envelope', 1, false), (installation, 'Chat', 'comments', 2, false),
    (installation, 'Phone', 'phone', 3, false), (installation, 'Web form', 'file-lines', 4, false),
    (installation, 'API', 'code', 5, false), (installation, 'Twitter', 'twitter', 6, false),
    (installation, 'Facebook', 'facebook', 7, false);
$$;--> statement-breakpoint
SELECT provision_ticket_vocabulary(id) FROM installations;
