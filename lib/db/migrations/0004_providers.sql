CREATE TABLE "node_served_hourly" (
	"node_id" bigint NOT NULL,
	"hour_start" bigint NOT NULL,
	"requests" integer NOT NULL,
	"tokens" bigint NOT NULL,
	"usd" numeric NOT NULL,
	CONSTRAINT "node_served_hourly_node_id_hour_start_pk" PRIMARY KEY("node_id","hour_start")
);
--> statement-breakpoint
CREATE TABLE "providers" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"base_url" text NOT NULL,
	"api_key_enc" text,
	"models" jsonb,
	"renames" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"weight" integer DEFAULT 1 NOT NULL,
	"timeout_ms" integer DEFAULT 60000 NOT NULL,
	"price_per_1k" numeric,
	"enabled" boolean DEFAULT true NOT NULL,
	"node_id" bigint,
	"state" text DEFAULT 'unknown' NOT NULL,
	"last_error" text,
	"latency_ms" integer,
	"failed_probes" integer DEFAULT 0 NOT NULL,
	"checked_at" timestamp with time zone,
	"catalogue" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"catalogue_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "node_served_hourly" ADD CONSTRAINT "node_served_hourly_node_id_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."nodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "providers" ADD CONSTRAINT "providers_node_id_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."nodes"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "providers_name_idx" ON "providers" USING btree ("name");