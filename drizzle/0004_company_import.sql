CREATE TABLE "import_chunks" (
	"job_id" integer NOT NULL,
	"chunk" integer NOT NULL,
	"from_line" integer NOT NULL,
	"to_line" integer NOT NULL,
	"done_at" timestamp (3) with time zone,
	CONSTRAINT "import_chunks_job_id_chunk_pk" PRIMARY KEY("job_id","chunk")
);
--> statement-breakpoint
CREATE TABLE "import_rows" (
	"job_id" integer NOT NULL,
	"line" integer NOT NULL,
	"data" jsonb NOT NULL,
	CONSTRAINT "import_rows_job_id_line_pk" PRIMARY KEY("job_id","line")
);
--> statement-breakpoint
ALTER TABLE "import_chunks" ADD CONSTRAINT "import_chunks_job_id_background_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."background_jobs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "import_rows" ADD CONSTRAINT "import_rows_job_id_background_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."background_jobs"("id") ON DELETE no action ON UPDATE no action;