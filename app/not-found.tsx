import Link from 'next/link';

export default function NotFound() {
  return (
    <main className="mx-auto max-w-xl p-10 text-center">
      <h1 className="text-2xl font-semibold">Page not found</h1>
      <p className="mt-2 text-slate-600">
        <Link href="/" className="text-indigo-700 underline">
          Back to the dashboard
        </Link>
      </p>
    </main>
  );
}
