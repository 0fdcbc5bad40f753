CREATE TABLE "happiness_rating_options" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "happiness_rating_options_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"name" text NOT NULL,
	"score" integer NOT NULL,
	"display_order" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "happiness_ratings" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "happiness_ratings_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"ticket_id" integer NOT NULL,
	"survey_id" integer NOT NULL,
	"option_id" integer NOT NULL,
	"score" integer NOT NULL,
	"comment" text DEFAULT '' NOT NULL,
	"agent_id" integer,
	"inbox_id" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "happiness_surveys" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "happiness_surveys_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"installation_id" integer NOT NULL,
	"ticket_id" integer NOT NULL,
	"message_id" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "happiness_ratings" ADD CONSTRAINT "happiness_ratings_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "happiness_ratings" ADD CONSTRAINT "happiness_ratings_survey_id_happiness_surveys_id_fk" FOREIGN KEY ("survey_id") REFERENCES "public"."happiness_surveys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "happiness_ratings" ADD CONSTRAINT "happiness_ratings_option_id_happiness_rating_options_id_fk" FOREIGN KEY ("option_id") REFERENCES "public"."happiness_rating_options"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "happiness_ratings" ADD CONSTRAINT "happiness_ratings_agent_id_users_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "happiness_ratings" ADD CONSTRAINT "happiness_ratings_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "happiness_surveys" ADD CONSTRAINT "happiness_surveys_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "happiness_surveys" ADD CONSTRAINT "happiness_surveys_message_id_ticket_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."ticket_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "happiness_rating_options_name_key" ON "happiness_rating_options" USING btree ("installation_id",lower("name")) WHERE "happiness_rating_options"."state" = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "happiness_ratings_ticket_key" ON "happiness_ratings" USING btree ("ticket_id") WHERE "happiness_ratings"."state" = 'active';--> statement-breakpoint
CREATE INDEX "happiness_ratings_agent_idx" ON "happiness_ratings" USING btree ("installation_id","agent_id");--> statement-breakpoint
CREATE INDEX "happiness_ratings_inbox_idx" ON "happiness_ratings" USING btree ("installation_id","inbox_id");--> statement-breakpoint
CREATE INDEX "happiness_surveys_ticket_idx" ON "happiness_surveys" USING btree ("ticket_id");--> statement-breakpoint
-- every installation's default rating options (new ones get them from provisioning)
INSERT INTO "happiness_rating_options" ("installation_id", "name", "score", "display_order")
SELECT i.id, o.name, o.score, o.display_order FROM "installations" i
CROSS JOIN (VALUES ('Great', 3, 1), ('Okay', 2, 2), ('Not good', 1, 3)) AS o(name, score, display_order);
