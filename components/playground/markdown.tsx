'use client';

import 'highlight.js/styles/github.css';
import ReactMarkdown from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';

/**
 * Assistant replies as Markdown (GFM) with highlighted code blocks. Raw HTML is not rendered. A table
 * scrolls sideways as a block, its cells wrapping between words only.
 */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="prose-chat space-y-3 text-sm leading-relaxed [overflow-wrap:anywhere] [&_table]:block [&_table]:overflow-x-auto [&_a]:text-indigo-700 [&_a]:underline [&_code]:rounded [&_code]:bg-slate-100 [&_code]:px-1 [&_h1]:font-semibold [&_h2]:font-semibold [&_h3]:font-semibold [&_li]:ml-5 [&_ol]:list-decimal [&_pre]:overflow-x-auto [&_pre]:rounded-md [&_pre]:bg-slate-50 [&_pre]:p-3 [&_pre_code]:bg-transparent [&_pre_code]:p-0 [&_table]:max-w-full [&_table]:text-xs [&_td]:border [&_td]:px-2 [&_td]:[overflow-wrap:normal] [&_th]:border [&_th]:px-2 [&_th]:[overflow-wrap:normal] [&_ul]:list-disc">
      <ReactMarkdown remarkPlugins={[remarkGfm]} rehypePlugins={[rehypeHighlight]}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
