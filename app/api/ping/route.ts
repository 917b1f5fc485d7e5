/** The framework's floor: a route handler that does nothing. Benchmarks compare against it. */
export function GET() {
  return Response.json({ pong: true });
}
