CREATE TABLE "dead_letters" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "dead_letters_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"installation_id" integer,
	"queue" text NOT NULL,
	"message_id" text NOT NULL,
	"body" jsonb NOT NULL,
	"attempts" integer NOT NULL,
	"sent_at" timestamp (3) with time zone NOT NULL,
	"dead_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"replayed_at" timestamp (3) with time zone,
	"discarded_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "dead_letters_message_key" ON "dead_letters" USING btree ("queue","message_id");--> statement-breakpoint
CREATE INDEX "dead_letters_open_idx" ON "dead_letters" USING btree ("dead_at") WHERE "dead_letters"."replayed_at" IS NULL AND "dead_letters"."discarded_at" IS NULL;--> statement-breakpoint
CREATE INDEX "dead_letters_installation_idx" ON "dead_letters" USING btree ("installation_id","id");