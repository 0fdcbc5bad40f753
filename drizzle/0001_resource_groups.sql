CREATE TABLE "files" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "files_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"name" text NOT NULL,
	"content_type" text DEFAULT 'application/octet-stream' NOT NULL,
	"size" bigint DEFAULT 0 NOT NULL,
	"url" text
);
--> statement-breakpoint
CREATE TABLE "agent_invites" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "agent_invites_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"owner_id" integer NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"message" text,
	"decided_at" timestamp (3) with time zone,
	"decided_by" integer
);
--> statement-breakpoint
CREATE TABLE "announcements" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "announcements_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"title" text NOT NULL,
	"body" text NOT NULL,
	"audience" text DEFAULT 'everyone' NOT NULL,
	"published_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "anomalies" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "anomalies_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"name" text NOT NULL,
	"details" jsonb,
	"customer_id" integer,
	"inbox_id" integer,
	"user_id" integer,
	"detected_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"cleared_at" timestamp (3) with time zone,
	"cleared_by" integer,
	"clear_note" text
);
--> statement-breakpoint
CREATE TABLE "app_feature_installations" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "app_feature_installations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"appfeature_id" integer NOT NULL,
	"comment" text,
	"value" text
);
--> statement-breakpoint
CREATE TABLE "app_features" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "app_features_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"app_id" integer NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"default_value" text
);
--> statement-breakpoint
CREATE TABLE "app_installations" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "app_installations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"app_id" integer NOT NULL,
	"status" text NOT NULL,
	"installed_at" timestamp (3) with time zone,
	"uninstalled_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "app_setting_definitions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "app_setting_definitions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"app_id" integer NOT NULL,
	"key" text NOT NULL,
	"name" text NOT NULL,
	"setting_type" text NOT NULL,
	"options" jsonb,
	"default_value" jsonb,
	"required" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app_setting_values" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "app_setting_values_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"app_id" integer NOT NULL,
	"setting_id" integer NOT NULL,
	"value" jsonb
);
--> statement-breakpoint
CREATE TABLE "apps" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "apps_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"developer" text DEFAULT '' NOT NULL,
	"icon_url" text,
	CONSTRAINT "apps_slug_unique" UNIQUE("slug")
);
--> statement-breakpoint
CREATE TABLE "business_hours" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "business_hours_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"is_default" boolean DEFAULT false NOT NULL,
	"timezone_id" text NOT NULL,
	"timezone_name" text NOT NULL,
	CONSTRAINT "business_hours_timezone_consistent" CHECK ("business_hours"."timezone_id" = "business_hours"."timezone_name")
);
--> statement-breakpoint
CREATE TABLE "business_hours_holidays" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "business_hours_holidays_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"businesshours_id" integer NOT NULL,
	"name" text NOT NULL,
	"start_date" date NOT NULL,
	"end_date" date NOT NULL,
	CONSTRAINT "business_hours_holidays_order" CHECK ("business_hours_holidays"."end_date" >= "business_hours_holidays"."start_date")
);
--> statement-breakpoint
CREATE TABLE "business_hours_schedules" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "business_hours_schedules_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"businesshours_id" integer NOT NULL,
	"day" smallint NOT NULL,
	"start_hour" text NOT NULL,
	"end_hour" text NOT NULL,
	CONSTRAINT "business_hours_schedules_day" CHECK ("business_hours_schedules"."day" BETWEEN 0 AND 6),
	CONSTRAINT "business_hours_schedules_hours" CHECK ("business_hours_schedules"."start_hour" ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$' AND "business_hours_schedules"."end_hour" ~ '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$' AND "business_hours_schedules"."end_hour" > "business_hours_schedules"."start_hour")
);
--> statement-breakpoint
CREATE TABLE "triggers" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "triggers_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"name" text NOT NULL,
	"businesshours_id" integer
);
--> statement-breakpoint
CREATE TABLE "canned_response_files" (
	"installation_id" integer NOT NULL,
	"canned_response_id" integer NOT NULL,
	"file_id" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	CONSTRAINT "canned_response_files_canned_response_id_file_id_pk" PRIMARY KEY("canned_response_id","file_id")
);
--> statement-breakpoint
CREATE TABLE "canned_responses" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "canned_responses_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"name" text NOT NULL,
	"reply" text NOT NULL,
	"inbox_id" integer
);
--> statement-breakpoint
CREATE TABLE "contact_form_helpdocs" (
	"installation_id" integer NOT NULL,
	"contact_form_id" integer NOT NULL,
	"helpdoc_id" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	CONSTRAINT "contact_form_helpdocs_contact_form_id_helpdoc_id_pk" PRIMARY KEY("contact_form_id","helpdoc_id")
);
--> statement-breakpoint
CREATE TABLE "contact_forms" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "contact_forms_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"name" text NOT NULL,
	"token" text NOT NULL,
	"inbox_id" integer,
	"inbox_field_name" text,
	"accent_color" text DEFAULT '#3b82f6' NOT NULL,
	"trigger_color" text DEFAULT '#3b82f6' NOT NULL,
	"theme" text DEFAULT 'light' NOT NULL,
	"position" text DEFAULT 'bottom-right' NOT NULL,
	"is_live_chat_enabled" boolean DEFAULT false NOT NULL,
	"live_chat_welcome_message" text
);
--> statement-breakpoint
CREATE TABLE "helpdocs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "helpdocs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"name" text NOT NULL,
	"url" text
);
--> statement-breakpoint
CREATE TABLE "code_template_sentiments" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "code_template_sentiments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"code_template_id" integer NOT NULL,
	"tone" text DEFAULT 'neutral' NOT NULL,
	"threshold" real DEFAULT 0.5 NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	CONSTRAINT "code_template_sentiments_threshold" CHECK ("code_template_sentiments"."threshold" BETWEEN 0 AND 1)
);
--> statement-breakpoint
CREATE TABLE "code_templates" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "code_templates_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	"deleted_at" timestamp (3) with time zone,
	"deleted_by" integer,
	"installation_id" integer NOT NULL,
	"name" text NOT NULL,
	"body" text DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "background_jobs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "background_jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"installation_id" integer NOT NULL,
	"type" smallint NOT NULL,
	"action" smallint NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"rows_total" integer DEFAULT 0 NOT NULL,
	"rows_done" integer DEFAULT 0 NOT NULL,
	"rows_failed" integer DEFAULT 0 NOT NULL,
	"problems" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"payload" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp (3) with time zone,
	"finished_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "agent_invites" ADD CONSTRAINT "agent_invites_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_invites" ADD CONSTRAINT "agent_invites_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_feature_installations" ADD CONSTRAINT "app_feature_installations_appfeature_id_app_features_id_fk" FOREIGN KEY ("appfeature_id") REFERENCES "public"."app_features"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_features" ADD CONSTRAINT "app_features_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_installations" ADD CONSTRAINT "app_installations_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_setting_definitions" ADD CONSTRAINT "app_setting_definitions_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_setting_values" ADD CONSTRAINT "app_setting_values_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_setting_values" ADD CONSTRAINT "app_setting_values_setting_id_app_setting_definitions_id_fk" FOREIGN KEY ("setting_id") REFERENCES "public"."app_setting_definitions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "business_hours_holidays" ADD CONSTRAINT "business_hours_holidays_businesshours_id_business_hours_id_fk" FOREIGN KEY ("businesshours_id") REFERENCES "public"."business_hours"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "business_hours_schedules" ADD CONSTRAINT "business_hours_schedules_businesshours_id_business_hours_id_fk" FOREIGN KEY ("businesshours_id") REFERENCES "public"."business_hours"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "triggers" ADD CONSTRAINT "triggers_businesshours_id_business_hours_id_fk" FOREIGN KEY ("businesshours_id") REFERENCES "public"."business_hours"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "canned_response_files" ADD CONSTRAINT "canned_response_files_canned_response_id_canned_responses_id_fk" FOREIGN KEY ("canned_response_id") REFERENCES "public"."canned_responses"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "canned_response_files" ADD CONSTRAINT "canned_response_files_file_id_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."files"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "canned_responses" ADD CONSTRAINT "canned_responses_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_form_helpdocs" ADD CONSTRAINT "contact_form_helpdocs_contact_form_id_contact_forms_id_fk" FOREIGN KEY ("contact_form_id") REFERENCES "public"."contact_forms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_form_helpdocs" ADD CONSTRAINT "contact_form_helpdocs_helpdoc_id_helpdocs_id_fk" FOREIGN KEY ("helpdoc_id") REFERENCES "public"."helpdocs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_forms" ADD CONSTRAINT "contact_forms_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "code_template_sentiments" ADD CONSTRAINT "code_template_sentiments_code_template_id_code_templates_id_fk" FOREIGN KEY ("code_template_id") REFERENCES "public"."code_templates"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_invites_user_idx" ON "agent_invites" USING btree ("installation_id","user_id");--> statement-breakpoint
