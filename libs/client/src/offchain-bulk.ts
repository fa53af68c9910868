/** Bulk import and NDJSON export (data portability) methods of the offchain client. */
import { problemOf, requestJson, serviceUrl, type ClientOptions } from './http';
import { NDJSON_CONTENT_TYPE } from '@nrp/api/media-types';
import type { BulkSubnamesResult } from '@nrp/api/offchain-bulk';
import type { CreateSubnameInput, OffchainSubname } from '@nrp/api/offchain';

/** A record as the create-or-update body that writes it again (what an export line becomes for a bulk import). */
export function toCreateSubnameInput(record: OffchainSubname): CreateSubnameInput {
  const entries = (map: Record<string, string>) =>
    Object.entries(map).map(([key, value]) => ({ key, value }));
  return {
    parentName: record.parentName,
    label: record.label,
    owner: record.owner,
    texts: entries(record.texts),
    addresses: Object.entries(record.addresses).map(([coin, value]) => ({ coin: Number(coin), value })),
    metadata: entries(record.metadata),
    contenthash: record.contenthash,
    ttl: record.ttl,
  };
}

export interface OffchainBulkMethods {
  /** Up to 1,000 creates or updates; `atomic: false` answers per-item results instead of all-or-nothing. */
  bulkImportSubnames(
    items: CreateSubnameInput[],
    apiKey: string,
    options?: { atomic?: boolean; idempotencyKey?: string },
  ): Promise<BulkSubnamesResult>;
  /** Every subname of `parentName`, streamed; `cursor` (a label) resumes after that record. */
  exportSubnames(
    parentName: string,
    apiKey: string,
    options?: { cursor?: string },
  ): AsyncGenerator<OffchainSubname>;
}

export function offchainBulkMethods(options: ClientOptions): OffchainBulkMethods {
  // One export line is an OffchainSubname: checked like `getSubname` when the caller opted in.
  const parseLine = (line: string): OffchainSubname => {
    const value: unknown = JSON.parse(line);
    const parser = options.responseSchemas?.getSubname;
    return (parser ? parser.parse(value) : value) as OffchainSubname;
  };
  return {
    bulkImportSubnames: (items, apiKey, { atomic, idempotencyKey } = {}) =>
      requestJson(options, 'bulkImportSubnames', '/api/v1/subnames/bulk', {
        method: 'POST',
        query: { atomic },
        body: { items },
        headers: {
          'x-auth-token': apiKey,
          ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
        },
      }),
    async *exportSubnames(parentName, apiKey, { cursor } = {}) {
      const url = serviceUrl(options, '/api/v1/subnames/export', { parentName, cursor });
      const response = await (options.fetch ?? fetch)(url, {
        headers: { accept: NDJSON_CONTENT_TYPE, ...options.headers, 'x-auth-token': apiKey },
      });
      if (!response.ok || !response.body) throw await problemOf(response);
      const decoder = new TextDecoder();
      let buffered = '';
      const reader = response.body.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        const chunk = read.value;
        buffered += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          if (line) yield parseLine(line);
        }
      }
      if (buffered.trim()) yield parseLine(buffered);
    },
  };
}
