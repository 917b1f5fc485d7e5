import { Playground } from '@/components/playground/playground';

export const metadata = { title: 'Playground' };

export default function PlaygroundPage() {
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Playground</h1>
        <p className="text-slate-600">Streaming chat against POST /api/v1/chat/completions with your API key.</p>
      </div>
      <Playground />
    </div>
  );
}
