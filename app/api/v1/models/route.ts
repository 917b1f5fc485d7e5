import { listModels } from '@/lib/chat/engines';
import { withApiKey } from '@/lib/http/chat-route';

/** The models served here, OpenAI-style (beyond the interface). */
export const GET = withApiKey(async ({ headers }) => ({ status: 200, headers, json: { object: 'list', data: await listModels() } }));
