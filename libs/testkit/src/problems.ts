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
