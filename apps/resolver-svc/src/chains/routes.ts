import { chainsResultSchema, type ChainsResult } from '@nrp/api';
import { listChains } from '@nrp/ens';
import { defineRoute, type RouteDefinition } from '@nrp/server';

const chains: ChainsResult = {
  chains: listChains().map((chain) => ({
    chain: chain.name,
    coin: chain.coinType,
    label: chain.label,
    chainId: chain.chainId ?? null,
    isEvm: chain.isEvm,
    aliases: [...chain.aliases],
  })),
};

export function chainRoutes(): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/ens/v2/chains',
      operationId: 'getChains',
      budget: { bodyBytes: 0, answerBytes: 64 * 1024, timeMs: 5_000 },
      summary: 'Chains and coin types this service knows',
      description:
        'The chain short names accepted by `chains` / `addresses` (aliases too, case-insensitive) and their coin ' +
        'types: SLIP-44 for non-EVM chains, ENSIP-11 (0x80000000 | chainId) for EVM chains, 60 for Ethereum.',
      tags: ['chains'],
      responses: {
        200: {
          description: 'The chains',
          schema: chainsResultSchema,
          headers: { 'Cache-Control': 'public, max-age=86400' },
        },
      },
      handler: (_input, _req, res) => {
        res.setHeader('Cache-Control', 'public, max-age=86400');
        return chains;
      },
    }),
  ];
}
