ALTER TABLE "providers" ADD COLUMN "tunnel_version" integer;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "endpoints" jsonb;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "model_info" jsonb DEFAULT '{}'::jsonb NOT NULL;