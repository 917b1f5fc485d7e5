CREATE TABLE "provider_traffic_hourly" (
	"provider_id" text NOT NULL,
	"hour_start" bigint NOT NULL,
	"ok" integer NOT NULL,
	"failed" integer NOT NULL,
	CONSTRAINT "provider_traffic_hourly_provider_id_hour_start_pk" PRIMARY KEY("provider_id","hour_start")
);
--> statement-breakpoint
ALTER TABLE "provider_traffic_hourly" ADD CONSTRAINT "provider_traffic_hourly_provider_id_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."providers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- One style for audit actions (object.verb, whoever acted): the CLI's entries and the org settings' renamed.
UPDATE "audit_log" SET "action" = CASE "action"
  WHEN 'admin.org_create' THEN 'organization.create'
  WHEN 'admin.token_create' THEN 'org_token.create'
  WHEN 'admin.token_revoke' THEN 'org_token.revoke'
  WHEN 'admin.apikey_create' THEN 'api_key.create'
  WHEN 'admin.apikey_revoke' THEN 'api_key.revoke'
  WHEN 'admin.partner_create' THEN 'partner.create'
  WHEN 'admin.admin-token_create' THEN 'admin_token.create'
  WHEN 'admin.admin-token_revoke' THEN 'admin_token.revoke'
  WHEN 'admin.node_register' THEN 'node.register'
  WHEN 'admin.node_admit' THEN 'node.admit'
  WHEN 'admin.node_revoke' THEN 'node.revoke'
  WHEN 'admin.demo_node_stop' THEN 'demo_node.stop'
  WHEN 'admin.demo_node_start' THEN 'demo_node.start'
  WHEN 'admin.provider_add' THEN 'provider.add'
  WHEN 'admin.provider_update' THEN 'provider.update'
  WHEN 'admin.provider_remove' THEN 'provider.remove'
  WHEN 'org.settings' THEN 'organization.update_settings'
  ELSE "action" END
WHERE "action" LIKE 'admin.%' OR "action" = 'org.settings';
