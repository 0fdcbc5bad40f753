CREATE TABLE "trigger_actions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "trigger_actions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"trigger_id" integer NOT NULL,
	"type" smallint NOT NULL,
	"value" text DEFAULT '' NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"display_order" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "trigger_chain_links" (
	"installation_id" integer NOT NULL,
	"ticket_id" integer NOT NULL,
	"events_after" bigint NOT NULL,
	"events_to" bigint NOT NULL,
	"depth" smallint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "trigger_conditions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "trigger_conditions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"trigger_id" integer NOT NULL,
	"field" smallint NOT NULL,
	"operator" smallint NOT NULL,
	"value" text DEFAULT '' NOT NULL,
	"match_requirement" text DEFAULT 'ALL' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "trigger_inboxes" (
	"installation_id" integer NOT NULL,
	"trigger_id" integer NOT NULL,
	"inbox_id" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	CONSTRAINT "trigger_inboxes_trigger_id_inbox_id_pk" PRIMARY KEY("trigger_id","inbox_id")
);
--> statement-breakpoint
CREATE TABLE "trigger_runs" (
	"installation_id" integer NOT NULL,
	"trigger_id" integer NOT NULL,
	"ticket_id" integer NOT NULL,
	"depth" smallint NOT NULL,
	"ran_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trigger_runs_trigger_id_ticket_id_pk" PRIMARY KEY("trigger_id","ticket_id")
);
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ALTER COLUMN "event_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "triggers" ADD COLUMN "description" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "triggers" ADD COLUMN "type" text DEFAULT 'Automatic' NOT NULL;--> statement-breakpoint
ALTER TABLE "triggers" ADD COLUMN "is_shared" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "triggers" ADD COLUMN "is_system" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "triggers" ADD COLUMN "agent_has_access" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "triggers" ADD COLUMN "add_to_new_inboxes" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "triggers" ADD COLUMN "display_order" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "trigger_actions" ADD CONSTRAINT "trigger_actions_trigger_id_triggers_id_fk" FOREIGN KEY ("trigger_id") REFERENCES "public"."triggers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trigger_chain_links" ADD CONSTRAINT "trigger_chain_links_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trigger_conditions" ADD CONSTRAINT "trigger_conditions_trigger_id_triggers_id_fk" FOREIGN KEY ("trigger_id") REFERENCES "public"."triggers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trigger_inboxes" ADD CONSTRAINT "trigger_inboxes_trigger_id_triggers_id_fk" FOREIGN KEY ("trigger_id") REFERENCES "public"."triggers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trigger_inboxes" ADD CONSTRAINT "trigger_inboxes_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trigger_runs" ADD CONSTRAINT "trigger_runs_trigger_id_triggers_id_fk" FOREIGN KEY ("trigger_id") REFERENCES "public"."triggers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trigger_runs" ADD CONSTRAINT "trigger_runs_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "trigger_actions_trigger_idx" ON "trigger_actions" USING btree ("trigger_id");--> statement-breakpoint
CREATE INDEX "trigger_chain_links_ticket_idx" ON "trigger_chain_links" USING btree ("ticket_id","events_to");--> statement-breakpoint
CREATE INDEX "trigger_conditions_trigger_idx" ON "trigger_conditions" USING btree ("trigger_id");--> statement-breakpoint
CREATE INDEX "trigger_inboxes_inbox_idx" ON "trigger_inboxes" USING btree ("inbox_id");--> statement-breakpoint
CREATE INDEX "trigger_runs_ticket_idx" ON "trigger_runs" USING btree ("ticket_id");