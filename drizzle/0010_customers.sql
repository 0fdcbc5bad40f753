CREATE TABLE "customer_contacts" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "customer_contacts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"customer_id" integer NOT NULL,
	"type" text DEFAULT 'email' NOT NULL,
	"value" text NOT NULL,
	"is_main" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
ALTER TABLE "customers" ALTER COLUMN "extra_data" SET DATA TYPE text USING (CASE WHEN jsonb_typeof("extra_data") = 'string' THEN "extra_data" #>> '{}' ELSE "extra_data"::text END);--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "linkedin_url" text;--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "facebook_url" text;--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "twitter_handle" text;--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "avatar_url" text;--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "welcome_email_sent" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "permission" text DEFAULT 'all' NOT NULL;--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "add_method" text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE "customer_contacts" ADD CONSTRAINT "customer_contacts_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "customer_contacts_customer_idx" ON "customer_contacts" USING btree ("customer_id");--> statement-breakpoint
CREATE INDEX "customer_contacts_value_idx" ON "customer_contacts" USING btree ("installation_id",lower("value"));--> statement-breakpoint
-- One live customer per contact value and type in an installation, and one main contact of each
-- type per customer. Deferred to the end of the transaction, so one write may move a value or
-- the main mark from one contact to another.
ALTER TABLE "customer_contacts" ADD CONSTRAINT "customer_contacts_value_key"
  EXCLUDE USING btree ("installation_id" WITH =, "type" WITH =, lower("value") WITH =) WHERE ("state" = 'active')
  DEFERRABLE INITIALLY DEFERRED;--> statement-breakpoint
ALTER TABLE "customer_contacts" ADD CONSTRAINT "customer_contacts_one_main_key"
  EXCLUDE USING btree ("customer_id" WITH =, "type" WITH =) WHERE ("is_main" AND "state" = 'active')
  DEFERRABLE INITIALLY DEFERRED;--> statement-breakpoint
-- Every customer written before contacts existed gets its email as its main email contact. Two
-- customers of one installation with the same email: the oldest gets the contact, the others
-- keep the address on the record only (an agent merges them).
INSERT INTO "customer_contacts" ("installation_id", "customer_id", "type", "value", "is_main", "created_at", "created_by", "updated_at", "updated_by")
SELECT DISTINCT ON ("installation_id", lower(btrim("email"))) "installation_id", "id", 'email', btrim("email"), true, "created_at", "created_by", "created_at", "created_by"
  FROM "customers"
 WHERE "state" = 'active' AND btrim("email") <> ''
 ORDER BY "installation_id", lower(btrim("email")), "id";
--> statement-breakpoint
-- A deleted customer's contacts go with it (a single, bulk or merge delete alike), which frees
-- their values for another customer; the customer's `deleted` event stands for them.
CREATE FUNCTION customer_contacts_follow_customer() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE customer_contacts SET state = 'deleted', deleted_at = NEW.deleted_at, deleted_by = NEW.deleted_by
   WHERE customer_id = NEW.id AND state = 'active';
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER customer_contacts_follow_customer AFTER UPDATE OF state ON customers
  FOR EACH ROW WHEN (OLD.state = 'active' AND NEW.state = 'deleted') EXECUTE FUNCTION customer_contacts_follow_customer();
