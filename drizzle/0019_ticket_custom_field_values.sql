CREATE TABLE "ticket_custom_field_values" (
	"installation_id" integer NOT NULL,
	"ticket_id" integer NOT NULL,
	"custom_field_id" integer NOT NULL,
	"value" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	CONSTRAINT "ticket_custom_field_values_ticket_id_custom_field_id_pk" PRIMARY KEY("ticket_id","custom_field_id")
);
--> statement-breakpoint
ALTER TABLE "ticket_custom_field_values" ADD CONSTRAINT "ticket_custom_field_values_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_custom_field_values" ADD CONSTRAINT "ticket_custom_field_values_custom_field_id_custom_fields_id_fk" FOREIGN KEY ("custom_field_id") REFERENCES "public"."custom_fields"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ticket_custom_field_values_field_idx" ON "ticket_custom_field_values" USING btree ("custom_field_id");