import { config } from '@/lib/config';
import { ApiError } from '@/lib/core/errors';
import { modelNotFound } from '@/lib/errors/chat';
import { log } from '@/lib/log';
import type { ModelInfo } from '../schema';
import { GUIDE_MODEL, guideEngine } from './guide';
import type { ChatEngine } from './types';
import { upstreamEngine } from './upstream';

/** The engines of this process: triad-guide always, the upstream when TRIAD_UPSTREAM_URL is set. */
let engines: { guide: ChatEngine; upstream: ChatEngine | null } | undefined;

function all() {
  if (!engines) {
    const c = config();
    engines = {
      guide: guideEngine({ delayMs: c.TRIAD_GUIDE_DELAY_MS }),
      upstream: c.TRIAD_UPSTREAM_URL
        ? upstreamEngine({ baseUrl: c.TRIAD_UPSTREAM_URL, apiKey: c.TRIAD_UPSTREAM_API_KEY, timeoutMs: c.TRIAD_UPSTREAM_TIMEOUT_MS })
        : null,
    };
  }
  return engines;
}

/** The engine serving `model`: 404 model_not_found when none does, 502 when the upstream cannot say. */
export async function engineFor(model: string): Promise<ChatEngine> {
  const { guide, upstream } = all();
  if (model === GUIDE_MODEL) return guide;
  if (upstream && (await upstream.listModels()).some((m) => m.id === model)) return upstream;
  throw modelNotFound(model);
}

/** Every model served; an unreachable upstream leaves its models out (and is logged) rather than failing the list. */
export async function listModels(): Promise<ModelInfo[]> {
  const { guide, upstream } = all();
  const models = await guide.listModels();
  if (upstream) {
    try {
      models.push(...(await upstream.listModels()).filter((m) => m.id !== GUIDE_MODEL));
    } catch (e) {
      log.warn('upstream model list unavailable', { error: e instanceof ApiError ? e.message : (e as Error).message });
    }
  }
  return models;
}
