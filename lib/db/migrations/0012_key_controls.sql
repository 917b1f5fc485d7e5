ALTER TABLE "api_keys" ADD COLUMN "models" jsonb;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "expires_at" timestamp with time zone;