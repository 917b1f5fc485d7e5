ALTER TABLE "node_events" ADD COLUMN "seq" bigserial NOT NULL;--> statement-breakpoint
ALTER TABLE "nodes" ADD COLUMN "last_event_at" bigint;--> statement-breakpoint
CREATE INDEX "node_events_node_at_idx" ON "node_events" USING btree ("node_id","at");