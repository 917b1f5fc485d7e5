export const metadata = { title: 'Playground' };

export default function PlaygroundPage() {
  return (
    <div className="space-y-2">
      <h1 className="text-2xl font-semibold tracking-tight">Playground</h1>
      <p className="text-slate-600">Streaming chat against /api/v1/chat/completions.</p>
      <p className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-800">This page is not built yet.</p>
    </div>
  );
}
