CREATE TABLE "request_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"request_id" text NOT NULL,
	"org_id" text NOT NULL,
	"api_key_id" text NOT NULL,
	"endpoint" text NOT NULL,
	"model" text NOT NULL,
	"provider" text,
	"status" integer NOT NULL,
	"stream" boolean NOT NULL,
	"latency_ms" integer NOT NULL,
	"ttft_ms" integer,
	"prompt_tokens" integer NOT NULL,
	"completion_tokens" integer NOT NULL,
	"cost" numeric DEFAULT '0' NOT NULL,
	"error" text,
	"trace_id" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "request_log_org_idx" ON "request_log" USING btree ("org_id","id");