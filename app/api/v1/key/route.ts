import { keyReport, keyReportSchema } from '@/lib/budgets/key-report';
import { dataReply, json, route } from '@/lib/http/route';

/** The API key itself (design §17, as OpenRouter's): its label, models, budget and what it spent. */
export const GET = route(
  {
    auth: 'apiKey',
    format: 'chat',
    doc: {
      summary: 'The calling API key: its label, allowed models, budget (limit, remaining, reset), spend per day, week and month, expiry',
      tag: 'Chat',
      beyond: true,
      replies: { 200: { schema: dataReply(keyReportSchema), description: 'The key' } },
      errors: [401, 429],
    },
  },
  async ({ db, apiKey }) => json({ data: await keyReport(db, apiKey) }),
);
