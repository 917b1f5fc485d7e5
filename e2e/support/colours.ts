import type { Page } from '@playwright/test';

/**
 * The relative luminance (0–1, WCAG's) of the colour `read` returns in the page — any CSS colour,
 * oklch() included: drawn on a canvas and read back. `read` runs in the page (its source is sent).
 */
export function luminance(page: Page, read: () => string): Promise<number> {
  return page.evaluate((source) => {
    const color = (0, eval)(`(${source})`)() as string;
    const ctx = document.createElement('canvas').getContext('2d')!;
    ctx.fillStyle = color;
    ctx.fillRect(0, 0, 1, 1);
    const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
    const lin = (c: number) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!);
  }, read.toString());
}
