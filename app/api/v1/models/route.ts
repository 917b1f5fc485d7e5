import { listModels } from '@/lib/chat/models';
import { json, route } from '@/lib/http/route';

/** The models served here, OpenAI-style (beyond the interface), each with its providers' counts. */
export const GET = route({ auth: 'apiKey', format: 'chat' }, async ({ db }) => json({ object: 'list', data: await listModels(db) }));
