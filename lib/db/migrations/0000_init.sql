CREATE TABLE "aliases" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"type" text NOT NULL,
	"name" text,
	"passcode_enc" text,
	"jwt_secret_enc" text,
	"stream_key_enc" text,
	"expired_at" bigint NOT NULL,
	"inserted_at" bigint NOT NULL,
	"seq" bigserial NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"key_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"label" text,
	"rpm" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "app_settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"encrypted" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "node_events" (
	"node_id" bigint NOT NULL,
	"event_id" text NOT NULL,
	"type" text NOT NULL,
	"at" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "node_events_node_id_event_id_pk" PRIMARY KEY("node_id","event_id")
);
--> statement-breakpoint
CREATE TABLE "node_sessions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"node_id" bigint NOT NULL,
	"connected_at" bigint NOT NULL,
	"disconnected_at" bigint,
	"last_heartbeat_at" bigint,
	"opened_by" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "node_uptime_hourly" (
	"node_id" bigint NOT NULL,
	"hour_start" bigint NOT NULL,
	"uptime_ms" integer NOT NULL,
	CONSTRAINT "node_uptime_hourly_node_id_hour_start_pk" PRIMARY KEY("node_id","hour_start")
);
--> statement-breakpoint
CREATE TABLE "nodes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"external_id" text NOT NULL,
	"public_id" text NOT NULL,
	"public_name" text NOT NULL,
	"ip" text DEFAULT '' NOT NULL,
	"unit_shared" numeric DEFAULT '0' NOT NULL,
	"usd_earned" numeric DEFAULT '0' NOT NULL,
	"total_uptime_ms" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "org_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"label" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "partners" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"name" text NOT NULL,
	"secret_hash" text NOT NULL,
	"secret_prefix" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "aliases" ADD CONSTRAINT "aliases_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "node_events" ADD CONSTRAINT "node_events_node_id_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."nodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "node_sessions" ADD CONSTRAINT "node_sessions_node_id_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."nodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "node_uptime_hourly" ADD CONSTRAINT "node_uptime_hourly_node_id_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."nodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "nodes" ADD CONSTRAINT "nodes_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_tokens" ADD CONSTRAINT "org_tokens_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partners" ADD CONSTRAINT "partners_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "aliases_org_seq_idx" ON "aliases" USING btree ("org_id","seq");--> statement-breakpoint
CREATE INDEX "aliases_expired_idx" ON "aliases" USING btree ("expired_at");--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_idx" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_org_idx" ON "api_keys" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "node_sessions_node_idx" ON "node_sessions" USING btree ("node_id","connected_at");--> statement-breakpoint
CREATE UNIQUE INDEX "node_sessions_open_idx" ON "node_sessions" USING btree ("node_id") WHERE "node_sessions"."disconnected_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "nodes_partner_external_idx" ON "nodes" USING btree ("partner_id","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "nodes_public_id_idx" ON "nodes" USING btree ("public_id");--> statement-breakpoint
CREATE UNIQUE INDEX "org_tokens_hash_idx" ON "org_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "org_tokens_org_idx" ON "org_tokens" USING btree ("org_id");--> statement-breakpoint
CREATE UNIQUE INDEX "partners_secret_idx" ON "partners" USING btree ("secret_hash");--> statement-breakpoint
CREATE INDEX "partners_org_idx" ON "partners" USING btree ("org_id");