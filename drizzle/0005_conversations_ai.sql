CREATE TABLE "contacts" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "contacts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"email" text,
	"customer_id" integer
);
--> statement-breakpoint
CREATE TABLE "conversation_messages" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "conversation_messages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"conversation_id" integer NOT NULL,
	"author" text NOT NULL,
	"contact_id" integer,
	"user_id" integer,
	"message" text NOT NULL,
	"client_id" text NOT NULL,
	"sent_at" timestamp (3) with time zone NOT NULL,
	"ai_draft" text,
	"ai_similarity" real
);
--> statement-breakpoint
CREATE TABLE "conversations" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "conversations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"token" text NOT NULL,
	"contact_id" integer,
	"inbox_id" integer,
	"contact_form_id" integer,
	"ticket_id" integer,
	"subject" text,
	"status" text DEFAULT 'open' NOT NULL,
	"last_message_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "ai_usage_events" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ai_usage_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"installation_id" integer NOT NULL,
	"stream" text NOT NULL,
	"units" integer DEFAULT 1 NOT NULL,
	"source_type" text NOT NULL,
	"source_id" integer NOT NULL,
	"occurred_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ai_usage_periods" (
	"installation_id" integer NOT NULL,
	"period_start" date NOT NULL,
	"reset_date" date NOT NULL,
	"allowance" integer NOT NULL,
	"replies_used" integer DEFAULT 0 NOT NULL,
	"chat_used" integer DEFAULT 0 NOT NULL,
	"state" text NOT NULL,
	"measured_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "ai_usage_periods_installation_id_period_start_pk" PRIMARY KEY("installation_id","period_start")
);
--> statement-breakpoint
ALTER TABLE "installations" ADD COLUMN "billing_anchor" date DEFAULT current_date NOT NULL;--> statement-breakpoint
ALTER TABLE "installations" ADD COLUMN "billing_interval" text DEFAULT 'month' NOT NULL;--> statement-breakpoint
ALTER TABLE "installations" ADD COLUMN "ai_allowance" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "import_chunks" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "import_chunks" ADD COLUMN "last_error" text;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_messages" ADD CONSTRAINT "conversation_messages_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_messages" ADD CONSTRAINT "conversation_messages_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_contact_form_id_contact_forms_id_fk" FOREIGN KEY ("contact_form_id") REFERENCES "public"."contact_forms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "contacts_installation_email_idx" ON "contacts" USING btree ("installation_id",lower("email"));--> statement-breakpoint
CREATE UNIQUE INDEX "conversation_messages_client_key" ON "conversation_messages" USING btree ("conversation_id","client_id");--> statement-breakpoint
CREATE INDEX "conversation_messages_conversation_idx" ON "conversation_messages" USING btree ("conversation_id","id");--> statement-breakpoint
CREATE INDEX "conversation_messages_installation_idx" ON "conversation_messages" USING btree ("installation_id","id");--> statement-breakpoint
CREATE INDEX "conversation_messages_installation_sent_idx" ON "conversation_messages" USING btree ("installation_id","sent_at");--> statement-breakpoint
CREATE UNIQUE INDEX "conversations_token_key" ON "conversations" USING btree ("token");--> statement-breakpoint
CREATE INDEX "conversations_installation_idx" ON "conversations" USING btree ("installation_id","id");--> statement-breakpoint
CREATE INDEX "conversations_installation_created_idx" ON "conversations" USING btree ("installation_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "ai_usage_events_source_key" ON "ai_usage_events" USING btree ("stream","source_type","source_id");--> statement-breakpoint
CREATE INDEX "ai_usage_events_installation_idx" ON "ai_usage_events" USING btree ("installation_id","occurred_at");