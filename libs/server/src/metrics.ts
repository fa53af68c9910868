import type { Request, Response } from 'express';
import {
  collectDefaultMetrics,
  Counter,
  Histogram,
  Registry,
  type MetricObjectWithValues,
  type MetricType,
  type MetricValueWithName,
} from 'prom-client';

/**
 * A service's Prometheus registry (one per app, so several apps can live in one process without clashing) with the
 * domain metrics operators watch beside the HTTP histograms. Every service exposes every family; a family a service
 * never observes has no samples. Node's process metrics are added by whoever runs the process
 * (`collectProcessMetrics`), not here: prom-client's collector observes GC for as long as the process lives, so an app
 * built and dropped (a test, a bench) would otherwise keep its whole module graph alive.
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

/** Node's process metrics (CPU, memory, event loop lag, GC) in `registry`, once per running service. */
export function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
}

const DURATION_NAME = 'http_request_duration_seconds';
const DURATION_HELP = 'HTTP request duration in seconds, by method, route and status code.';
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The observations of one label set: a count per bucket (not cumulative; the last is +Inf), their sum and count. */
interface DurationSeries {
  labels: { method: string; route: string; status_code: string };
  counts: Float64Array;
  sum: number;
}

/**
 * A histogram counted in plain arrays, exported by prom-client: prom-client's own `observe` validates and hashes the
 * labels on every call, a measurable share of a cached answer. The export is the one prom-client writes.
 */
class RequestDurationHistogram extends Histogram<'method' | 'route' | 'status_code'> {
  private readonly series: DurationSeries[] = [];

  constructor(registry: Registry) {
    super({
      name: DURATION_NAME,
      help: DURATION_HELP,
      labelNames: ['method', 'route', 'status_code'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
  }

  /** The observer of one label set, found once per label set (by the caller), not per request. */
  observerFor(labels: DurationSeries['labels']): (seconds: number) => void {
    const series: DurationSeries = { labels, counts: new Float64Array(DURATION_BUCKETS.length + 1), sum: 0 };
    this.series.push(series);
    return (seconds) => {
      let bucket = 0;
      while (bucket < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[bucket] ?? Infinity)) bucket++;
      series.counts[bucket] = (series.counts[bucket] ?? 0) + 1;
      series.sum += seconds;
    };
  }

  override async get(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    const values: Array<MetricValueWithName<string>> = [];
    for (const { labels, counts, sum } of this.series) {
      let cumulative = 0;
      counts.forEach((count, bucket) => {
        cumulative += count;
        const le = DURATION_BUCKETS[bucket] ?? '+Inf';
        values.push({ metricName: `${DURATION_NAME}_bucket`, labels: { ...labels, le }, value: cumulative });
      });
      values.push({ metricName: `${DURATION_NAME}_sum`, labels, value: sum });
      values.push({ metricName: `${DURATION_NAME}_count`, labels, value: cumulative });
    }
    return {
      name: DURATION_NAME,
      help: DURATION_HELP,
      // prom-client's typings declare a numeric enum that its code neither exports nor uses: the type is a string.
      type: 'histogram' as unknown as MetricType,
      aggregator: 'sum',
      values,
      collect: () => undefined,
    };
  }

  /** What the registry reads for the text format (prom-client's own histogram defines it too). */
  getForPromString(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    return this.get();
  }
}

/**
 * The request duration histogram by method, route and status code, in `registry`: the observer `requestContext`
 * calls when a response finishes. Each label set's observer is looked up once, not hashed per request.
 */
export function httpDurationObserver(
  registry: Registry,
): (req: Request, res: Response, seconds: number) => void {
  const duration = new RequestDurationHistogram(registry);
  // By Express route object (or none), then status and method: no key string is built or hashed per request.
  const observers = new Map<unknown, Map<number, Map<string, (seconds: number) => void>>>();
  return (req, res, seconds) => {
    const expressRoute: unknown = req.route;
    let byStatus = observers.get(expressRoute);
    if (!byStatus) {
      byStatus = new Map();
      observers.set(expressRoute, byStatus);
    }
    let byMethod = byStatus.get(res.statusCode);
    if (!byMethod) {
      byMethod = new Map();
      byStatus.set(res.statusCode, byMethod);
    }
    let observe = byMethod.get(req.method);
    if (!observe) {
      // The matched route pattern keeps label cardinality bounded; unmatched paths share one label.
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      observe = duration.observerFor({ method: req.method, route, status_code: String(res.statusCode) });
      byMethod.set(req.method, observe);
    }
    observe(seconds);
  };
}
