import { config } from '@/lib/config';
import type { Db } from '@/lib/db/client';
import { providerModels } from '@/lib/providers/router';
import type { ModelClient } from '@/lib/providers/client';
import type { Tenant } from '@/lib/providers/tenancy';
import type { ModelInfo } from './schema';
import { GUIDE_MODEL, GUIDE_MODEL_INFO, guideEngine } from './guide';

/*
 * The models served: triad-guide, built in and always there, and the providers' (lib/providers), which
 * serve every other model.
 */
let guide: ModelClient | undefined;

export const isGuide = (model: string) => model === GUIDE_MODEL;

export function guideOf(): ModelClient {
  guide ??= guideEngine({ delayMs: config().TRIAD_GUIDE_DELAY_MS });
  return guide;
}

/** Every model served to `tenant`: triad-guide, then the providers' models (each once, with its providers' counts). */
export async function listModels(db: Db, tenant: Tenant): Promise<ModelInfo[]> {
  return [GUIDE_MODEL_INFO, ...(await providerModels(db, tenant)).filter((m) => m.id !== GUIDE_MODEL)];
}
