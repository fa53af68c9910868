import {
  freshnessQuerySchema,
  IMAGE_KINDS,
  imageMetaSchema,
  imageParamsSchema,
  MAX_TRANSFORM_DIMENSION,
  TRANSFORM_SIZES,
  transformQuerySchema,
} from '@nrp/api';
import { MAX_ANSWER_BYTES, defineRoute, noCacheRateLimit, type RouteDefinition } from '@nrp/server';
import { commonProblems, ProblemError } from '@nrp/validation';
import type { MetadataContext } from '../context';
import { IMAGE_CSP } from '../images/http';
import { problems } from '../problems';
import { avatarImage, resolveAvatar } from './avatars';
import { NFT_METADATA_MAX_BYTES, NFT_METADATA_MAX_DEPTH } from './nft';
import { STORED_VARIANTS_PER_IMAGE } from './variants';

/** `/{network}/avatar/{name}`, `/{network}/header/{name}` and their `/meta`, as ENS's metadata service names them. */
export function avatarRoutes(ctx: MetadataContext): RouteDefinition[] {
  const ttlSeconds = Math.round(ctx.config.AVATAR_CACHE_TTL_MS / 1000);
  const cacheControl = `public, max-age=${ttlSeconds}, stale-while-revalidate=${ttlSeconds * 10}`;
  const noCacheLimit = noCacheRateLimit(ctx.config.NO_CACHE_RATE_LIMIT_PER_MINUTE);
  const unavailable = [
    commonProblems.RATE_LIMITED,
    commonProblems.INVALID_INPUT,
    commonProblems.INVALID_NAME,
    problems.IMAGE_NOT_FOUND,
    problems.AVATAR_UNAVAILABLE,
    commonProblems.UPSTREAM_ERROR,
    commonProblems.SERVICE_UNAVAILABLE,
  ];
  return IMAGE_KINDS.flatMap((kind) => [
    defineRoute({
      method: 'get',
      path: `/:network/${kind}/:name`,
      operationId: `getName${kind === 'avatar' ? 'Avatar' : 'Header'}`,
      budget: { bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES, timeMs: 45_000 },
      summary: `The ${kind} of any name (ENSIP-12)`,
      description:
        `The \`${kind}\` text record, resolved through the universal resolver (wildcard and CCIP-Read), read per ` +
        'ENSIP-12: https, ipfs:// / ipfs/ / bare CID and ipns:// (through IPFS_GATEWAY_URL), ar:// (through ' +
        'ARWEAVE_GATEWAY_URL), data:, and eip155:{chainId}/erc721|erc1155:{contract}/{tokenId} NFTs owned by the ' +
        "name's ETH address (ownerOf / balanceOf; tokenURI / uri with {id}; metadata image, image_url or " +
        `image_data; the metadata JSON at most ${NFT_METADATA_MAX_BYTES} bytes and ${NFT_METADATA_MAX_DEPTH} ` +
        'levels deep, checked before it is parsed; a tokenURI answer that does not decode is 404 fetch-failed). ' +
        'The stable URL of an upload of this service is served from storage. Fetches: the outbound URL policy ' +
        '(https; no localhost; no IANA special-purpose IPv4/IPv6 address, IPv4 embedded in IPv6 judged by the ' +
        'embedded address; DNS pinned to the checked addresses), at most 3 redirects, IMAGE_FETCH_TIMEOUT_MS and ' +
        'IMAGE_FETCH_MAX_BYTES; every failure to get an answer is one `fetch-failed` detail (a closed port, an ' +
        'open one, an error status and a refused address look alike). The type comes from the bytes (jpeg, png, ' +
        'gif, webp, svg — SVG sanitised as for uploads, without feTurbulence, feConvolveMatrix and feMorphology). ' +
        '**Budget per image:** MAX_IMAGE_PIXELS decoded pixels (all frames; default 4096×4096, else 404 ' +
        '`too-large`) and IMAGE_WORK_TIMEOUT_MS for one decode or transform (else 404 `too-large`; an SVG is ' +
        'rendered in a child process killed at that time, so no document holds a CPU longer); decodes and transforms run at most IMAGE_WORK_CONCURRENCY at once per process with ' +
        'IMAGE_WORK_QUEUE_MAX waiting, beyond which the answer is 503 SERVICE_UNAVAILABLE with `Retry-After: 1` ' +
        `at once. **Transforms, a fixed set:** width and height each one of ${TRANSFORM_SIZES.join(', ')} ` +
        `(px, at most ${MAX_TRANSFORM_DIMENSION}; never enlarged; anything else is 400), fit ` +
        'cover|contain|inside|outside|fill (default cover; only with both width and height), format ' +
        'webp|avif|png|jpeg; without format the answer ' +
        'is negotiated from Accept (webp, then avif, else the source format; an unsized SVG stays SVG) with ' +
        '`Vary: Accept`. Animated GIF/WebP stay animated as webp (or gif); png, jpeg and avif take the first frame. ' +
        `At most ${STORED_VARIANTS_PER_IMAGE} results per source image are kept in blob storage (by source ` +
        'sha256 and transform); further variants are computed and kept in process memory only. Answers carry a ' +
        'strong ETag and ' +
        `\`Cache-Control: ${cacheControl}\`. Freshness: a name's record is read again at most ` +
        'AVATAR_CACHE_TTL_MS after the previous read (an upload applies at once on the replica that took it, ' +
        'after at most AVATAR_CACHE_TTL_MS on the others), so a changed record shows after at most that long here, ' +
        'and after max-age + stale-while-revalidate in HTTP caches; `noCache=true` reads the record now and ' +
        'refreshes the cache (NO_CACHE_RATE_LIMIT_PER_MINUTE per client IP, shared with /meta). ' +
        'No record → 404 IMAGE_NOT_FOUND; a record that gives no image → 404 AVATAR_UNAVAILABLE with `reason`.',
      tags: ['avatars'],
      params: imageParamsSchema,
      query: transformQuerySchema,
      rateLimit: noCacheLimit,
      responses: {
        200: { description: 'The image', contentType: 'image/*' },
        304: { description: 'Not modified' },
      },
      problems: unavailable,
      handler: async ({ params, query }, req, res) => {
        const target = { network: params.network, name: params.name, kind };
        const image = await avatarImage(ctx, target, query, req.headers.accept);
        res.setHeader('Content-Type', image.contentType);
        res.setHeader('ETag', image.etag);
        res.setHeader('Cache-Control', cacheControl);
        if (image.negotiated) res.setHeader('Vary', 'Accept');
        res.setHeader('Content-Security-Policy', IMAGE_CSP);
        // send() answers 304 itself when If-None-Match holds this ETag.
        res.send(image.bytes);
      },
    }),
    defineRoute({
      method: 'get',
      path: `/:network/${kind}/:name/meta`,
      operationId: `getName${kind === 'avatar' ? 'Avatar' : 'Header'}Meta`,
      budget: { bodyBytes: 0, answerBytes: 64 * 1024, timeMs: 45_000 },
      summary: `How the ${kind} of a name resolves`,
      description:
        'The record, how it was read, the image URL it led to and whether NFT ownership was verified; a record ' +
        'that gives no image is answered 200 here with `reason` and `detail`. No record → 404 IMAGE_NOT_FOUND. ' +
        '`noCache=true` reads the record now, as on the image route.',
      tags: ['avatars'],
      params: imageParamsSchema,
      query: freshnessQuerySchema,
      rateLimit: noCacheLimit,
      responses: { 200: { description: 'The resolution', schema: imageMetaSchema } },
      problems: [
        commonProblems.INVALID_INPUT,
        commonProblems.INVALID_NAME,
        problems.IMAGE_NOT_FOUND,
        commonProblems.RATE_LIMITED,
        commonProblems.UPSTREAM_ERROR,
      ],
      handler: async ({ params, query }, _req, res) => {
        const target = { network: params.network, name: params.name, kind };
        const resolved = await resolveAvatar(ctx, target, query.noCache === true);
        if (!resolved) {
          throw new ProblemError(
            problems.IMAGE_NOT_FOUND,
            `${params.name} has no ${kind} record on ${params.network}.`,
          );
        }
        res.setHeader('Cache-Control', cacheControl);
        return resolved.meta;
      },
    }),
  ]);
}
