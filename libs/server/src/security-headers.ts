import type { RequestHandler, Response } from 'express';
import helmet from 'helmet';

/**
 * helmet's headers, computed once: with the options fixed they never vary per request, so `requestContext` sets
 * them from this list rather than running helmet's dozen middlewares on every request. The answers are JSON and
 * images (and the /docs page), so the headers that only steer legacy browsers' handling of documents are left out,
 * as the OWASP REST Security Cheat Sheet does: X-XSS-Protection, X-Download-Options, X-DNS-Prefetch-Control,
 * X-Permitted-Cross-Domain-Policies and Origin-Agent-Cluster. Each header costs every answer.
 */
export function securityHeaders(): Array<[string, string]> {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: string | number) => void headers.set(name, String(value)),
    removeHeader: (name: string) => void headers.delete(name),
  };
  helmet({
    contentSecurityPolicy: { useDefaults: true, directives: { 'upgrade-insecure-requests': null } },
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  })({} as Parameters<RequestHandler>[0], recorder as unknown as Response, () => undefined);
  return [...headers];
}