CREATE INDEX "agent_invites_owner_idx" ON "agent_invites" USING btree ("installation_id","owner_id");--> statement-breakpoint
CREATE UNIQUE INDEX "agent_invites_one_pending_key" ON "agent_invites" USING btree ("installation_id","user_id") WHERE "agent_invites"."status" = 'pending' AND "agent_invites"."state" = 'active';--> statement-breakpoint
CREATE INDEX "announcements_published_idx" ON "announcements" USING btree ("installation_id","published_at");--> statement-breakpoint
CREATE INDEX "anomalies_installation_status_idx" ON "anomalies" USING btree ("installation_id","status");--> statement-breakpoint
CREATE UNIQUE INDEX "app_feature_installations_live" ON "app_feature_installations" USING btree ("installation_id","appfeature_id") WHERE "app_feature_installations"."state" = 'active';--> statement-breakpoint
CREATE INDEX "app_feature_installations_feature_idx" ON "app_feature_installations" USING btree ("appfeature_id");--> statement-breakpoint
CREATE UNIQUE INDEX "app_installations_installation_app" ON "app_installations" USING btree ("installation_id","app_id");--> statement-breakpoint
CREATE UNIQUE INDEX "app_setting_definitions_app_key" ON "app_setting_definitions" USING btree ("app_id","key");--> statement-breakpoint
CREATE UNIQUE INDEX "app_setting_values_installation_setting" ON "app_setting_values" USING btree ("installation_id","setting_id");--> statement-breakpoint
CREATE UNIQUE INDEX "business_hours_one_default" ON "business_hours" USING btree ("installation_id") WHERE "business_hours"."is_default" AND "business_hours"."state" = 'active';--> statement-breakpoint
CREATE INDEX "business_hours_holidays_parent_idx" ON "business_hours_holidays" USING btree ("businesshours_id");--> statement-breakpoint
CREATE INDEX "business_hours_schedules_parent_idx" ON "business_hours_schedules" USING btree ("businesshours_id");--> statement-breakpoint
CREATE INDEX "canned_responses_installation_idx" ON "canned_responses" USING btree ("installation_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "contact_forms_token_key" ON "contact_forms" USING btree ("token");--> statement-breakpoint
CREATE UNIQUE INDEX "code_template_sentiments_template" ON "code_template_sentiments" USING btree ("code_template_id");--> statement-breakpoint
CREATE INDEX "background_jobs_installation_idx" ON "background_jobs" USING btree ("installation_id","id");