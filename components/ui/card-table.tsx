'use client';

import { useLayoutEffect, useRef } from 'react';

/**
 * A table that becomes a stack of cards on a phone (below 640 px; design §19): each row a card, each
 * cell a line under its column's name, every action on screen. The names come from the table's own
 * header, copied into the cells' `data-label` after each render, so a table is written once, as a
 * table. Wider than that, it is a table that scrolls inside its box, never the page.
 */
export function CardTable({ children, label, className = '' }: { children: React.ReactNode; label?: string; className?: string }) {
  const ref = useRef<HTMLTableElement>(null);
  useLayoutEffect(() => {
    const table = ref.current;
    if (!table) return;
    const names = [...table.querySelectorAll('thead th')].map((th) => th.textContent?.replace(/[↑↓]/g, '').trim() ?? '');
    for (const row of table.querySelectorAll<HTMLTableRowElement>('tbody tr')) {
      let column = 0;
      for (const cell of row.cells) {
        if (cell.colSpan === 1 && names[column]) cell.dataset.label = names[column];
        column += cell.colSpan;
      }
    }
  });
  return (
    <div className="cards-box overflow-x-auto rounded-lg border border-slate-200 bg-surface">
      <table ref={ref} aria-label={label} className={`cards w-full text-left text-sm ${className}`}>
        {children}
      </table>
    </div>
  );
}
