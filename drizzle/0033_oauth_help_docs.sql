CREATE TABLE "oauth_apps" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "oauth_apps_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"name" text NOT NULL,
	"client_id" text NOT NULL,
	"client_type" text NOT NULL,
	"secret_hash" text,
	"secret_prefix" text,
	"redirect_uris" text[] NOT NULL,
	"scopes" text[] DEFAULT '{desk}'::text[] NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"grant_id" integer NOT NULL,
	"redirect_uri" text NOT NULL,
	"redirect_uri_sent" boolean NOT NULL,
	"code_challenge" text,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"used_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "oauth_grants" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "oauth_grants_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"app_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"scopes" text[] NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_refresh_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"grant_id" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"used_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "helpdoc_articles" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "helpdoc_articles_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"helpdoc_id" integer NOT NULL,
	"title" text NOT NULL,
	"slug" text NOT NULL,
	"description" text,
	"contents" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"is_private" boolean DEFAULT false NOT NULL,
	"display_order" integer DEFAULT 0 NOT NULL,
	"popularity" integer DEFAULT 0 NOT NULL,
	"edit_method" text DEFAULT 'html' NOT NULL,
	"old_url" text,
	"disqus_enabled" boolean DEFAULT false NOT NULL,
	"categories" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"related_articles" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"published_at" timestamp (3) with time zone,
	"search_vector" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('simple', coalesce(title, '')), 'A') || setweight(to_tsvector('simple', coalesce(description, '')), 'B') || setweight(to_tsvector('simple', left(regexp_replace(contents, '<[^>]*>', ' ', 'g'), 100000)), 'C')) STORED
);
--> statement-breakpoint
CREATE TABLE "helpdoc_categories" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "helpdoc_categories_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"helpdoc_id" integer NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"description" text,
	"display_order" integer DEFAULT 0 NOT NULL,
	"parent_id" integer
);
--> statement-breakpoint
CREATE TABLE "contact_form_helpdoc_articles" (
	"installation_id" integer NOT NULL,
	"contact_form_id" integer NOT NULL,
	"article_id" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	CONSTRAINT "contact_form_helpdoc_articles_contact_form_id_article_id_pk" PRIMARY KEY("contact_form_id","article_id")
);
--> statement-breakpoint
CREATE TABLE "ticket_helpdoc_articles" (
	"installation_id" integer NOT NULL,
	"ticket_id" integer NOT NULL,
	"article_id" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	CONSTRAINT "ticket_helpdoc_articles_ticket_id_article_id_pk" PRIMARY KEY("ticket_id","article_id")
);
--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN "grant_id" integer;--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN "parent_id" integer;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD COLUMN "description" text;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD COLUMN "meta_site_description" text;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD COLUMN "subdomain" text;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD COLUMN "custom_domain" text;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD COLUMN "public_site_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD COLUMN "language_code" text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD COLUMN "contact_form_enabled" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD COLUMN "show_date_last_modified" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD COLUMN "home_page_link_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD COLUMN "home_page_link_text" text;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD COLUMN "home_page_url" text;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD COLUMN "header_bg_color" text;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD COLUMN "nav_active_color" text;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD COLUMN "nav_text_color" text;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD COLUMN "page_bg_color" text;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD COLUMN "link_color" text;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD COLUMN "text_color" text;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD COLUMN "edit_method" text DEFAULT 'html' NOT NULL;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD COLUMN "send_emails_to_inbox_id" integer;--> statement-breakpoint
ALTER TABLE "oauth_codes" ADD CONSTRAINT "oauth_codes_grant_id_oauth_grants_id_fk" FOREIGN KEY ("grant_id") REFERENCES "public"."oauth_grants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD CONSTRAINT "oauth_grants_installation_id_installations_id_fk" FOREIGN KEY ("installation_id") REFERENCES "public"."installations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD CONSTRAINT "oauth_grants_app_id_oauth_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."oauth_apps"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD CONSTRAINT "oauth_grants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_refresh_tokens" ADD CONSTRAINT "oauth_refresh_tokens_grant_id_oauth_grants_id_fk" FOREIGN KEY ("grant_id") REFERENCES "public"."oauth_grants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdoc_articles" ADD CONSTRAINT "helpdoc_articles_helpdoc_id_helpdocs_id_fk" FOREIGN KEY ("helpdoc_id") REFERENCES "public"."helpdocs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdoc_categories" ADD CONSTRAINT "helpdoc_categories_helpdoc_id_helpdocs_id_fk" FOREIGN KEY ("helpdoc_id") REFERENCES "public"."helpdocs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdoc_categories" ADD CONSTRAINT "helpdoc_categories_parent_id_helpdoc_categories_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."helpdoc_categories"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_form_helpdoc_articles" ADD CONSTRAINT "contact_form_helpdoc_articles_contact_form_id_contact_forms_id_fk" FOREIGN KEY ("contact_form_id") REFERENCES "public"."contact_forms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_form_helpdoc_articles" ADD CONSTRAINT "contact_form_helpdoc_articles_article_id_helpdoc_articles_id_fk" FOREIGN KEY ("article_id") REFERENCES "public"."helpdoc_articles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_helpdoc_articles" ADD CONSTRAINT "ticket_helpdoc_articles_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_helpdoc_articles" ADD CONSTRAINT "ticket_helpdoc_articles_article_id_helpdoc_articles_id_fk" FOREIGN KEY ("article_id") REFERENCES "public"."helpdoc_articles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_apps_client_id_key" ON "oauth_apps" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "oauth_grants_app_idx" ON "oauth_grants" USING btree ("app_id");--> statement-breakpoint
CREATE INDEX "oauth_grants_user_idx" ON "oauth_grants" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "oauth_refresh_tokens_grant_idx" ON "oauth_refresh_tokens" USING btree ("grant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "helpdoc_articles_slug_key" ON "helpdoc_articles" USING btree ("helpdoc_id","slug") WHERE "helpdoc_articles"."state" = 'active';--> statement-breakpoint
CREATE INDEX "helpdoc_articles_search_idx" ON "helpdoc_articles" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "helpdoc_articles_categories_idx" ON "helpdoc_articles" USING gin ("categories");--> statement-breakpoint
CREATE UNIQUE INDEX "helpdoc_categories_slug_key" ON "helpdoc_categories" USING btree ("helpdoc_id","slug") WHERE "helpdoc_categories"."state" = 'active';--> statement-breakpoint
CREATE INDEX "ticket_helpdoc_articles_article_idx" ON "ticket_helpdoc_articles" USING btree ("article_id");--> statement-breakpoint
ALTER TABLE "credentials" ADD CONSTRAINT "credentials_grant_id_oauth_grants_id_fk" FOREIGN KEY ("grant_id") REFERENCES "public"."oauth_grants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credentials" ADD CONSTRAINT "credentials_parent_id_credentials_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."credentials"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "helpdocs" ADD CONSTRAINT "helpdocs_send_emails_to_inbox_id_inboxes_id_fk" FOREIGN KEY ("send_emails_to_inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "credentials_grant_idx" ON "credentials" USING btree ("grant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "helpdocs_subdomain_key" ON "helpdocs" USING btree ("subdomain") WHERE "helpdocs"."state" = 'active';