import { conflict, invalidParameters, notFound } from '@/lib/errors/link';
import { ProviderError } from './store';

/** The admin API's answer to a provider error, in the link format: 404, 409 or 400. */
export async function providerCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (!(e instanceof ProviderError)) throw e;
    throw e.kind === 'not_found' ? notFound(e.message) : e.kind === 'conflict' ? conflict(e.message) : invalidParameters(e.message);
  }
}
