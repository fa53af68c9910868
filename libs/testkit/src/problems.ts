/** An HTTP answer as supertest, fetch wrappers and raw sockets give it: status, headers, and the parsed body. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/**
 * Asserts that `answer` is a problem+json of `status` and `code` (the shape every service answers errors in) and
 * returns its body for further checks.
 */
export function expectProblem(
  answer: HttpAnswer,
  status: number,
  code: string,
): { status: number; code: string; type: string; title: string; detail?: string } {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = (typeof answer.body === 'string' ? JSON.parse(answer.body) : answer.body) as {
    status: number;
    code: string;
    type: string;
    title: string;
    detail?: string;
  };
  expect(body).toMatchObject({ status, code, type: `/docs/errors#${code}` });
  return body;
}

/**
 * Asserts that `answer` is the 502 `UPSTREAM_ERROR` of a failed RPC node, gateway or peer service: its `upstream`
 * member carries the upstream's own message (and code), and no stack trace leaks. Returns `upstream`.
 */
export function expectUpstreamProblem(answer: HttpAnswer): { message: string; code: string | number | null } {
  const body = expectProblem(answer, 502, 'UPSTREAM_ERROR') as {
    upstream?: { message: string; code: string | number | null };
  };
  expect(typeof body.upstream?.message).toBe('string');
  expect(body.upstream?.message.length).toBeGreaterThan(0);
  expect(JSON.stringify(body)).not.toMatch(/\bat .+\.ts:\d+/);
  if (!body.upstream) throw new Error('no upstream member');
  return body.upstream;
}
