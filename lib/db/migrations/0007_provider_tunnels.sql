ALTER TABLE "providers" ADD COLUMN "kind" text DEFAULT 'http' NOT NULL;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "held_by" text;