import { dataReply, json, route } from '@/lib/http/route';
import { rangeOf, statsContext } from '@/lib/http/stats-route';
import { statementQuery, statementSchema } from '@/lib/stats/schema';
import { MAX_STATEMENT_MS, nodeStatement } from '@/lib/stats/statements';

/** A node's statement: requests, tokens and USD earned per UTC day or month (design §17; beyond the interface). */
export const GET = route(
  {
    auth: 'partner',
    query: statementQuery,
    doc: {
      summary: "A node's earnings statement per UTC day or month (≤ 366 days; no range: its whole history)",
      tag: 'Partner statistics',
      beyond: true,
      replies: { 200: { schema: dataReply(statementSchema), description: 'The statement' } },
      errors: [400, 401, 429],
    },
  },
  async ({ db, query, partner }) => {
    const range = rangeOf(query, MAX_STATEMENT_MS);
    const data = await nodeStatement(db, statsContext(partner), { partnerNodeId: query.partner_node_id, range, bucket: query.bucket });
    return json({ data });
  },
);
