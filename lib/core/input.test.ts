import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { describeZodError } from './input';

const item = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message'), content: z.string() }),
  z.object({ type: z.literal('function_call'), call_id: z.string(), name: z.string() }),
]);
const schema = z.object({ input: z.union([z.string(), z.array(item)]), n: z.union([z.string(), z.number()]).optional() });
const described = (value: unknown) => {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('expected a failure');
  return describeZodError(parsed.error);
};

describe('describeZodError', () => {
  it('names the field inside a union that one branch got furthest into', () => {
    const { detail, param } = described({
      input: [
        { type: 'message', content: 'hi' },
        { type: 'function_call', name: 'f' },
      ],
    });
    expect(param).toBe('input.1.call_id');
    expect(detail).toMatch(/^input\.1\.call_id: /);
  });
  it("keeps the union's own issue when no branch got further than another", () => {
    expect(described({ input: 5 })).toEqual({ detail: 'input: Invalid input', param: 'input' });
    expect(described({ input: 'x', n: true }).param).toBe('n');
  });
  it('names the discriminator a list item lacks', () => {
    expect(described({ input: [{ content: 'hi' }] }).param).toBe('input.0.type');
  });
});
