import { audit } from '@/lib/console/audit';
import { orgSettings, setOrgSettings } from '@/lib/console/org';
import { orgSettingsBody, orgSettingsSchema } from '@/lib/console/schema';
import { dataReply, json, route } from '@/lib/http/route';

/** The organization's settings: whether its completions may go to nodes admitted to the network (design §20), its budget (§17). */
export const GET = route(
  {
    auth: 'orgToken',
    doc: {
      summary: "The organization's settings: whether its completions may go to network nodes, its budget over all its keys",
      tag: 'Console',
      beyond: true,
      replies: { 200: { schema: dataReply(orgSettingsSchema), description: 'The settings' } },
      errors: [401, 403, 429],
    },
  },
  async ({ db, org }) => json({ data: await orgSettings(db, org.id) }),
);

export const PATCH = route(
  {
    auth: 'orgToken',
    body: orgSettingsBody,
    doc: {
      summary:
        "Change the organization's settings (network_nodes: false keeps its completions off other organizations' nodes; budget_usd and budget_period cap its spend)",
      tag: 'Console',
      beyond: true,
      replies: { 200: { schema: dataReply(orgSettingsSchema), description: 'The settings as they now stand' } },
      errors: [400, 401, 403, 413, 429],
    },
  },
  async ({ db, org, body, actor, address }) => {
    const settings = await setOrgSettings(db, org.id, body);
    await audit(db, { orgId: org.id, actor, action: 'organization.update_settings', object: `org:${org.id}`, detail: body, address });
    return json({ data: settings });
  },
);
