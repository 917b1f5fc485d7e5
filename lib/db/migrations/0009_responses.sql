CREATE TABLE "response_items" (
	"response_id" text NOT NULL,
	"seq" integer NOT NULL,
	"org_id" text NOT NULL,
	"item_id" text NOT NULL,
	"kind" text NOT NULL,
	"item" jsonb NOT NULL,
	CONSTRAINT "response_items_response_id_seq_pk" PRIMARY KEY("response_id","seq")
);
--> statement-breakpoint
CREATE TABLE "responses" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"api_key_id" text,
	"previous_response_id" text,
	"body" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "response_items" ADD CONSTRAINT "response_items_response_id_responses_id_fk" FOREIGN KEY ("response_id") REFERENCES "public"."responses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "responses" ADD CONSTRAINT "responses_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "response_items_org_item_idx" ON "response_items" USING btree ("org_id","item_id");--> statement-breakpoint
CREATE INDEX "responses_org_idx" ON "responses" USING btree ("org_id","id");--> statement-breakpoint
CREATE INDEX "responses_expires_idx" ON "responses" USING btree ("expires_at");