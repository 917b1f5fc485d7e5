import { BadInputError } from './input';

/**
 * Opaque page cursors: a position (an increasing row number) under a tag naming the list, in
 * base64url. A cursor of another list, or made up, is refused as bad input on `after`.
 */
export const encodeCursor = (tag: string, position: number) => Buffer.from(`${tag}:${position}`).toString('base64url');

export function decodeCursor(tag: string, cursor: string): number {
  const m = new RegExp(`^${tag}:(\\d{1,15})$`).exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw new BadInputError('after: not a cursor returned by this endpoint', 'after');
  return Number(m[1]);
}
