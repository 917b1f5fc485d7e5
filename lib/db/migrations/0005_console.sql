CREATE TABLE "admin_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"label" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"org_id" text,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"object" text,
	"detail" jsonb,
	"address" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat_latency_hourly" (
	"api_key_id" text NOT NULL,
	"model" text NOT NULL,
	"hour_start" bigint NOT NULL,
	"kind" text NOT NULL,
	"bucket" integer NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "chat_latency_hourly_api_key_id_hour_start_model_kind_bucket_pk" PRIMARY KEY("api_key_id","hour_start","model","kind","bucket")
);
--> statement-breakpoint
CREATE TABLE "console_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"secret_hash" text NOT NULL,
	"role" text NOT NULL,
	"org_id" text,
	"org_token_id" text,
	"admin_token_id" text,
	"address" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "suspended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "chat_latency_hourly" ADD CONSTRAINT "chat_latency_hourly_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_org_token_id_org_tokens_id_fk" FOREIGN KEY ("org_token_id") REFERENCES "public"."org_tokens"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_admin_token_id_admin_tokens_id_fk" FOREIGN KEY ("admin_token_id") REFERENCES "public"."admin_tokens"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "admin_tokens_hash_idx" ON "admin_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "audit_log_org_idx" ON "audit_log" USING btree ("org_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "console_sessions_secret_idx" ON "console_sessions" USING btree ("secret_hash");--> statement-breakpoint
CREATE INDEX "console_sessions_org_idx" ON "console_sessions" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "console_sessions_admin_idx" ON "console_sessions" USING btree ("admin_token_id");