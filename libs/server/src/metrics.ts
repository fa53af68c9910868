import type { Request, Response } from 'express';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * A service's Prometheus registry (one per app, so several apps can live in one process without clashing) with
 * Node's process metrics and the domain metrics operators watch beside the HTTP histograms. Every service exposes
 * every family; a family a service never observes has no samples.
 */
export interface ServiceMetrics {
  registry: Registry;
  /** JSON-RPC calls by network, method and outcome (`ok`, `error`: the node answered an error, `failed`: no answer). */
  rpcCalls: Histogram<'network' | 'method' | 'outcome'>;
  /** Cache lookups by cache and result (`hit`, `miss`). */
  cacheLookups: Counter<'cache' | 'result'>;
  /** CCIP-Read gateway answers by outcome (`signed`, or the problem code). */
  gatewayAnswers: Counter<'outcome'>;
  /** EIP-712 mint signatures issued, by network. */
  mintSignatures: Counter<'network'>;
  /** The callback `observeRpcCalls` (@nrp/chain) takes, recording the calls of one network in `rpcCalls`. */
  rpcCallsOf(network: string): (call: { method: string; outcome: string; seconds: number }) => void;
}

export function createServiceMetrics(service: string): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const rpcCalls = new Histogram({
    name: 'rpc_call_duration_seconds',
    help: 'JSON-RPC calls to the chain nodes in seconds, by network, method and outcome (ok, error, failed).',
    labelNames: ['network', 'method', 'outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return {
    registry,
    rpcCalls,
    rpcCallsOf: (network) => (call) =>
      rpcCalls.observe({ network, method: call.method, outcome: call.outcome }, call.seconds),
    cacheLookups: new Counter({
      name: 'cache_lookups_total',
      help: 'Cache lookups by cache and result (hit, miss).',
      labelNames: ['cache', 'result'],
      registers: [registry],
    }),
    gatewayAnswers: new Counter({
      name: 'ccip_gateway_answers_total',
      help: 'CCIP-Read gateway answers by outcome (signed, or the problem code).',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    mintSignatures: new Counter({
      name: 'mint_signatures_total',
      help: 'EIP-712 mint signatures issued, by network.',
      labelNames: ['network'],
      registers: [registry],
    }),
  };
}

/**
 * The request duration histogram by method, route and status code, in `registry`: the observer `requestContext`
 * calls when a response finishes. Each label set's child is looked up once, not hashed per request.
 */
export function httpDurationObserver(
  registry: Registry,
): (req: Request, res: Response, seconds: number) => void {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by method, route and status code.',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // By route, then method and status: no key string is built per request.
  const children = new Map<string, Map<string, { observe(seconds: number): void }>>();
  return (req, res, seconds) => {
    // The matched route pattern keeps label cardinality bounded; unmatched paths share one label.
    const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
    let byStatus = children.get(route);
    if (!byStatus) {
      byStatus = new Map();
      children.set(route, byStatus);
    }
    const statusKey = req.method + res.statusCode;
    let child = byStatus.get(statusKey);
    if (!child) {
      child = duration.labels({ method: req.method, route, status_code: String(res.statusCode) });
      byStatus.set(statusKey, child);
    }
    child.observe(seconds);
  };
}
