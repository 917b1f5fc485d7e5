ALTER TABLE "nodes" ADD COLUMN "admitted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "nodes" ADD COLUMN "admitted_by" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "network_nodes" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "partners" ADD COLUMN "admitted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "partners" ADD COLUMN "admitted_by" text;