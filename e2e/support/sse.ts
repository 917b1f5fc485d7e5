/** The `data:` payloads of a Server-Sent Events body, parsed (the terminator kept as the string '[DONE]'). */
export function sseEvents(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice(6))
    .map((d) => (d === '[DONE]' ? d : JSON.parse(d)));
}

/**
 * The `data:` payloads of a Server-Sent Events body whose events may carry `event:` lines too (the
 * Responses and Messages APIs'), parsed, the terminator kept as '[DONE]'. An event without data throws.
 */
export function namedSseEvents(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const data = block.split('\n').find((l) => l.startsWith('data: '));
      if (data === undefined) throw new Error(`an event without data: ${block.slice(0, 200)}`);
      const payload = data.slice(6);
      return payload === '[DONE]' ? payload : JSON.parse(payload);
    });
}
