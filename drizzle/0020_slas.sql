CREATE TABLE "sla_companies" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sla_companies_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"sla_id" integer NOT NULL,
	"company_id" integer NOT NULL,
	"condition_option" text DEFAULT 'eq' NOT NULL,
	CONSTRAINT "sla_companies_condition_option_check" CHECK ("sla_companies"."condition_option" IN ('eq', 'ne'))
);
--> statement-breakpoint
CREATE TABLE "sla_customers" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sla_customers_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"sla_id" integer NOT NULL,
	"customer_id" integer NOT NULL,
	"condition_option" text DEFAULT 'eq' NOT NULL,
	CONSTRAINT "sla_customers_condition_option_check" CHECK ("sla_customers"."condition_option" IN ('eq', 'ne'))
);
--> statement-breakpoint
CREATE TABLE "sla_inboxes" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sla_inboxes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"sla_id" integer NOT NULL,
	"inbox_id" integer NOT NULL,
	"condition_option" text DEFAULT 'eq' NOT NULL,
	CONSTRAINT "sla_inboxes_condition_option_check" CHECK ("sla_inboxes"."condition_option" IN ('eq', 'ne'))
);
--> statement-breakpoint
CREATE TABLE "sla_notifications" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sla_notifications_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"sla_id" integer NOT NULL,
	"condition" text NOT NULL,
	"type" text NOT NULL,
	"duration" integer DEFAULT 0 NOT NULL,
	"user_id" integer,
	"notify_assigned_user" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sla_tags" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sla_tags_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"sla_id" integer NOT NULL,
	"tag_id" integer NOT NULL,
	"condition_option" text DEFAULT 'eq' NOT NULL,
	CONSTRAINT "sla_tags_condition_option_check" CHECK ("sla_tags"."condition_option" IN ('eq', 'ne'))
);
--> statement-breakpoint
CREATE TABLE "sla_ticket_priorities" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sla_ticket_priorities_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"sla_id" integer NOT NULL,
	"priority_id" integer,
	"hours" integer DEFAULT 0 NOT NULL,
	"minutes" integer DEFAULT 0 NOT NULL,
	"reply_time_minutes" integer,
	"resolution_time_minutes" integer,
	"description" text DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sla_ticket_types" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sla_ticket_types_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"sla_id" integer NOT NULL,
	"ticket_type_id" integer NOT NULL,
	"condition_option" text DEFAULT 'eq' NOT NULL,
	CONSTRAINT "sla_ticket_types_condition_option_check" CHECK ("sla_ticket_types"."condition_option" IN ('eq', 'ne'))
);
--> statement-breakpoint
CREATE TABLE "slas" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "slas_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"display_order" integer DEFAULT 0 NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"businesshours_id" integer
);
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "sla_id" integer;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "sla_first_response_due_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "sla_first_response_status" text;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "sla_next_reply_due_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "sla_next_reply_status" text;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "sla_resolution_due_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "sla_resolution_status" text;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "sla_breached" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "sla_paused_since" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "sla_paused_minutes" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "sla_next_reply_since" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "sla_next_reply_paused_base" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "sla_check_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "sla_companies" ADD CONSTRAINT "sla_companies_sla_id_slas_id_fk" FOREIGN KEY ("sla_id") REFERENCES "public"."slas"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sla_companies" ADD CONSTRAINT "sla_companies_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sla_customers" ADD CONSTRAINT "sla_customers_sla_id_slas_id_fk" FOREIGN KEY ("sla_id") REFERENCES "public"."slas"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sla_customers" ADD CONSTRAINT "sla_customers_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sla_inboxes" ADD CONSTRAINT "sla_inboxes_sla_id_slas_id_fk" FOREIGN KEY ("sla_id") REFERENCES "public"."slas"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sla_inboxes" ADD CONSTRAINT "sla_inboxes_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sla_notifications" ADD CONSTRAINT "sla_notifications_sla_id_slas_id_fk" FOREIGN KEY ("sla_id") REFERENCES "public"."slas"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sla_notifications" ADD CONSTRAINT "sla_notifications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sla_tags" ADD CONSTRAINT "sla_tags_sla_id_slas_id_fk" FOREIGN KEY ("sla_id") REFERENCES "public"."slas"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sla_tags" ADD CONSTRAINT "sla_tags_tag_id_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."tags"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sla_ticket_priorities" ADD CONSTRAINT "sla_ticket_priorities_sla_id_slas_id_fk" FOREIGN KEY ("sla_id") REFERENCES "public"."slas"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sla_ticket_priorities" ADD CONSTRAINT "sla_ticket_priorities_priority_id_ticket_priorities_id_fk" FOREIGN KEY ("priority_id") REFERENCES "public"."ticket_priorities"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sla_ticket_types" ADD CONSTRAINT "sla_ticket_types_sla_id_slas_id_fk" FOREIGN KEY ("sla_id") REFERENCES "public"."slas"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sla_ticket_types" ADD CONSTRAINT "sla_ticket_types_ticket_type_id_ticket_types_id_fk" FOREIGN KEY ("ticket_type_id") REFERENCES "public"."ticket_types"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slas" ADD CONSTRAINT "slas_businesshours_id_business_hours_id_fk" FOREIGN KEY ("businesshours_id") REFERENCES "public"."business_hours"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sla_companies_sla_idx" ON "sla_companies" USING btree ("sla_id");--> statement-breakpoint
CREATE INDEX "sla_customers_sla_idx" ON "sla_customers" USING btree ("sla_id");--> statement-breakpoint
CREATE INDEX "sla_inboxes_sla_idx" ON "sla_inboxes" USING btree ("sla_id");--> statement-breakpoint
CREATE INDEX "sla_notifications_sla_idx" ON "sla_notifications" USING btree ("sla_id");--> statement-breakpoint
CREATE INDEX "sla_tags_sla_idx" ON "sla_tags" USING btree ("sla_id");--> statement-breakpoint
CREATE INDEX "sla_ticket_priorities_sla_idx" ON "sla_ticket_priorities" USING btree ("sla_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sla_ticket_priorities_sla_priority_key" ON "sla_ticket_priorities" USING btree ("sla_id",coalesce("priority_id", 0)) WHERE "sla_ticket_priorities"."state" = 'active';--> statement-breakpoint
CREATE INDEX "sla_ticket_types_sla_idx" ON "sla_ticket_types" USING btree ("sla_id");--> statement-breakpoint
CREATE UNIQUE INDEX "slas_installation_name_key" ON "slas" USING btree ("installation_id",lower("name")) WHERE "slas"."state" = 'active';--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_sla_id_slas_id_fk" FOREIGN KEY ("sla_id") REFERENCES "public"."slas"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tickets_sla_check_idx" ON "tickets" USING btree ("sla_check_at") WHERE sla_check_at IS NOT NULL;