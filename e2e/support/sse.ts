/** The `data:` payloads of a Server-Sent Events body, parsed (the terminator kept as the string '[DONE]'). */
export function sseEvents(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice(6))
    .map((d) => (d === '[DONE]' ? d : JSON.parse(d)));
}
