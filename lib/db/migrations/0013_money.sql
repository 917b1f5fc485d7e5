CREATE TABLE "budget_holds" (
	"id" text NOT NULL,
	"scope" text NOT NULL,
	"period_start" bigint NOT NULL,
	"amount" numeric NOT NULL,
	"expires_at" bigint NOT NULL,
	CONSTRAINT "budget_holds_id_scope_pk" PRIMARY KEY("id","scope")
);
--> statement-breakpoint
CREATE TABLE "budget_spend" (
	"scope" text NOT NULL,
	"period_start" bigint NOT NULL,
	"spent" numeric DEFAULT '0' NOT NULL,
	"reserved" numeric DEFAULT '0' NOT NULL,
	CONSTRAINT "budget_spend_scope_period_start_pk" PRIMARY KEY("scope","period_start")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "budget_usd" numeric;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "budget_period" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "preferences" jsonb;--> statement-breakpoint
ALTER TABLE "chat_usage" ADD COLUMN "cost" numeric DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "budget_usd" numeric;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "budget_period" text;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "price_prompt" numeric;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "price_completion" numeric;--> statement-breakpoint
CREATE INDEX "budget_holds_expiry_idx" ON "budget_holds" USING btree ("scope","expires_at");--> statement-breakpoint
UPDATE "providers" SET "price_prompt" = "price_per_1k" * 1000, "price_completion" = "price_per_1k" * 1000 WHERE "price_per_1k" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "providers" DROP COLUMN "price_per_1k";
